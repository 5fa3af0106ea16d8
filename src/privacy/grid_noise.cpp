#include "privacy/grid_noise.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"

namespace dpmcmc {
namespace {

constexpr double kUnitRoundoff = 0x1.0p-53;
constexpr double kRowSlack = 0x1.0p-30;
constexpr double kClamp = 0x1.0p1000;

// The noise stream as a 64-bit word engine for the discrete Gaussian sampler.
struct NoiseWords {
  using result_type = std::uint64_t;
  NoiseRng* rng;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }
  result_type operator()() { return rng->bits(); }
};

// γ_{depth + 2}·n·T·bound: `depth` additions per term, one product by T, and one more rounding:
// the slack of sum_float_error, which the gradient sums use for the product g_i·min(1, b/‖g_i‖)
// that each row's contribution carries before it is summed.
double summation_error(std::size_t depth, std::size_t n, double temperature, double bound) {
  const double k = static_cast<double>(depth) + 2.0;
  if (!(k * kUnitRoundoff < 0.5) || !(temperature >= 0.0 && std::isfinite(temperature)) ||
      !(bound >= 0.0 && std::isfinite(bound))) {
    throw ConfigError(fmt::format(
        "sum_float_error: expected (depth + 2)·2^-53 < 1/2 and finite T, bound >= 0, got depth "
        "= {} (n = {}), T = {}, bound = {}",
        depth, n, temperature, bound));
  }
  const double gamma = k * kUnitRoundoff / (1.0 - k * kUnitRoundoff);
  // Each product adds at most one relative rounding; 1 + 2⁻⁴⁰ covers the four of them.
  return gamma * static_cast<double>(n) * temperature * bound * (1.0 + 0x1.0p-40);
}

}  // namespace

GridNoise calibrate_grid_noise(double multiplier, double sensitivity, std::size_t coordinates,
                               double float_error) {
  const auto finite_positive = [](double v) { return v > 0.0 && std::isfinite(v); };
  if (!finite_positive(multiplier) || !finite_positive(sensitivity) || coordinates < 1 ||
      !(float_error >= 0.0 && std::isfinite(float_error))) {
    throw ConfigError(fmt::format(
        "grid noise: expected a finite multiplier > 0, sensitivity > 0, error >= 0 and at least "
        "one coordinate, got {}, {}, {}, {}",
        multiplier, sensitivity, float_error, coordinates));
  }
  const double sigma0 = multiplier * sensitivity;
  if (!(sigma0 >= 0x1.0p-960 && sigma0 <= 0x1.0p1000)) {
    throw ConfigError(fmt::format("grid noise: noise sd {} outside [2^-960, 2^1000]", sigma0));
  }
  GridNoise g;
  g.grid = std::ldexp(1.0, std::ilogb(sigma0) - kGridNoiseScaleBits);
  // Rounded up in each step: Δ_eff and s may only err on the side of more noise.
  const double root_d = std::nextafter(std::sqrt(static_cast<double>(coordinates)), INFINITY);
  const double extra = std::nextafter(root_d * (g.grid + 2.0 * float_error), INFINITY);
  g.sensitivity =
      std::nextafter(std::nextafter(sensitivity * (1.0 + kRowSlack), INFINITY) + extra, INFINITY);
  const double units = std::nextafter(multiplier * g.sensitivity, INFINITY) / g.grid;  // exact /
  const double s = std::ceil(units);
  if (!(s <= 0x1.0p42)) {
    throw ConfigError(fmt::format(
        "grid noise: the noise scale {} grid steps exceeds 2^42 (multiplier {}, sensitivity {}, "
        "floating-point error {}): the summation error dominates the noise",
        s, multiplier, sensitivity, float_error));
  }
  g.scale = static_cast<std::uint64_t>(s);
  return g;
}

double sum_float_error(std::size_t n, double temperature, double bound) {
  // Any tree of n − 1 additions: depth at most n − 1 (γ_{n+1} with the product and the slack).
  return summation_error(n > 0 ? n - 1 : 0, n, temperature, bound);
}

double blocked_sum_float_error(std::size_t n, std::size_t block, double temperature, double bound) {
  if (block == 0) throw ConfigError("blocked_sum_float_error: the block size must be >= 1");
  const std::size_t within = std::min(n, block);
  const std::size_t blocks = n / block + (n % block != 0 ? 1 : 0);
  return summation_error((within > 0 ? within - 1 : 0) + blocks, n, temperature, bound);
}

double release_sum_float_error(std::size_t n, std::size_t block, double temperature, double bound) {
  return n <= kBlockedBoundRows ? sum_float_error(n, temperature, bound)
                                : blocked_sum_float_error(n, block, temperature, bound);
}

double minibatch_ratio_float_error(double n, double temperature, std::size_t batch, double bound) {
  const double b = static_cast<double>(batch);
  const double a = n * temperature / b;
  return sum_float_error(batch + 7, 1.0, 1.0) / (b + 7.0) *
         (6.0 * a * b * bound + 16.0 * a * a * b * bound * bound);
}

double grid_release(double value, double grid, const DiscreteGaussian& sampler, NoiseRng& rng) {
  // q = round(x/h) is an integer held exactly (x/h is exact: h is a power of two; a double of
  // magnitude ≥ 2⁵³ is an integer). Clamping it to ±2¹⁰⁰⁰ is 1-Lipschitz and maps ±∞ and NaN
  // into range; no finite clipped sum reaches it.
  const double q = std::fmax(-kClamp, std::fmin(kClamp, std::nearbyint(value / grid)));
  NoiseWords words{&rng};
  const std::int64_t z = sampler(words);
  // The release is the integer q + z: q + z rounded to a double and scaled by h is a function of
  // it (post-processing), as both are exact doubles — z is, unless |z| ≥ 2⁵³, which has
  // probability below e^(−2⁶¹) at s ≤ 2⁴² (a term absorbed far below the δ of the bridge).
  return (q + static_cast<double>(z)) * grid;
}

}  // namespace dpmcmc
