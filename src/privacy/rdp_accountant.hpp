// The RDP accountant ("rdp"): composes Gaussian, Poisson-subsampled Gaussian (add/remove) and
// without-replacement subsampled Gaussian (substitute) releases by adding their Rényi-DP curves
// (rdp.hpp), then converts to (ε, δ) (rdp_conversion.hpp). Its answers are certified upper
// bounds (up to floating-point rounding); they are looser than the numerical PLD's.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "privacy/accountant.hpp"
#include "privacy/rdp_conversion.hpp"
#include "privacy/rdp_events.hpp"

namespace dpmcmc {

// Which certified curve to use for sampling without replacement under substitution.
enum class WorRdpBound {
  minimum,       // the smaller of the two below at each order (both are valid): the default
  wbk_theorem9,  // WBK19 Theorem 9 (as in [Raisa2021] Theorem 3.5)
  tight_pair,    // the Rényi divergence of the dominating pair (rdp_wor_subsampled_gaussian)
};

struct RdpOptions {
  std::vector<double> orders = default_rdp_orders();
  RdpConversion conversion = RdpConversion::improved;
  bool refine = true;  // continuous refinement of the order (Brent)
  WorRdpBound wor_bound = WorRdpBound::minimum;
};

// RDP curve of one release of a group (count ignored).
double rdp_of_release(const GaussianReleaseGroup& group, double alpha,
                      WorRdpBound wor_bound = WorRdpBound::minimum);

// RDP values of single releases at the grid orders by (kind, q, σ/Δ, bound, order), shared by
// the profiles one accountant composes: a planner composes the same release at ~2 log₂ k
// counts, and the curve of a subsampled release costs a series per order. Thread-safe; a hit
// returns what rdp_of_release would.
class RdpReleaseCache {
 public:
  double get(const GaussianReleaseGroup& group, double alpha, WorRdpBound wor_bound);

 private:
  std::mutex mutex_;
  std::map<std::tuple<int, double, double, int, double>, double> values_;
};

class RdpProfile : public PrivacyProfile {
 public:
  RdpProfile(std::vector<GaussianReleaseGroup> groups, RdpOptions options,
             std::shared_ptr<RdpReleaseCache> cache = nullptr);
  // Total RDP of the composition at order α > 1 (any real order).
  double rdp(double alpha) const;
  double epsilon(double delta) const override;
  double delta(double epsilon) const override;
  // The same with the optimal order.
  RdpOptimum epsilon_at(double delta) const;
  RdpOptimum delta_at(double epsilon) const;
  const RdpOptions& options() const { return options_; }

 private:
  double curve(double alpha) const;  // rdp(), from the cache at the grid orders

  std::vector<GaussianReleaseGroup> groups_;
  RdpOptions options_;
  std::shared_ptr<RdpReleaseCache> cache_;  // null: every value computed
  std::vector<double> grid_;                // sorted options_.orders
  std::vector<double> grid_values_;         // rdp() at grid_, computed once
};

class RdpAccountant : public Accountant {
 public:
  explicit RdpAccountant(RdpOptions options = {});
  std::string name() const override { return "rdp"; }
  BoundKind bound() const override { return BoundKind::upper_bound; }
  bool supports(const PrivacyEvent& event) const override;
  std::unique_ptr<PrivacyProfile> compose(std::span<const PrivacyEvent> events) const override;
  // compose() with the concrete type, for callers that want the curve or the optimal order.
  std::unique_ptr<RdpProfile> compose_rdp(std::span<const PrivacyEvent> events) const;

 private:
  RdpOptions options_;
  std::shared_ptr<RdpReleaseCache> cache_ = std::make_shared<RdpReleaseCache>();
};

}  // namespace dpmcmc
