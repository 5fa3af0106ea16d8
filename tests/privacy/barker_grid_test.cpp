// DP Barker's float-safe noise (privacy/barker_grid.hpp): the exact scale bounds against integer
// square roots in Boost.Multiprecision and an independent value, the shrunk clip's mean
// sensitivity and the rounded variance's range and neighbour distance in exact arithmetic, the
// refusal of batches too large for the argument, and the planner's lower bound on s.
#include "privacy/barker_grid.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/multiprecision/cpp_bin_float.hpp>
#include <boost/multiprecision/cpp_int.hpp>
#include <cmath>
#include <limits>
#include <random>

#include "../error_message.hpp"
#include "core/error.hpp"
#include "privacy/grid_noise.hpp"

namespace dpmcmc {
namespace {

using Exact = boost::multiprecision::cpp_bin_float_100;
using boost::multiprecision::cpp_int;

constexpr double kH = 0x1.0p-41;

// e of the release for n rows, T = n0/n, batch b (what PrivateData passes).
double error_bound(std::size_t n, double n0, std::size_t b) {
  const double t = n0 / static_cast<double>(n);
  return minibatch_ratio_float_error(static_cast<double>(n), t, b,
                                     std::sqrt(static_cast<double>(b)) / n0);
}

TEST(BarkerGrid, ScaleBoundsAreTheExactIntegerSquareRoots) {
  // Independent values (Python: math.isqrt(2**83) and the ceiling of √((σ̃² − 1)·2⁸²) with
  // σ̃² = fl(√2)² = 2 + 2⁻⁵¹, which the accountant rebuilds from the event's σ): at σ² = 2,
  // s_hi = ⌊√2·2⁴¹⌋ and s_lo = ⌈√(1 + 2⁻⁵¹)·2⁴¹⌉ = 2⁴¹ + 1.
  const BarkerGrid two = calibrate_barker_grid(2.0, 400, error_bound(20000, 1000.0, 400));
  EXPECT_EQ(two.grid, kH);
  EXPECT_EQ(two.s_lo, (std::uint64_t{1} << 41) + 1);
  EXPECT_EQ(two.s_hi, std::uint64_t{3109888511975});
  for (double v : {1.0 + 1e-3, 1.5, 1.7320508, 2.0, 2.5, 3.0, 3.2}) {
    SCOPED_TRACE(v);
    const BarkerGrid g = calibrate_barker_grid(v, 100000, 0.0);
    // v′ = (s·h)² must lie in [σ² − 1, σ²] both for σ² and for σ̃² = fl(√σ²)²: s_lo² ≥
    // (max − 1)/h² > (s_lo − 1)² and s_hi² ≤ min/h² < (s_hi + 1)², in exact arithmetic.
    const double rebuilt = std::sqrt(v) * std::sqrt(v);
    const Exact lo = (Exact(std::max(v, rebuilt)) - 1) / (Exact(kH) * kH);
    const Exact hi = Exact(std::min(v, rebuilt)) / (Exact(kH) * kH);
    const Exact slo(g.s_lo), shi(g.s_hi);
    EXPECT_GE(slo * slo, lo);
    EXPECT_LT((slo - 1) * (slo - 1), lo);
    EXPECT_LE(shi * shi, hi);
    EXPECT_GT((shi + 1) * (shi + 1), hi);
    EXPECT_LT(g.s_hi, std::uint64_t{1} << 42);  // the exact sampler's range
  }
}

TEST(BarkerGrid, ShrunkClipKeepsTheRoundedMeanWithinTheTheoremsSensitivity) {
  for (std::size_t b : {16u, 400u, 10000u, 200000u}) {
    SCOPED_TRACE(b);
    const double e = error_bound(1000000, 5000.0, b);
    const BarkerGrid g = calibrate_barker_grid(2.0, b, e);
    // Neighbours' grid-rounded means differ by ≤ 2(1 − ρ)/√b + 2e + h: at most 2/√b.
    const Exact root_b = boost::multiprecision::sqrt(Exact(b));
    EXPECT_LE(2 * Exact(g.clip_factor) / root_b + 2 * Exact(e) + Exact(kH), 2 / root_b);
    EXPECT_GT(g.clip_factor, 1.0 - 0x1.0p-10);
    EXPECT_LT(g.clip_factor, 1.0);
  }
}

TEST(BarkerGrid, RoundedVarianceStaysInRangeAndNearTheComputedOne) {
  const double v2 = 2.0, sigma = std::sqrt(2.0);
  const BarkerGrid g = calibrate_barker_grid(v2, 400, error_bound(20000, 1000.0, 400));
  const auto v_of = [&](double v) {
    const Exact s(barker_noise_scale(g, v));
    return s * s * Exact(kH) * kH;
  };
  // The clamp: every computed variance, even a broken one, gives v′ ∈ [σ² − 1, σ²].
  for (double v : {-1.0, 0.0, 0.5, 1.0, 1.5, 2.0, 2.5, std::numeric_limits<double>::quiet_NaN(),
                   std::numeric_limits<double>::infinity()}) {
    EXPECT_GE(v_of(v), Exact(v2) - 1) << v;
    EXPECT_LE(v_of(v), Exact(v2)) << v;
  }
  // |v′ − v| ≤ 2σh + h² for v ∈ [σ² − 1, σ²]: neighbours' v′ differ by ≤ |Δv| + 4σh + 2h².
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(1.0, 2.0);
  const Exact slack = 2 * Exact(sigma) * kH + Exact(kH) * kH;
  for (int i = 0; i < 10000; ++i) {
    const double v = u(rng);
    EXPECT_LE(boost::multiprecision::abs(v_of(v) - Exact(v)), slack) << v;
  }
}

TEST(BarkerGrid, RefusesBatchesBeyondTheFloatingPointArgument) {
  const std::string big = test::message_of<ConfigError>(
      [] { calibrate_barker_grid(2.0, 5000000, error_bound(100000000, 1e6, 5000000)); });
  EXPECT_NE(big.find("--batch"), std::string::npos) << big;
  EXPECT_NE(big.find("5000000"), std::string::npos) << big;
  EXPECT_THROW(calibrate_barker_grid(1.0, 400, 0.0), ConfigError);
  EXPECT_THROW(calibrate_barker_grid(4.0, 400, 0.0), ConfigError);
  EXPECT_THROW(calibrate_barker_grid(2.0, 0, 0.0), ConfigError);
  EXPECT_THROW(calibrate_barker_grid(2.0, 400, std::nan("")), ConfigError);
}

TEST(BarkerGrid, PlannersMinimumScaleIsALowerBoundWithinTwoToTheMinus29) {
  for (double v : {1.0 + 1e-3, 1.5, 2.0, 3.2}) {
    const BarkerGrid g = calibrate_barker_grid(v, 100000, 0.0);
    const double s = barker_min_noise_scale(std::sqrt(v));
    EXPECT_LE(s, static_cast<double>(g.s_lo)) << v;
    EXPECT_GE(s, static_cast<double>(g.s_lo) * (1.0 - 0x1.0p-29)) << v;
  }
  EXPECT_THROW(barker_min_noise_scale(1.0), ConfigError);
}

}  // namespace
}  // namespace dpmcmc
