// Gaussian privacy-loss distribution, closed form (issue item 1). An adaptive composition of
// Gaussian mechanisms with sensitivities Δᵢ and noise σᵢ has privacy loss L ~ N(μ, 2μ),
// μ = Σᵢ countᵢ·Δᵢ²/(2σᵢ²), and is (ε, δ(ε))-DP with
//   δ(ε) = ½[erfc((ε−μ)/(2√μ)) − e^ε erfc((ε+μ)/(2√μ))]
//        = Φ(s/2 − ε/s) − e^ε Φ(−s/2 − ε/s),   s = √(2μ)
// ([RaisaKoskelaHonkela2021] Theorem 2.4; [Raisa2021] Theorem 4.3). The bound is
// tight, so the accountant's answer is exact; it reports it as a certified upper bound: every
// root found numerically is returned on the side of its bracket where the budget holds.
//
// Numerics. Everything is evaluated as log δ. Where the two terms nearly cancel (δ far below
// either term: large ε with small μ) the difference is rewritten without subtraction. With
// x = ε/s − s/2, Φ(s/2 − ε/s) = φ(x)R(x) and e^ε Φ(−s/2 − ε/s) = φ(x)R(x + s), where
// R(x) = Φ(−x)/φ(x) = ∫₀^∞ exp(−xu − u²/2) du is Mills' ratio (e^ε φ(x+s) = φ(x) because
// (x+s)² − x² = 2ε). Hence
//   δ = φ(x) ∫₀^∞ e^{−u²/2 − xu} (1 − e^{−su}) du,
// an integral of a positive function, computed by exp-sinh quadrature (Boost.Math). The
// derivation is in docs/privacy-accounting.md.
#pragma once

#include <memory>
#include <span>

#include "privacy/accountant.hpp"

namespace dpmcmc {

// μ = Σ count·Δ²/(2σ²) of plain Gaussian events (also Poisson-"subsampled" with q = 1).
// Throws ConfigError naming the first event that is not such an event.
double gaussian_pld_mu(std::span<const PrivacyEvent> events);

// log δ(ε) for the PLD N(μ, 2μ); μ ≥ 0 (μ = 0: no release, −∞), ε ≥ 0. Finite for ε up to
// 10⁴ and beyond, and for δ far below the double range (log δ ≈ −2.5e7 at μ = 1, ε = 10⁴).
double gaussian_pld_log_delta(double mu, double epsilon);
// δ(ε) = exp(log δ(ε)); underflows to 0 below ~1e-308.
double gaussian_pld_delta(double mu, double epsilon);
// The smallest ε ≥ 0 with δ(ε) ≤ δ, δ ∈ (0, 1): root of log δ(ε) = log δ (TOMS 748), returned on
// the side where δ(ε) ≤ δ. Relative accuracy ~1e-14.
double gaussian_pld_epsilon(double mu, double delta);
// The largest μ with δ(ε; μ) ≤ δ (δ is increasing in μ): the total "Gaussian budget" that a
// given (ε, δ) allows. Returned on the side where the budget holds; 0 if no μ > 1e-300 does.
double gaussian_pld_max_mu(double epsilon, double delta);

class GaussianPldProfile final : public PrivacyProfile {
 public:
  explicit GaussianPldProfile(double mu) : mu_(mu) {}
  double epsilon(double delta) const override;
  double delta(double epsilon) const override;
  double mu() const { return mu_; }

 private:
  double mu_;
};

// Name "pld-gaussian". Supports Mechanism::gaussian under either relation (the caller's Δ
// reflects the relation) and Poisson "subsampled" Gaussian events with q = 1.
class GaussianPldAccountant final : public Accountant {
 public:
  std::string name() const override { return "pld-gaussian"; }
  BoundKind bound() const override { return BoundKind::upper_bound; }
  bool supports(const PrivacyEvent& event) const override;
  std::unique_ptr<PrivacyProfile> compose(std::span<const PrivacyEvent> events) const override;
  // Exact whenever it interprets every event: the composed loss of Gaussian mechanisms is exactly
  // N(μ, 2μ) for the dominating pair N(0, σ²), N(Δ, σ²) (the tight bound above).
  bool exact(std::span<const PrivacyEvent> events) const override;
};

}  // namespace dpmcmc
