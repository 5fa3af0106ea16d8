// The "classical" accountant: compositions of mechanisms known only through an (ε, δ)-DP
// guarantee (Mechanism::approximate_dp, e.g. DP-Fast MH's per-iteration certificate). Its answer
// is a certified upper bound:
//   - always: the better of basic and advanced composition (composition.hpp);
//   - when the total count is at most
//     kOptimalCompositionMaxK: also the optimal composition of Kairouz, Oh and Viswanath of that
//     many (max ε, max δ) mechanisms (exact for a homogeneous list; every event is also
//     (max ε, max δ)-DP, so it bounds a heterogeneous one),
//     which is never worse.
#pragma once

#include <memory>
#include <optional>
#include <span>

#include "privacy/accountant.hpp"
#include "privacy/composition.hpp"

namespace dpmcmc {

class ClassicalProfile final : public PrivacyProfile {
 public:
  // `sums` over all events; `optimal` over the count at the largest (ε, δ).
  ClassicalProfile(ApproxDpSums sums, std::optional<OptimalHomogeneousComposition> optimal);
  double epsilon(double delta) const override;
  double delta(double epsilon) const override;
  bool uses_optimal_composition() const { return optimal_.has_value(); }

 private:
  ApproxDpSums sums_;
  std::optional<OptimalHomogeneousComposition> optimal_;
};

// Name "classical". Supports approximate_dp events (one relation per composition).
class ClassicalAccountant final : public Accountant {
 public:
  std::string name() const override { return "classical"; }
  BoundKind bound() const override { return BoundKind::upper_bound; }
  bool supports(const PrivacyEvent& event) const override;
  std::unique_ptr<PrivacyProfile> compose(std::span<const PrivacyEvent> events) const override;
};

}  // namespace dpmcmc
