// Float-safe grid noise (privacy/grid_noise.hpp): the calibration against values computed
// independently in exact binary arithmetic (Boost.Multiprecision), the release against a replay
// of the same noise stream, the summation error bound against exact sums, and the sensitivity
// argument on neighbouring datasets whose floating-point sums err as much as they can.
#include "privacy/grid_noise.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/multiprecision/cpp_bin_float.hpp>
#include <cmath>
#include <vector>

#include "core/error.hpp"
#include "test_noise.hpp"

namespace dpmcmc {
namespace {

using Exact = boost::multiprecision::cpp_bin_float_100;

// The calibration's two claims, in exact arithmetic: Δ_eff covers Δ·(1 + 2⁻³⁰) + √d·(h + 2e),
// and σ = s·h covers m·Δ_eff, with s at most two grid steps above the exact requirement (one
// from the ceiling, one from rounding up).
void expect_calibration(double m, double delta, std::size_t d, double e) {
  SCOPED_TRACE(testing::Message() << "m " << m << " delta " << delta << " d " << d << " e " << e);
  const GridNoise g = calibrate_grid_noise(m, delta, d, e);
  const Exact h = g.grid;
  EXPECT_EQ(std::ilogb(g.grid), std::ilogb(m * delta) - kGridNoiseScaleBits);
  EXPECT_EQ(std::ldexp(1.0, std::ilogb(g.grid)), g.grid);  // a power of two
  const Exact need = Exact(delta) * (1 + boost::multiprecision::pow(Exact(2), -30)) +
                     boost::multiprecision::sqrt(Exact(d)) * (h + 2 * Exact(e));
  EXPECT_GE(Exact(g.sensitivity), need);
  EXPECT_LE(Exact(g.sensitivity), need * (1 + Exact(1e-14)));
  EXPECT_GE(Exact(g.scale) * h, Exact(m) * Exact(g.sensitivity));
  EXPECT_LE(Exact(g.scale), Exact(m) * need / h + 2);
  EXPECT_GE(g.scale, std::uint64_t{1} << kGridNoiseScaleBits);
  EXPECT_LE(g.scale, std::uint64_t{1} << (kGridNoiseScaleBits + 2));
  EXPECT_EQ(Exact(g.noise_sd()), Exact(g.scale) * h);  // σ is exact
}

TEST(GridNoise, CalibrationCoversTheRoundedQuerysSensitivity) {
  expect_calibration(2.0, 1.0, 1, 0.0);
  expect_calibration(0.7, 0.003, 2, 1e-12);
  expect_calibration(316.2, 2.5e-4, 50, 3e-13);
  expect_calibration(1e-6, 1e9, 10, 1e-3);
  // 2 = 2^1: h = 2^-39 and s = 2^40 + 2^10 + 2, plus at most one step for the rounding up.
  const GridNoise g = calibrate_grid_noise(2.0, 1.0, 1, 0.0);
  EXPECT_EQ(g.grid, 0x1.0p-39);
  EXPECT_GE(g.scale, (std::uint64_t{1} << 40) + 1026);
  EXPECT_LE(g.scale, (std::uint64_t{1} << 40) + 1027);
}

TEST(GridNoise, BadCalibrationInputsAreRefused) {
  EXPECT_THROW(calibrate_grid_noise(0.0, 1.0, 1, 0.0), ConfigError);
  EXPECT_THROW(calibrate_grid_noise(1.0, -1.0, 1, 0.0), ConfigError);
  EXPECT_THROW(calibrate_grid_noise(1.0, 1.0, 0, 0.0), ConfigError);
  EXPECT_THROW(calibrate_grid_noise(1.0, 1.0, 1, NAN), ConfigError);
  EXPECT_THROW(calibrate_grid_noise(1e-200, 1e-200, 1, 0.0), ConfigError);
  // A multiplier so large that m·√d grid steps pass the sampler's 2^42.
  EXPECT_THROW(calibrate_grid_noise(0x1.0p42, 1.0, 1, 0.0), ConfigError);
  // A summation error far above the noise: the grid scale would pass 2^42.
  EXPECT_THROW(calibrate_grid_noise(1.0, 1.0, 1, 1e6), ConfigError);
}

// The released values lie on the grid and equal h·(round(x/h) + Z) with Z replayed from an
// identically keyed stream, also for sums far beyond 2⁶³ grid steps (no integer type limits them).
TEST(GridNoise, ReleaseIsTheRoundedSumPlusTheReplayedDiscreteGaussian) {
  const GridNoise g = calibrate_grid_noise(1.5, 0.2, 1, 0.0);
  const DiscreteGaussian sampler(DiscreteGaussianScale::integer(g.scale));
  NoiseRng rng = test_noise_rng(3, 0), replay = test_noise_rng(3, 0);
  struct Words {
    using result_type = std::uint64_t;
    NoiseRng* r;
    static constexpr result_type min() { return 0; }
    static constexpr result_type max() { return ~result_type{0}; }
    result_type operator()() { return r->bits(); }
  } words{&replay};
  for (const double x : {0.0, 0.123456789, -7.25, 1e3 + 1e-9}) {
    const double v = grid_release(x, g.grid, sampler, rng);
    const double want = (std::nearbyint(x / g.grid) + static_cast<double>(sampler(words))) * g.grid;
    EXPECT_EQ(v, want) << x;
    EXPECT_EQ(std::fmod(v, g.grid), 0.0) << x;
  }
  const double far = grid_release(0x1.0p70 * g.grid, g.grid, sampler, rng);
  EXPECT_NEAR(far / g.grid, 0x1.0p70, 50.0 * static_cast<double>(g.scale));
  EXPECT_GT(grid_release(NAN, g.grid, sampler, rng), 0x1.0p999 * g.grid);
}

// Mean and variance of 20000 releases: x and σ² = (s·h)² within 4 standard errors (the variance's
// standard error is σ²·√(2/N) for Gaussian noise).
TEST(GridNoise, ReleasesHaveTheCalibratedMeanAndVariance) {
  const GridNoise g = calibrate_grid_noise(1.0, 1.0, 1, 0.0);
  const DiscreteGaussian sampler(DiscreteGaussianScale::integer(g.scale));
  NoiseRng rng = test_noise_rng(9, 0);
  constexpr int kN = 20000;
  const double x = 0.3, sd = g.noise_sd();
  double sum = 0.0, sum_sq = 0.0;
  for (int i = 0; i < kN; ++i) {
    const double v = grid_release(x, g.grid, sampler, rng) - x;
    sum += v;
    sum_sq += v * v;
  }
  EXPECT_NEAR(sum / kN, 0.0, 4.0 * sd / std::sqrt(kN));
  EXPECT_NEAR(sum_sq / kN, sd * sd, 4.0 * sd * sd * std::sqrt(2.0 / kN));
}

// |fl(T·Σv) − T·Σv| ≤ sum_float_error for sums built to lose digits: a large first term then many
// small ones of mixed sign, summed left to right (the order a naive loop uses), against the sum
// in 100-digit binary arithmetic.
TEST(GridNoise, SumFloatErrorBoundsTheComputedSum) {
  NoiseRng rng = test_noise_rng(4, 0);
  for (const std::size_t n : {10u, 1000u, 100000u}) {
    const double bound = 0.75, t = 0.37;
    std::vector<double> v(n);
    v[0] = bound;
    for (std::size_t i = 1; i < n; ++i) v[i] = bound * (2.0 * rng.uniform() - 1.0) * 0.999;
    double computed = 0.0;
    Exact exact = 0;
    for (const double x : v) {
      computed += x;
      exact += x;
    }
    computed *= t;
    exact *= t;
    const double err = static_cast<double>(boost::multiprecision::abs(Exact(computed) - exact));
    EXPECT_LE(err, sum_float_error(n, t, bound)) << n;
    EXPECT_GT(err, 0.0) << n;  // the test sums do round
  }
  EXPECT_THROW(sum_float_error(10, -1.0, 1.0), ConfigError);
}

// blocked_sum_float_error against an independent evaluation of γ_{k+2}·n·T·bound with
// k = (min(n, B) − 1) + ⌈n/B⌉, and against exact sums computed the way PrivateData sums (each
// block on its own, the block sums one after another). With B = 4 and n = 10⁵ equal terms 0.7
// the accumulator's roundings dominate: the measured error (about 3.3e-8) is far above the bound
// that forgets the ⌈n/B⌉ additions into the accumulator (γ_{B+1}·n·bound ≈ 3.9e-11), so the test
// fails if the formula drops them.
TEST(GridNoise, BlockedSumFloatErrorBoundsABlockedSum) {
  const double u = 0x1.0p-53;
  const auto gamma = [u](double k) { return k * u / (1.0 - k * u); };
  const double slack = 1.0 + 0x1.0p-40;
  EXPECT_DOUBLE_EQ(blocked_sum_float_error(100000000, 4096, 0.5, 2.0),
                   gamma(4095.0 + 24415.0 + 2.0) * 1e8 * 0.5 * 2.0 * slack);
  EXPECT_DOUBLE_EQ(blocked_sum_float_error(1000, 4096, 1.0, 1.0),
                   gamma(999.0 + 1.0 + 2.0) * 1000.0 * slack);
  EXPECT_DOUBLE_EQ(blocked_sum_float_error(8192, 4096, 1.0, 1.0),
                   gamma(4095.0 + 2.0 + 2.0) * 8192.0 * slack);
  EXPECT_DOUBLE_EQ(sum_float_error(8192, 1.0, 1.0), gamma(8193.0) * 8192.0 * slack);
  EXPECT_THROW(blocked_sum_float_error(10, 0, 1.0, 1.0), ConfigError);
  // The releases' choice: the general bound up to 2²² rows (committed results keep their bits),
  // the blocked one above.
  const std::size_t at = std::size_t{1} << 22;
  EXPECT_EQ(release_sum_float_error(at, 4096, 0.5, 2.0), sum_float_error(at, 0.5, 2.0));
  EXPECT_EQ(release_sum_float_error(at + 1, 4096, 0.5, 2.0),
            blocked_sum_float_error(at + 1, 4096, 0.5, 2.0));
  EXPECT_LT(release_sum_float_error(at + 1, 4096, 0.5, 2.0),
            release_sum_float_error(at, 4096, 0.5, 2.0) / 500.0);

  NoiseRng rng = test_noise_rng(5, 0);
  for (const bool equal : {true, false}) {
    const std::size_t n = 100000, block = 4;
    const double bound = 0.7, t = 1.0;
    std::vector<double> v(n, bound);
    if (!equal) {
      for (auto& x : v) x = bound * rng.uniform();
    }
    double computed = 0.0;
    Exact exact = 0;
    for (std::size_t begin = 0; begin < n; begin += block) {
      double s = 0.0;
      for (std::size_t i = begin; i < std::min(n, begin + block); ++i) s += v[i];
      computed += s;
    }
    for (const double x : v) exact += x;
    const double err = static_cast<double>(boost::multiprecision::abs(Exact(computed) - exact));
    EXPECT_LE(err, blocked_sum_float_error(n, block, t, bound)) << equal;
    if (equal) {
      EXPECT_GT(err, 100.0 * gamma(block + 1.0) * n * bound);
    }
  }
}

// The sensitivity argument on neighbours: D and D′ differ in one row (−b → +b); their sums,
// computed in floating point in two different orders, are rounded to the grid. The rounded
// values may differ by more than Δ = 2b, never by more than Δ_eff.
TEST(GridNoise, RoundedNeighbourSumsDifferByAtMostTheEffectiveSensitivity) {
  NoiseRng rng = test_noise_rng(6, 0);
  const std::size_t n = 50000;
  const double b = 1.0;
  std::vector<double> v(n);
  for (auto& x : v) x = b * (2.0 * rng.uniform() - 1.0);
  v[0] = -b;
  std::vector<double> w = v;
  w[0] = b;
  const double e = sum_float_error(n, 1.0, b);
  const GridNoise g = calibrate_grid_noise(1e-4, 2.0 * b, 1, e);  // a fine grid: h ≈ 2^-54
  double max_gap = 0.0;
  for (int trial = 0; trial < 20; ++trial) {
    // Forward for D, backward for D′: the rounding errors do not cancel.
    double s = 0.0, sp = 0.0;
    for (std::size_t i = 0; i < n; ++i) s += v[i];
    for (std::size_t i = n; i-- > 0;) sp += w[i];
    const double gap = std::abs(std::nearbyint(sp / g.grid) - std::nearbyint(s / g.grid)) * g.grid;
    max_gap = std::max(max_gap, gap);
    EXPECT_LE(gap, g.sensitivity);
    std::swap(v[1 + static_cast<std::size_t>(trial)], v[n - 1 - static_cast<std::size_t>(trial)]);
  }
  EXPECT_GT(max_gap, 2.0 * b) << "the rounding should cost something here";
}

}  // namespace
}  // namespace dpmcmc
