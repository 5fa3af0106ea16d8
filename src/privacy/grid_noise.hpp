// Float-safe Gaussian noise for a clipped sum (issue #23): the released value is a multiple of a
// power-of-two grid h, h·(round(x̂/h) + Z) with Z ~ N_Z(0, s²) the discrete Gaussian drawn
// exactly with integer arithmetic (core/discrete_gaussian.hpp), instead of x̂ + σ·N(0, 1) on
// doubles, whose low-order bits leak x̂ (Mironov, CCS 2012). Every PrivateData release uses it
// (DP Barker through privacy/barker_grid.hpp, which shares grid_release).
//
// The calibration of a d-coordinate sum whose per-row contributions have real-arithmetic L2
// sensitivity Δ, computed in floating point with an error ≤ e per coordinate, for a noise
// multiplier m (the plan's σ/Δ):
//   h = 2^(⌊log₂(m·Δ)⌋ − 40)                       (so s ≥ 2⁴⁰: the bridge δ is negligible),
//   Δ_eff = Δ·(1 + 2⁻³⁰) + √d·(h + 2e),            s = ⌈m·Δ_eff / h⌉,  σ = s·h ≥ m·Δ_eff.
// Why Δ_eff bounds the sensitivity of the released integer vector (times h): for neighbours with
// exact sums S, S′ of the computed row contributions, computed sums Ŝ, Ŝ′ and rounded h·Q, h·Q′,
//   ‖hQ − hQ′‖₂ ≤ ‖S − S′‖₂ + ‖(Ŝ − S) − (Ŝ′ − S′)‖₂ + ‖(hQ − Ŝ) − (hQ′ − Ŝ′)‖₂
//             ≤ Δ·(1 + 2⁻³⁰) + √d·2e + √d·h,
// the factor 1 + 2⁻³⁰ covering a computed row contribution that exceeds its clip bound by a few
// ulps (a gradient scaled to norm b by a computed norm: relative error ≤ (d + 2)·2⁻⁵³ ≤ 2⁻³²
// for d ≤ 2²⁰). Q is held in a double (exact: an integer), clamped to ±2¹⁰⁰⁰ (1-Lipschitz; maps
// an overflow or a NaN into range), and Q + Z rounded to a double is a function of the integer
// Q + Z, so no int64 range limits the sums. The accountants then see a Gaussian event of
// sensitivity Δ_eff and noise σ, and privacy/discrete_noise_bound.hpp adds the δ of replacing
// N(0, s²) by N_Z(0, s²): (1 + e^ε)·K·η(2⁴⁰), η(2⁴⁰) ≈ 1.7e-26, K the coordinates released.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/discrete_gaussian.hpp"
#include "core/rng.hpp"

namespace dpmcmc {

// log₂ of the smallest grid-unit noise scale the calibration gives: s ≥ 2^kGridNoiseScaleBits.
inline constexpr int kGridNoiseScaleBits = 40;

struct GridNoise {
  double grid = 0.0;         // h = 2^k
  double sensitivity = 0.0;  // Δ_eff, in the value's units
  std::uint64_t scale = 0;   // s, in grid units
  // σ = s·h, exact (s < 2⁵³ times a power of two).
  double noise_sd() const { return static_cast<double>(scale) * grid; }
};

// The calibration above. ConfigError unless m > 0, Δ > 0, e ≥ 0 are finite, d ≥ 1 and
// 2⁻⁹⁰⁰ ≤ m·Δ ≤ 2⁹⁰⁰ (h a normal double, Δ_eff/h finite).
GridNoise calibrate_grid_noise(double multiplier, double sensitivity, std::size_t coordinates,
                               double float_error);

// A bound on |fl(T·Σ v_i) − T·Σ v_i| for n terms with |v_i| ≤ bound, summed in any order (any
// tree of n − 1 additions has error ≤ γ_{n−1}·Σ|v_i|; the product by T adds one rounding):
// γ_{n+1}·n·T·bound, γ_k = k·u/(1 − k·u), u = 2⁻⁵³, rounded up. ConfigError unless
// n·u < 1/2 and T, bound ≥ 0 finite.
double sum_float_error(std::size_t n, double temperature, double bound);

// The same bound for the way PrivateData sums its rows: in consecutive blocks of `block` rows,
// each block summed in any order, the block sums added one after another to an accumulator that
// starts at 0, and the total multiplied by T. A term then passes through at most
//   k = (min(n, block) − 1) + ⌈n/block⌉        additions
// (within its block, then once per block sum into the accumulator), so by the same argument
// (Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed., Section 4.2: the error of a
// summation tree is at most γ_k·Σ|v_i| for k its depth) the error is at most γ_{k+2}·n·T·bound:
// the product by T and the (1 + 2⁻⁴⁰) slack as in sum_float_error. For n = 10⁸ rows in blocks of
// 4096, k = 28 510 instead of 10⁸ − 1: the error bound, and the noise it adds through Δ_eff,
// shrink by a factor of about 3500. ConfigError as sum_float_error, and for block = 0.
double blocked_sum_float_error(std::size_t n, std::size_t block, double temperature, double bound);

// The bound a release of a sum over n rows (PrivateData's blocks of `block` rows) calibrates its
// grid with: sum_float_error up to kBlockedBoundRows rows, blocked_sum_float_error above. Both are
// valid for that summation and the choice depends on the public n only. Below the threshold the
// general bound adds at most n²·2⁻⁵³ ≈ 2e-3 of Δ to the noise, and keeping it there keeps every
// release calibrated before the blocked bound existed, hence every committed result drawn under a
// key, the same bit for bit; above it the general bound costs real noise (1 % at 10⁷ rows) and
// refuses releases at 10⁸ rows (docs/decisions.md, "Summation error of the releases").
inline constexpr std::size_t kBlockedBoundRows = std::size_t{1} << 22;
double release_sum_float_error(std::size_t n, std::size_t block, double temperature, double bound);

// A bound on the floating-point error of the minibatch ratio moments (PrivateData's
// clipped_ratio_moments) and what the releases make of them: λ = a·R, R = Σ_B r, and
// σ_b² = a²(Σ(r − r₀)² − (Σ(r − r₀))²/b), |r| ≤ β, a = nT/b, b = batch. The sums of
// |r − r₀| ≤ 2β and of its squares ≤ 4β² over b rows err by γ_{b+1} of their absolute sums;
// squaring, dividing and combining add a few relative roundings of terms at most 3abβ (λ) and
// 8a²bβ² (σ_b²). γ_{b+8} times twice those terms, γ_{b+8}·(6abβ + 16a²bβ²), bounds the error of
// λ, of σ_b² and of the penalty's λ − ½σ_b² alike.
double minibatch_ratio_float_error(double n, double temperature, std::size_t batch, double bound);

// h·(clamp(round(value/h), ±2¹⁰⁰⁰) + Z), h = grid (a power of two), Z ~ N_Z(0, s²) drawn from
// the noise stream with `sampler` (DiscreteGaussian(DiscreteGaussianScale::integer(s)), s the
// calibration's scale). A NaN value is
// released as if it were +2¹⁰⁰⁰·h: callers pass clipped sums, which are finite.
double grid_release(double value, double grid, const DiscreteGaussian& sampler, NoiseRng& rng);

}  // namespace dpmcmc
