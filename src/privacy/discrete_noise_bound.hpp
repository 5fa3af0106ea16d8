// Accounting the discrete Gaussian with the continuous Gaussian accountants.
//
// Why a discrete Gaussian: a floating-point Gaussian added to a real-valued query leaks the query
// through the low-order bits of the result (Mironov, "On significance of the least significant
// bits for differential privacy", CCS 2012). The remedy is to round the query to an integer grid
// and add integer noise drawn exactly: the discrete Gaussian N_Z(0, s²), P(k) ∝ exp(−k²/(2s²)),
// sampled with integer arithmetic only by core/discrete_gaussian.hpp (Canonne, Kamath and
// Steinke, "The Discrete Gaussian for Differential Privacy", NeurIPS 2020, Algorithms 1–3).
// This file certifies such releases with the accountants the project already has, which all
// speak of the continuous Gaussian mechanism.
//
// The argument. Work in grid units (a grid of spacing h: an integer query a stands for h·a; the
// noise s is in grid units, so the continuous mechanism below has noise sd h·s in the query's
// units). Let W ~ N(0, s²) and R = round(W), the "rounded Gaussian": P(R = k) = R_k =
// ∫_{k−½}^{k+½} φ_s, with φ_s the N(0, s²) density (ties have probability 0).
//  1. Post-processing. For an integer a, a + R = round(a + W): the rounded-Gaussian release is a
//     function of the continuous Gaussian release a + W. So any run whose releases are
//     a_i + R_i has at least the privacy of the same run with a_i + W_i, for the same
//     sensitivity and the same adaptivity: the continuous accountant's δ_c(ε) holds for it.
//     Caveat: the sensitivity is that of the integer query actually released. Rounding a real
//     query to the grid can move two neighbours' values apart by up to one more grid step per
//     coordinate, so the sensitivity to account is that of the rounded query (in grid units at
//     most Δ/h + 1 per coordinate for a real query of ℓ∞-sensitivity Δ, and Δ₂/h + √d in ℓ2
//     over d coordinates), not that of the real query.
//  2. Hybrid argument. Let η ≥ TV(N_Z(0, s²), R). Total variation is shift invariant, so for any
//     input a the kernels a ↦ a + N_Z(0, s²) and a ↦ a + R differ by at most η, whatever a the
//     adaptive run chose. For a run with K such releases (K = the number of integer coordinates
//     noised, a d-dimensional release counting d), let H_j use the rounded Gaussian for the
//     first j releases and the discrete Gaussian afterwards, everything else unchanged. H_j and
//     H_{j+1} differ only in the kernel of release j + 1; conditionally on everything before it
//     the outputs differ by ≤ η in TV, and everything after is the same kernel applied to both,
//     so TV(H_j, H_{j+1}) ≤ η (data processing). Hence TV(discrete run, rounded run) ≤ Kη on
//     every dataset, for the full transcript.
//  3. From TV to (ε, δ). For neighbours D, D' and any event S, with M the discrete run and M' the
//     rounded one: P[M(D) ∈ S] ≤ P[M'(D) ∈ S] + Kη ≤ e^ε P[M'(D') ∈ S] + δ_c(ε) + Kη
//     ≤ e^ε (P[M(D') ∈ S] + Kη) + δ_c(ε) + Kη. So the discrete run is
//        (ε, δ_c(ε) + (1 + e^ε)·K·η)-DP,
//     and discretisation_delta() below is the added term. The smallest noise s_min among the
//     releases gives a valid η for all of them (η decreases in s).
//
// The bound η(s). Let g = |φ_s''|, I_k = [k − ½, k + ½], Z_s = Σ_k φ_s(k), p_k = φ_s(k)/Z_s.
//  (i) Midpoint rule with remainder: R_k = φ_s(k) + φ_s''(ξ_k)/24 for some ξ_k ∈ I_k, so
//      |R_k − φ_s(k)| ≤ sup_{I_k} g / 24.
//  (ii) Each I_k has length 1, so sup_{I_k} g ≤ ∫_{I_k} g + (sup_{I_k} g − inf_{I_k} g)
//      ≤ ∫_{I_k} g + Var_{I_k}(g), and variation adds over adjacent intervals:
//      Σ_k sup_{I_k} g ≤ ∫ g + Var_ℝ(g).
//      With φ_s''(x) = φ''(x/s)/s³ and φ''(u) = (u² − 1)φ(u) (φ the standard normal density):
//      ∫ g = (1/s²)∫|φ''| = (1/s²)·Var_ℝ(φ') = 4φ(1)/s² (φ' runs 0 → φ(1) → −φ(1) → 0, its
//      extremes at u = ∓1); and |φ''| rises from 0 to 2φ(√3) at u = −√3, falls to 0 at −1,
//      rises to φ(0) at 0, then symmetrically, so Var_ℝ(g) = (2φ(0) + 8φ(√3))/s³. Hence
//        Σ_k |R_k − φ_s(k)| ≤ e1(s) := (1/24)·[4φ(1)/s² + (2φ(0) + 8φ(√3))/s³].
//      (The bound Var_ℝ(g) ≤ 6·sup g = 6φ(0)/s³, six monotone pieces, is also valid, 1.6×
//      looser in the 1/s³ term.)
//  (iii) Normalisation: Σ_k R_k = 1 gives |Z_s − 1| ≤ e1(s). Poisson summation gives more:
//      Z_s = Σ_m exp(−2π²s²m²) = 1 + 2Σ_{m≥1} q^{m²} with q = exp(−2π²s²), so
//      0 ≤ Z_s − 1 ≤ 2q/(1 − q) (≤ 5.4e-9 at s = 1, then superexponentially smaller).
//  (iv) Σ_k |p_k − R_k| ≤ Σ_k |φ_s(k)/Z_s − φ_s(k)| + Σ_k |φ_s(k) − R_k|
//      = |1 − Z_s| + Σ_k |φ_s(k) − R_k| ≤ 2q/(1 − q) + e1(s), and TV is half the ℓ1 distance:
//        TV(N_Z(0, s²), R) ≤ η(s) := e1(s)/2 + q/(1 − q).
//      (Using |Z_s − 1| ≤ e1 instead gives TV ≤ e1(s), valid but twice as large.) For large s,
//      R_k − p_k ≈ −φ_s''(k)/24, so the true TV is ≈ φ(1)/(12s²) = e1(s)/2 + O(1/s³): the bound
//      is tight to first order (bound/true = 3.1 at s = 1, 1.16 at s = 10, 1.016 at s = 100; the
//      test measures these). Since η ≈ 0.02/s², K·η is small only for large s: e.g. K = 10⁶
//      coordinates and Kη ≤ 1e-9 need s ≳ 4.5·10⁶ grid steps.
#pragma once

namespace dpmcmc {

// η(s) ≥ TV(N_Z(0, s²), round(N(0, s²))), the closed form above, for s in [1, 1e100] (the upper
// limit keeps every intermediate in the normal double range). Rounded up: the evaluation has
// about twenty roundings of relative size ≤ 2⁻⁵³ on positive terms (no cancellation) and libm's
// exp is within 1 ulp, so the computed value is within a relative 1e-14 of the exact
// expression; it is multiplied by (1 + 1e-12), which covers that with a wide margin.
// ConfigError for s < 1, s > 1e100 or s not finite.
double discrete_gaussian_tv_bound(double s);

// The δ that releasing `coordinates_released` (K) integer coordinates with discrete Gaussian noise
// of scale ≥ s_min adds to the continuous Gaussian accountant's δ_c(ε) for the same sensitivity
// (point 3 above): (1 + e^ε)·K·η(s_min), rounded up like η. ε ≥ 0, K ≥ 0 (a count, passed as a
// double so that huge compositions fit), s_min as for discrete_gaussian_tv_bound. Returns 0 for
// K = 0 and +∞ when (1 + e^ε)·K·η overflows (ε ≳ 700): a vacuous but valid bound.
// ConfigError for ε < 0, K < 0, or any argument not finite.
double discretisation_delta(double epsilon, double coordinates_released, double s_min);

}  // namespace dpmcmc
