#include "privacy/barker_grid.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <boost/multiprecision/cpp_int.hpp>
#include <cmath>

#include "core/error.hpp"
#include "privacy/grid_noise.hpp"

namespace dpmcmc {
namespace {

using boost::multiprecision::uint128_t;

// h = 2⁻⁴¹: σ ∈ (1, 2) for the admissible σ² ∈ (1, 4), so every scale s ≤ σ/h < 2⁴².
constexpr int kGridExponent = -41;

// ⌊√x⌋ and ⌈√x⌉ of a double x ≥ 1, exactly (integer square roots of ⌊x⌋ and ⌈x⌉: for n ≥ 0,
// n ≤ √x ⟺ n² ≤ ⌊x⌋ and n ≥ √x ⟺ n² ≥ ⌈x⌉). Callers keep x < 2¹²⁶.
std::uint64_t floor_sqrt(double x) {
  return static_cast<std::uint64_t>(boost::multiprecision::sqrt(uint128_t(std::floor(x))));
}
std::uint64_t ceil_sqrt(double x) {
  const uint128_t c(std::ceil(x));
  uint128_t r = boost::multiprecision::sqrt(c);  // ⌊√c⌋
  if (r * r < c) ++r;
  return static_cast<std::uint64_t>(r);
}

}  // namespace

BarkerGrid calibrate_barker_grid(double noise_variance, std::size_t batch, double float_error) {
  if (!(noise_variance > 1.0 && noise_variance < 4.0) || batch == 0 ||
      !(float_error >= 0.0 && std::isfinite(float_error))) {
    throw ConfigError(fmt::format(
        "DP Barker grid noise: expected 1 < sigma^2 < 4, batch >= 1 and a finite error >= 0, got "
        "{}, {}, {}",
        noise_variance, batch, float_error));
  }
  const int k = kGridExponent;
  BarkerGrid g;
  g.grid = std::ldexp(1.0, k);
  const double h = g.grid;
  const double sigma = std::sqrt(noise_variance);
  const double b = static_cast<double>(batch);
  const double root_b = std::sqrt(b);

  // The mean: shrink the clip so that rounding and summation errors fit in the 2/√b (ρ rounded
  // up twice: the products may only err on the side of a smaller clip).
  const double rho = std::nextafter(
      std::nextafter((2.0 * float_error + h) * root_b / 2.0, INFINITY) + 0x1.0p-40, INFINITY);
  if (!(rho <= 0x1.0p-10)) {
    throw ConfigError(fmt::format(
        "DP Barker: batch size {} is too large for the float-safe noise (the summation error "
        "would need the clip shrunk by {:.3g}, more than 2^-10); use a smaller --batch",
        batch, rho));
  }
  // Rounded down: fl(1 − ρ) may exceed 1 − ρ by half an ulp (2⁻⁵⁴), far inside ρ's 2⁻⁴⁰ margin,
  // but the clip may only err on the small side.
  g.clip_factor = std::nextafter(1.0 - rho, 0.0);

  // The variance: rounding s and the error of σ_b² must keep |Δv′| ≤ 5/b (4(b − 1)/b² exact).
  const double spare = 1.0 / b + 4.0 / (b * b);
  const double used = 2.0 * float_error + 4.0 * sigma * h + 2.0 * h * h;
  if (!(used * (1.0 + 0x1.0p-20) <= spare)) {
    throw ConfigError(fmt::format(
        "DP Barker: batch size {} is too large for the float-safe noise (the variance's rounding "
        "error {:.3g} exceeds the theorem's margin {:.3g}); use a smaller --batch",
        batch, used, spare));
  }

  // Exact bounds, valid for σ² as given and for the σ̃² = fl(√σ²)² the accountant rebuilds
  // from the event's σ (barker_accounting.cpp): v′ ∈ [max(σ², σ̃²) − 1, min(σ², σ̃²)]. Both are
  // in (1, 4) and multiples of 2⁻⁵¹, so subtracting 1 is exact; scaled by a power of two they
  // are integers < 2⁸⁴.
  const double rebuilt = sigma * sigma;
  g.s_lo = ceil_sqrt(std::ldexp(std::max(noise_variance, rebuilt) - 1.0, -2 * k));
  g.s_hi = floor_sqrt(std::ldexp(std::min(noise_variance, rebuilt), -2 * k));
  if (!(g.s_lo <= g.s_hi)) {
    throw SoftwareError("DP Barker grid noise: empty scale range");  // σ² > 1: unreachable
  }
  return g;
}

std::uint64_t barker_noise_scale(const BarkerGrid& grid, double variance) {
  if (!(variance > 0.0)) return grid.s_lo;  // NaN or non-positive (the clamp maps it into range)
  const double s = std::nearbyint(std::sqrt(variance) / grid.grid);
  if (!(s >= static_cast<double>(grid.s_lo))) return grid.s_lo;
  if (!(s <= static_cast<double>(grid.s_hi))) return grid.s_hi;
  return static_cast<std::uint64_t>(s);
}

double barker_min_noise_scale(double noise_sd) {
  const double v = noise_sd * noise_sd;
  if (!(v > 1.0 && v < 4.0)) {
    throw ConfigError(fmt::format("DP Barker: noise sd {} must lie in (1, 2)", noise_sd));
  }
  return std::max(1.0,
                  std::floor(std::ldexp(std::sqrt(v - 1.0), -kGridExponent) * (1.0 - 0x1.0p-30)));
}

}  // namespace dpmcmc
