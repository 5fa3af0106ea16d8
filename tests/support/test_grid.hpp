// Replays PrivateData's float-safe noise (privacy/grid_noise.hpp) for tests that recompute a
// release: the calibration of a sum of n rows with |value| ≤ bound per coordinate at temperature
// T, d coordinates (summed in PrivateData's blocks of kClipBlockRows rows), nominal sensitivity Δ
// and multiplier m, and the value a release of x makes
// from an identically keyed noise stream. (The calibration and the release are tested against
// independent values in tests/privacy/grid_noise_test.cpp.)
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "core/discrete_gaussian.hpp"
#include "core/rng.hpp"
#include "models/clipped_rows.hpp"
#include "privacy/grid_noise.hpp"

namespace dpmcmc {

inline GridNoise release_grid(double multiplier, double sensitivity, std::size_t coordinates,
                              std::size_t n, double temperature, double bound) {
  return calibrate_grid_noise(multiplier, sensitivity, coordinates,
                              release_sum_float_error(n, kClipBlockRows, temperature, bound));
}

// The calibration a release reports (its sensitivity and σ), for releases whose floating-point
// error bound is internal: h = 2^(⌊log₂(m·Δ)⌋ − 40) from the nominal m·Δ, s = σ/h (exact).
inline GridNoise grid_of(double multiplier, double nominal_sensitivity, double sensitivity,
                         double noise_sd) {
  GridNoise g;
  g.grid = std::ldexp(1.0, std::ilogb(multiplier * nominal_sensitivity) - kGridNoiseScaleBits);
  g.sensitivity = sensitivity;
  g.scale = static_cast<std::uint64_t>(noise_sd / g.grid);
  return g;
}

inline double replay_release(double x, const GridNoise& g, NoiseRng& replay) {
  return grid_release(x, g.grid, DiscreteGaussian(DiscreteGaussianScale::integer(g.scale)), replay);
}

}  // namespace dpmcmc
