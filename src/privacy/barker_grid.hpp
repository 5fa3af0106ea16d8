// Float-safe noise for DP Barker (issue #23): the release Y = λ + N(0, σ² − σ_b²) of
// privacy/barker_accounting.hpp made on a power-of-two grid with an exact discrete Gaussian, so
// that the noise the Theorem 3.3 accounting assumes is the noise added (Mironov, CCS 2012, on
// floating-point noise). Unlike the Gaussian-sum releases (grid_noise.hpp) the noise variance
// depends on the data, and the accountant's event fixes the mean sensitivity at 2/√b; the grid
// is therefore paid for inside Theorem 3.3's own assumptions rather than by a larger event:
//
//   grid     h = 2⁻⁴¹: σ ∈ (1, 2), so every scale s ≤ σ/h < 2⁴² (the exact sampler's range);
//   mean     the per-row clip is shrunk from √b/(nT) to (1 − ρ)·√b/(nT) with
//            ρ = (2e + h)·√b/2 + 2⁻⁴⁰, e the floating-point error bound of λ: two neighbours'
//            grid-rounded means then differ by ≤ 2(1 − ρ)/√b + 2e + h ≤ 2/√b, the |Δλ| of the
//            theorem (the 2⁻⁴⁰ covers the roundings of a and of the shrunk clip);
//   variance s = clamp(round(√v/h), s_lo, s_hi), v = σ² − σ_b² (computed), with
//            s_lo = ⌈√(σ² − 1)/h⌉ and s_hi = ⌊σ/h⌋ exactly: v' = (s·h)² ∈ [σ² − 1, σ²], the
//            theorem's range (for σ² as given and as the accountant rebuilds it from the
//            event's σ, which may differ in the last bit), and |v' − v| ≤ 2σh + h² (the
//            roundings of σ² − σ_b², of √v and of the division, ~4u, fit in e's margin: e
//            bounds σ_b²'s error with room to spare), so neighbours' v′ differ by at most
//            4(b − 1)/b² + 2e + 4σh + 2h² (e also bounds the error of σ_b²), which must stay
//            ≤ 5/b, the theorem's |Δσ_b²| (checked: it needs 2e + 4σh + 2h² ≤ 1/b + 4/b²);
//   release  h·(round(λ/h) + Z), Z ~ N_Z(0, s²) exact. As in discrete_noise_bound.hpp, the
//            rounded Gaussian round(λ/h + W/h), W ~ N(0, v′), is post-processing of the
//            continuous Y the theorem analyses (mean within the 2/√b sensitivity, variance v′ in
//            range), and N_Z(0, s²) is within η(s) ≥ η(s_lo) of it in total variation: the run
//            adds (1 + e^ε)·K·η(s_lo) to δ, reserved by the planner (run/private_plan.hpp).
// V_corr, added afterwards from the noise stream, is post-processing of the release.
#pragma once

#include <cstddef>
#include <cstdint>

namespace dpmcmc {

struct BarkerGrid {
  double grid = 0.0;         // h
  double clip_factor = 1.0;  // 1 − ρ: the clip is clip_factor·√b/(nT)
  std::uint64_t s_lo = 0;    // ⌈√(σ² − 1)/h⌉
  std::uint64_t s_hi = 0;    // ⌊σ/h⌋
};

// The calibration above for noise variance σ² and batch b, given e = the floating-point error
// bound of λ and of σ_b² (minibatch_ratio_float_error). ConfigError when ρ > 2⁻¹⁰ or the variance
// condition fails (batches beyond ~10⁶ rows), or for σ² outside (1, 4), e < 0 or b = 0.
BarkerGrid calibrate_barker_grid(double noise_variance, std::size_t batch, double float_error);

// s for a computed noise variance v = σ² − σ_b² (clamped into [s_lo, s_hi]; a NaN gives s_lo).
std::uint64_t barker_noise_scale(const BarkerGrid& grid, double variance);

// A lower bound on s_lo from an event's noise sd σ (the planner's s_min for Barker events; the
// event stores σ, not σ²): ⌊√(σ² − 1)/h·(1 − 2⁻³⁰)⌋, at least 1. ConfigError unless
// 1 < σ² < 4.
double barker_min_noise_scale(double noise_sd);

}  // namespace dpmcmc
