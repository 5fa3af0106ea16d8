// The privacy guarantee of DP-Fast MH ([ZhangZhang2023] Algorithm 2, Lemma 1,
// Theorem 2), re-derived (docs/dp-fast-mh.md has the derivations and the reasons for every
// deviation from the paper). Summary:
//
// Public padding. C = Σ c_i and max_i c_i are functions of the private rows; Algorithm 2 uses
// them as constants (B ~ Poisson(λ + CM) then reveals C). We run TunaMH on the dataset augmented
// by one zero-energy row of bound C̄ − C, C̄ = n·c̄ with c̄ the model's *declared* per-row bound
// (rows with c_i > c̄ are refused): the target is unchanged, B ~ Poisson(λ + C̄M) and the branch
// (B < K: minibatch, else full batch) are data-independent, and each of the B draws hits the row
// in which two neighbouring datasets differ with probability at most q = c̄/C̄ = 1/n.
//
// Sensitivities (Lemma 1 with C̄ and c̄, tempered): each drawn row contributes a term in
// [−L, L] to ℓ1, L = log(1 + C̄M/λ), so one substituted draw moves ℓ1 by at most Δ1 = 2L
// (= Lemma 1's Δ(ℓ1)); ℓ2 = Σ_i (U_i(θ) − U_i(θ′)) moves by at most Δ2 = 2c̄M (Lemma 1's Δ(ℓ2)).
//
// Noisy minibatch branch: Y = ℓ1 + N(0, (ν1Δ1)²). With k hits among the B draws, Y is a Gaussian
// mechanism of sensitivity kΔ1; amplification by sampling with replacement (Balle, Barthe and
// Gaboardi 2018, Theorem 10, with a per-draw hit probability q) gives, for every ε_b ≥ 0,
//   ε′ = log(1 + (1 − (1 − q)^B)(e^{ε_b} − 1)),
//   δ′ = Σ_{k=1}^{B} C(B, k) q^k (1 − q)^{B−k} δ_G(ε_b; k/ν1),
// δ_G the exact Gaussian curve (analytic_gaussian_delta). Both increase with B, so B = K − 1 is
// the worst case; ν1 is calibrated there for the target (ε, δ) per iteration. (The paper's
// "ε′ ≤ 6Kpε" is a linearisation valid only for small ε and its σ1 uses the classical Gaussian
// formula outside ε < 1; both fail in the paper's own setting.)
// Noisy full-batch branch: Y = ℓ2 + N(0, (ν2Δ2)²), ν2 = analytic Gaussian multiplier for (ε, δ).
//
// "Privacy for free" (no noise) releases one accept/reject bit with P(accept) = min(1, e^{ℓ+τ}).
// Accept probabilities have ratio ≤ e^Δ, but when one dataset accepts with probability 1 its
// neighbour rejects with probability up to 1 − e^{−Δ}: the exact guarantee is
//   full batch  (0, 1 − e^{−Δ2})-DP for every ε ≥ 0 (tight),
//   minibatch   (0, 1 − (1 − q(1 − e^{−Δ1}))^B)-DP (coupling of the hits; tight up to the
//               worst-case values of the hit rows),
// never (Δ, 0)-DP. The branch is therefore OFF by default; when enabled it is taken only if its
// δ does not exceed the per-iteration δ, so every iteration stays (ε, δ)-DP, and the event
// records the exact (0, δ_free).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/types.hpp"
#include "privacy/privacy_event.hpp"

namespace dpmcmc {

// Event label of DP-Fast MH's per-iteration release.

// --- Lemma 1 ([ZhangZhang2023] Appendix A), with the public C̄ and c̄ (both already tempered). --
// Δ(ℓ1) = 2 log(1 + C̄M/λ).
double fastmh_minibatch_sensitivity(double total_bound, double distance, double lambda);
// Δ(ℓ2) = 2 c̄ M.
double fastmh_fullbatch_sensitivity(double row_bound, double distance);

// --- Amplification by sampling with replacement (Balle–Barthe–Gaboardi 2018, Theorem 10). ----
// ε′ = log(1 + (1 − (1 − q)^B)(e^{ε_b} − 1)); 0 for B = 0.
double fastmh_amplified_epsilon(double inner_epsilon, double hit_rate, std::uint64_t draws);
// The inner ε_b giving ε′ = `epsilon` after B draws (+∞ when B = 0 or q = 0).
double fastmh_inner_epsilon(double epsilon, double hit_rate, std::uint64_t draws);
// δ′ = Σ_k Binom(B, q)(k) δ_G(ε_b; k/ν), an upper bound: the binomial tail beyond the terms
// summed is added as if δ_G were 1 there.
double fastmh_amplified_delta(double inner_epsilon, double noise_multiplier, double hit_rate,
                              std::uint64_t draws);

// --- Free branches (no noise): the exact δ of the accept/reject bit (ε = 0 and every ε ≥ 0). --
// 1 − e^{−Δ2}.
double fastmh_free_fullbatch_delta(double sensitivity);
// 1 − (1 − q(1 − e^{−Δ1}))^B.
double fastmh_free_minibatch_delta(double sensitivity, double hit_rate, std::uint64_t draws);

// The hit probability of one draw, q = c̄/C̄ = 1/n.
inline double fastmh_hit_rate(std::size_t n) {
  return 1.0 / static_cast<double>(n);
}

// Noise calibration for a target per-iteration (ε, δ) (both branches certify exactly this).
struct FastMhCalibration {
  double epsilon = 0.0;  // per-iteration ε of a noisy iteration
  double delta = 0.0;    // per-iteration δ of a noisy iteration
  std::size_t n = 0;
  std::uint64_t max_batch = 0;        // K: minibatch branch iff B < K
  double hit_rate = 0.0;              // q = 1/n
  double inner_epsilon = 0.0;         // ε_b of the minibatch Gaussian (+∞ when K = 1)
  double minibatch_multiplier = 0.0;  // ν1 (0 when K = 1: B = 0 reads no row, no noise needed)
  double fullbatch_multiplier = 0.0;  // ν2
};

// ConfigError naming the option unless ε is finite and > 0, δ ∈ (0, 1), n ≥ 1 and K ≥ 1.
// ν1 is the smallest multiplier (relative precision 1e-9, rounded up) with
// fastmh_amplified_delta(ε_b, ν1, 1/n, K − 1) ≤ δ; ν2 = analytic_gaussian_sigma(1, ε, δ).
FastMhCalibration calibrate_fastmh(double epsilon, double delta, std::size_t n,
                                   std::uint64_t max_batch);

// The per-iteration template for the planner: one approximate_dp event (ε, δ), substitute
// relation, label "fastmh" — the worst case of every branch.
std::vector<PrivacyEvent> fastmh_template(double epsilon, double delta);

// Composition of a recorded DP-Fast MH log that may mix (ε, δ) and free (0, δ_free) events:
// the better of advanced/basic composition with the recorded values and the Kairouz–Oh–
// Viswanath optimal composition at (max ε_i, max δ_i) (valid: each event is (max ε, max δ)-DP).
// So recorded ≤ planned whenever every event is dominated by the planned (ε, δ).
double fastmh_composed_epsilon(std::span<const PrivacyEvent> events, double delta_total);

// ---- The release (PrivateData::fastmh_release, private_data_fastmh.cpp). --------------------
struct FastMhRequest {
  const Vec* theta = nullptr;        // θ (public: the chain's last released state)
  const Vec* theta_prime = nullptr;  // θ′ (public: the proposal)
  double distance = 0.0;             // M(θ, θ′) > 0 from the model's RatioBound
  double row_bound = 0.0;            // c̄ (untempered), the declared bound on every c_i
  double lambda = 10.0;              // λ > 0
  bool full_batch_only = false;      // the full-batch variant of [ZhangZhang2023] Section 6.1
  bool free_branch = false;          // allow "privacy for free" when its δ ≤ calibration.delta
  double log_prior_ratio = 0.0;      // τ = log p(θ′) − log p(θ), used by free branches only
  const FastMhCalibration* calibration = nullptr;
};

struct FastMhRelease {
  std::uint64_t batch = 0;  // B (public: Poisson(λ + C̄M), data-independent); n for full batch
  bool full_batch = false;
  bool free = false;
  // Noisy branches: Y − σ²/2, the noisy log TunaMH/MH ratio without the prior term; the kernel
  // accepts with probability min(1, exp(value + τ)). Free branches: 0 (not released).
  double value = 0.0;
  double noise_sd = 0.0;     // σ (0 in free branches)
  double sensitivity = 0.0;  // Δ1 or Δ2 of this iteration
  bool accept = false;       // free branches only: the decision, drawn from the noise stream
  double epsilon = 0.0;      // the certificate recorded for this iteration
  double delta = 0.0;
  // Rows evaluated (real draws, or n). A function of the private data: NOT released; kept for
  // cost measurements (benchmarks) only and never written to the draws.
  std::uint64_t rows_evaluated = 0;
};

}  // namespace dpmcmc
