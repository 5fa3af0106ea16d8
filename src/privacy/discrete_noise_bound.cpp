#include "privacy/discrete_noise_bound.hpp"

#include <fmt/format.h>

#include <cmath>
#include <numbers>

#include "core/error.hpp"

namespace dpmcmc {
namespace {

// Covers the relative rounding error of the evaluations below (≤ ~1e-14, see the header).
constexpr double kRoundUp = 1.0 + 1e-12;

void check_scale(const char* who, double s) {
  if (!std::isfinite(s) || s < 1.0 || s > 1e100) {
    throw ConfigError(
        fmt::format("{}: the discrete Gaussian scale s must be in [1, 1e100], got {}", who, s));
  }
}

}  // namespace

double discrete_gaussian_tv_bound(double s) {
  check_scale("discrete_gaussian_tv_bound", s);
  const double phi0 = std::numbers::inv_sqrtpi / std::numbers::sqrt2;  // φ(0) = 1/√(2π)
  const double phi1 = phi0 * std::exp(-0.5);                           // φ(1)
  const double phi_sqrt3 = phi0 * std::exp(-1.5);                      // φ(√3)
  // e1(s) = (1/24)·[4φ(1)/s² + (2φ(0) + 8φ(√3))/s³], factored so that nothing overflows.
  const double e1 = (4.0 * phi1 + (2.0 * phi0 + 8.0 * phi_sqrt3) / s) / (s * s) / 24.0;
  // Z_s − 1 ≤ 2q/(1 − q), q = exp(−2π²s²) ≤ 2.7e-9 (Poisson summation); q underflows to 0 from
  // s ≈ 6, where it is far below the rounding margin of e1.
  const double q = std::exp(-2.0 * std::numbers::pi * std::numbers::pi * s * s);
  return (0.5 * e1 + q / (1.0 - q)) * kRoundUp;
}

double discretisation_delta(double epsilon, double coordinates_released, double s_min) {
  if (!std::isfinite(epsilon) || epsilon < 0.0) {
    throw ConfigError(
        fmt::format("discretisation_delta: epsilon must be finite and >= 0, got {}", epsilon));
  }
  if (!std::isfinite(coordinates_released) || coordinates_released < 0.0) {
    throw ConfigError(fmt::format(
        "discretisation_delta: the number of coordinates released must be finite and >= 0, got {}",
        coordinates_released));
  }
  const double eta = discrete_gaussian_tv_bound(s_min);  // checks s_min
  if (coordinates_released == 0.0) return 0.0;
  return (1.0 + std::exp(epsilon)) * coordinates_released * eta * kRoundUp;
}

}  // namespace dpmcmc
