// Rényi-DP curves of one release of the Gaussian family (issue "Privacy accounting toolkit",
// item 3). Each function returns ε(α) such that one release is (α, ε(α))-RDP; composition adds
// curves order by order ([Raisa2021] Theorem 2.7). The noise multiplier is
// z = σ/Δ, where Δ is the L2 sensitivity under the event's neighbouring relation.
//
// Every curve here is a certified upper bound on the Rényi divergence of the mechanism, up to
// floating-point rounding (the series and integrals are truncated on the safe side, see each
// function). Invalid arguments throw ConfigError naming the parameter.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>

namespace dpmcmc {

// Gaussian mechanism: ε(α) = α/(2z²) (Mironov 2017; [Raisa2021] Theorem 2.11).
// Tight. α > 1 real.
double rdp_gaussian(double alpha, double noise_multiplier);

// --- Poisson subsampling, add/remove neighbours -------------------------------------------
// Mironov, Talwar and Zhang 2019, "Rényi Differential Privacy of the Sampled Gaussian
// Mechanism" (MTZ19). With μ0 = N(0, z²), μ1 = N(1, z²), μ = (1−q)μ0 + qμ1, the RDP of the
// sampled Gaussian is (1/(α−1)) log A_α with A_α = E_{μ0}[(μ/μ0)^α] (MTZ19 show D_α(μ‖μ0) is
// the larger of the two directions). Tight.
//
// Integer α ≥ 2: the binomial expansion
//   A_α = Σ_{k=0}^{α} C(α,k) (1−q)^{α−k} q^k exp((k²−k)/(2z²)).
// Because Σ_k C(α,k)(1−q)^{α−k}q^k = 1, A_α − 1 = Σ_{k≥2} C(α,k)(1−q)^{α−k}q^k expm1((k²−k)/(2z²)),
// a sum of positive terms, evaluated in log space: no cancellation even for q = 1e-6.
double rdp_poisson_subsampled_gaussian_integer(std::uint64_t alpha, double q,
                                               double noise_multiplier);

// Real α > 1: MTZ19's two series, split at z0 = z² ln(1/q − 1) + ½ where the two mixture
// components of μ/μ0 are equal (derivation: expand ((1−q) + q e^{(2x−1)/(2z²)})^α binomially in
// the smaller over the larger term on each side of z0, integrate term by term against μ0):
//   A_α = Σ_{i≥0} C(α,i) (1−q)^{α−i} q^i e^{(i²−i)/(2z²)} ½ erfc((i − z0)/(√2 z))
//       + Σ_{i≥0} C(α,i) (1−q)^{i} q^{α−i} e^{((α−i)²−(α−i))/(2z²)} ½ erfc((z0 − (α−i))/(√2 z)),
// C(α,i) the generalised binomial coefficient. Terms are summed in log space with their signs;
// past i > α they alternate, so the first omitted term bounds the remainder and is added on the
// safe side. At integer α the series terminate and equal the binomial form (tested).
double rdp_poisson_subsampled_gaussian_fractional(double alpha, double q, double noise_multiplier);

// Dispatches: integer α → the binomial form, otherwise the series; q = 1 → rdp_gaussian.
double rdp_poisson_subsampled_gaussian(double alpha, double q, double noise_multiplier);

// --- Sampling without replacement, substitute neighbours ----------------------------------
// Wang, Balle and Kasiviswanathan 2019, "Subsampled Rényi Differential Privacy and Analytical
// Moments Accountant" (WBK19), Theorem 9, for a generic base mechanism that is (α, ε(α))-RDP
// under substitution on batches, and (optionally) ε(∞)-DP. For integer α ≥ 2, with q = b/n:
//   ε'(α) ≤ 1/(α−1) · log(1 + q² C(α,2) min{4(e^{ε(2)}−1), e^{ε(2)} min{2, (e^{ε(∞)}−1)²}}
//                          + Σ_{j=3}^{α} q^j C(α,j) e^{(j−1)ε(j)} min{2, (e^{ε(∞)}−1)^j}).
// This is the form used in [Raisa2021] Theorems 3.3 and 3.5 (there ε(∞) = ∞, so
// the inner minima are 2). We also take the minimum with the joint-convexity bound
// e^{(α−1)ε'(α)} ≤ 1 + q(e^{(α−1)ε(α)} − 1), valid because the batches that miss the changed row
// are the same for both datasets. Real α: (α−1)·D_α = log E_Q[(P/Q)^α] is a cumulant generating
// function of the log-likelihood ratio, hence convex in α (Hölder), and vanishes at α = 1, so the
// linear interpolation of (α−1)ε' between ⌊α⌋ and ⌈α⌉ (or between 1 and 2) is again an upper
// bound.
double rdp_wbk_subsampled(double alpha, double q, const std::function<double(double)>& base_rdp,
                          double base_rdp_infinity = std::numeric_limits<double>::infinity());

// WBK19 Theorem 9 with the Gaussian base curve α/(2z²) (ε(∞) = ∞): [Raisa2021]
// Theorem 3.5 with ε'(α) = α/(2τ) is this with z² = τ.
double rdp_wbk_subsampled_gaussian(double alpha, double q, double noise_multiplier);

// The Gaussian-specific bound we implement for sampling without replacement + substitution.
// WBK19 give a tighter Gaussian-specific variant of Theorem 9 (their appendix, via Pearson–Vajda
// divergences), but we could not verify its exact constants from the sources at hand, so we
// implement instead a bound we can prove and that is tight for the mechanism's dominating pair:
//
// Let P = N(1, z²), Q = N(0, z²) (the Gaussian pair for substitution on batches) and
// P' = (1−q)Q + qP. Balle, Barthe and Gaboardi 2018 (Theorem 10, "advanced joint convexity")
// give H_γ'(M(X)‖M(X')) ≤ H_γ'(P'‖Q) for every γ' ≥ 1 and every pair of substitute neighbours;
// by the symmetry of substitution the same holds for the reversed pair, which bounds γ' < 1
// through H_γ(A‖B) = 1 − γ + γ H_{1/γ}(B‖A). The symmetric pair (P_s, Q_s) whose hockey-stick
// curve is H(P'‖Q) for γ ≥ 1 and its mirror for γ < 1 (the trade-off function C_q(f) of Dong,
// Roth and Su 2019, Theorem 6) therefore dominates every release, and since every f-divergence
// is an integral of hockey-stick divergences with non-negative weight (Liese and Vajda 2006),
// D_α(M(X)‖M(X')) ≤ D_α(P_s‖Q_s). The privacy-loss law of (P_s, Q_s) is that of P'‖Q on
// (0, ∞), its mirror image weighted by e^{−ℓ} on (−∞, 0), and an atom at 0; integrating gives
//   e^{(α−1)D_α(P_s‖Q_s)} = 1 + ∫_{x>1/2} [r^α + r^{1−α} − r − 1] dQ(x),
//   r(x) = 1 − q + q e^{(2x−1)/(2z²)},
// whose integrand is ≥ 0 (convex in r, zero with zero slope at r = 1), so the integral
// (Gauss–Kronrod, scaled by its peak) suffers no cancellation. Valid for every real α > 1;
// q = 1 gives the Gaussian curve exactly. It is at least the Poisson curve at the same q
// (the pair dominates P'‖Q) and in our tests below WBK19 Theorem 9.
double rdp_wor_subsampled_gaussian(double alpha, double q, double noise_multiplier);

}  // namespace dpmcmc
