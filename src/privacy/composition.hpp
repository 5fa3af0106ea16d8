// Composition theorems for mechanisms known only through an (ε, δ)-DP guarantee (issue item 5).
//
// Advanced composition (Dwork, Rothblum and Vadhan 2010; [Yildirim2020] Theorem 3):
// k adaptive (ε, δ)-DP mechanisms are (ε′, kδ + δ′)-DP for every δ′ > 0, with
//   ε′ = √(2k ln(1/δ′)) ε + kε(e^ε − 1).
// Its proof bounds each privacy loss by ε in absolute value with mean at most ε(e^ε − 1) and
// applies Azuma's inequality; with different εᵢ the same proof gives
//   ε′ = √(2 ln(1/δ′) Σεᵢ²) + Σ εᵢ(e^{εᵢ} − 1),   δ_total = Σδᵢ + δ′,
// which reduces to Theorem 3 for equal εᵢ (docs/privacy-accounting.md). Basic composition
// (Σεᵢ, Σδᵢ) is always valid too; the functions below return the better of the two.
//
// Optimal homogeneous composition (Kairouz, Oh and Viswanath 2015, Theorem 3.3): k adaptive
// (ε, δ)-DP mechanisms are ((k − 2i)ε, 1 − (1 − δ)^k (1 − δᵢ))-DP for i = 0, …, ⌊k/2⌋, with
//   δᵢ = Σ_{ℓ=0}^{i−1} C(k, ℓ) (e^{(k−ℓ)ε} − e^{(k−2i+ℓ)ε}) / (1 + e^ε)^k,
// and nothing better holds. The theorem rests on the composed k-fold randomised response
// dominating every composition; its privacy loss is (k − 2ℓ)ε with probability
// C(k, ℓ)e^{(k−ℓ)ε}/(1 + e^ε)^k, so for any ε_g (not only the grid (k − 2i)ε)
//   δ₀(ε_g) = Σ_{ℓ : (k−2ℓ)ε > ε_g} C(k, ℓ) (e^{(k−ℓ)ε} − e^{ε_g + ℓε}) / (1 + e^ε)^k,
// which equals δᵢ at ε_g = (k − 2i)ε. Every term is computed in log space (binomial coefficients
// by lgamma), so k up to kOptimalCompositionMaxK and ε up to hundreds neither overflow nor
// cancel.
#pragma once

#include <cstdint>
#include <vector>

namespace dpmcmc {

// Sums describing a heterogeneous list of (εᵢ, δᵢ) mechanisms (each counted with multiplicity).
struct ApproxDpSums {
  double sum_epsilon = 0.0;     // Σ εᵢ
  double sum_epsilon_sq = 0.0;  // Σ εᵢ²
  double sum_mean = 0.0;        // Σ εᵢ(e^{εᵢ} − 1): bound on the mean privacy loss
  double sum_delta = 0.0;       // Σ δᵢ
  void add(double epsilon, double delta, std::uint64_t count = 1);
};

// [Yildirim2020] Theorem 3: ε′ for k mechanisms (ε, ·) and slack δ′ ∈ (0, 1).
double advanced_composition_epsilon(double epsilon, std::uint64_t k, double delta_prime);

// min(basic, advanced) ε for a total δ (including Σδᵢ): +∞ when δ_total < Σδᵢ (no guarantee).
double composed_epsilon_basic_advanced(const ApproxDpSums& sums, double delta_total);
// The smallest total δ ≤ 1 at ε by min(basic, advanced); 1 when neither applies.
double composed_delta_basic_advanced(const ApproxDpSums& sums, double epsilon);

// Largest k for which the exact optimal composition is evaluated (memory and time grow as k/2).
inline constexpr std::uint64_t kOptimalCompositionMaxK = 4'000'000;

// Kairouz–Oh–Viswanath optimal composition of k (ε, δ)-DP mechanisms. Precomputes the log
// weights log C(k, ℓ) + (k − ℓ)ε − k log(1 + e^ε), ℓ ≤ k/2 (the others never contribute for
// ε_g ≥ 0). Throws ConfigError for k > kOptimalCompositionMaxK, ε < 0, δ ∉ [0, 1).
class OptimalHomogeneousComposition {
 public:
  OptimalHomogeneousComposition(double epsilon, double delta, std::uint64_t k);
  // log δ₀(ε_g) of the pure part (δ = 0); −∞ for ε_g ≥ kε.
  double log_pure_delta(double epsilon_g) const;
  // Total δ(ε_g) = 1 − (1 − δ)^k (1 − δ₀(ε_g)).
  double delta(double epsilon_g) const;
  // The smallest ε_g with delta(ε_g) ≤ δ_total, returned on the safe side of the bisection;
  // +∞ when δ_total < 1 − (1 − δ)^k.
  double epsilon(double delta_total) const;

 private:
  double epsilon_, delta_;
  std::uint64_t k_;
  std::vector<double> log_weight_;  // ℓ = 0, …, ⌊k/2⌋
};

}  // namespace dpmcmc
