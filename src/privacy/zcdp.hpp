// Zero-concentrated DP accountant (issue item 2). A Gaussian release with sensitivity Δ and noise
// σ is ρ-zCDP with ρ = Δ²/(2σ²); zCDP composes by adding ρ ([Raisa2021] Theorems
// 2.7 and 2.11 (2)); a ρ-zCDP mechanism is (ρ + 2√(ρ ln(1/δ)), δ)-DP for every δ ∈ (0, 1).
// Certified but loose: for Gaussian compositions the closed-form PLD is never worse.
#pragma once

#include <memory>
#include <span>

#include "privacy/accountant.hpp"

namespace dpmcmc {

// Σ count·Δ²/(2σ²) of plain Gaussian events (ConfigError naming the first other event).
double zcdp_rho(std::span<const PrivacyEvent> events);
// ε = ρ + 2√(ρ ln(1/δ)), δ ∈ (0, 1), ρ ≥ 0.
double zcdp_epsilon(double rho, double delta);
// The inverse: δ = exp(−(ε − ρ)²/(4ρ)) for ε > ρ, and 1 (no guarantee) for ε ≤ ρ; 0 for ρ = 0.
double zcdp_delta(double rho, double epsilon);
// The largest ρ with zcdp_epsilon(ρ, δ) ≤ ε: ρ = (√(ε + ln(1/δ)) − √(ln(1/δ)))²
// ([Raisa2021] Theorem 3.1), evaluated as ε²/(√(ε + L) + √L)², L = ln(1/δ), which
// has no cancellation.
double zcdp_rho_budget(double epsilon, double delta);

class ZcdpProfile final : public PrivacyProfile {
 public:
  explicit ZcdpProfile(double rho) : rho_(rho) {}
  double epsilon(double delta) const override { return zcdp_epsilon(rho_, delta); }
  double delta(double epsilon) const override { return zcdp_delta(rho_, epsilon); }
  double rho() const { return rho_; }

 private:
  double rho_;
};

// Name "zcdp". Supports plain Gaussian events (and Poisson q = 1) under either relation. It does
// not model subsampling: zCDP has no useful amplification-by-subsampling theorem.
class ZcdpAccountant final : public Accountant {
 public:
  std::string name() const override { return "zcdp"; }
  BoundKind bound() const override { return BoundKind::upper_bound; }
  bool supports(const PrivacyEvent& event) const override;
  std::unique_ptr<PrivacyProfile> compose(std::span<const PrivacyEvent> events) const override;
};

}  // namespace dpmcmc
