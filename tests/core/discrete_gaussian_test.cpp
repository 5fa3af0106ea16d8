#include "core/discrete_gaussian.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <boost/math/distributions/chi_squared.hpp>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "test_noise.hpp"

namespace dpmcmc {
namespace {

constexpr std::uint64_t kMax64 = std::numeric_limits<std::uint64_t>::max();

// The noise stream of `seed` under the public test key (tests/support/test_noise.hpp): a
// reproducible ChaCha20 keystream, not a secret one.
ChaChaEngine noise_engine(std::uint64_t seed) {
  return ChaChaEngine(test_noise_key().stream_key(seed, 0, 0));
}

// ---- χ² goodness of fit against the exact pmf -------------------------------------------------

struct ChiSquared {
  double statistic;
  int bins;
  double threshold;  // the 0.999 quantile of χ²(bins − 1)
};

// Draws n values and compares their histogram with the pmf ∝ exp(−k²/(2σ²)), computed here
// independently of the sampler in long double (normalising constant summed over |k| ≤ 60, whose
// neglected tail is below e^{−60²/(2σ²)} < 1e-190 for σ² ≤ 4). Tails are pooled: the bins are
// (−∞, −L], each k with |k| < L, and [L, ∞), L the largest integer whose tail has expected count
// ≥ 5, so every expected count is ≥ 5 (the usual condition for the χ² approximation).
// No parameter is estimated from the data, so the statistic is asymptotically χ² with
// (bins − 1) degrees of freedom under the null. The threshold is its 0.999 quantile: a correct
// sampler fails with probability 0.001 over seeds (the seed is fixed, so the test is
// deterministic), while a sampler off by a relative 1% in the central bin (expected 2.66·10⁵ at
// σ = 1.5, n = 10⁶) adds about 2660²/(2.66·10⁵) ≈ 27 to the statistic.
ChiSquared chi_squared_fit(const DiscreteGaussian& sampler, long double sigma2, int n,
                           std::uint64_t seed) {
  constexpr int kRange = 60;
  std::vector<long double> weight(2 * kRange + 1);
  long double z = 0;
  for (int k = -kRange; k <= kRange; ++k) {
    weight[k + kRange] = std::exp(-static_cast<long double>(k) * k / (2 * sigma2));
    z += weight[k + kRange];
  }
  const auto pmf = [&](int k) { return weight[k + kRange] / z; };
  int L = 1;
  for (;;) {  // the largest L with n·P(Y ≥ L) ≥ 5
    long double tail = 0;
    for (int k = L + 1; k <= kRange; ++k) tail += pmf(k);
    if (n * tail < 5) break;
    ++L;
  }
  // bins: 0 = (−∞, −L], 1 + (k + L − 1) for |k| < L, 2L = [L, ∞)
  std::vector<long double> expected(2 * L + 1, 0);
  for (int k = -kRange; k <= kRange; ++k) {
    expected[std::clamp(k, -L, L) + L] += n * pmf(k);
  }
  std::vector<long double> observed(2 * L + 1, 0);
  auto engine = noise_engine(seed);
  for (int i = 0; i < n; ++i) {
    const std::int64_t y = sampler(engine);
    observed[std::clamp<std::int64_t>(y, -L, L) + L] += 1;
  }
  long double stat = 0;
  for (int b = 0; b <= 2 * L; ++b) {
    EXPECT_GE(expected[b], 5) << "bin " << b;
    stat += (observed[b] - expected[b]) * (observed[b] - expected[b]) / expected[b];
  }
  const boost::math::chi_squared dist(2 * L);
  return {static_cast<double>(stat), 2 * L + 1, boost::math::quantile(dist, 0.999)};
}

// (a) σ = 1.5 (σ² = 9/4), 10⁶ draws: 15 bins, the tails pooled at |k| ≥ 7; threshold χ²₁₄(0.999)
// ≈ 36.1.
TEST(DiscreteGaussian, ChiSquaredAtSigmaOnePointFive) {
  const DiscreteGaussian sampler(DiscreteGaussianScale::rational(9, 4));
  EXPECT_EQ(sampler.laplace_scale(), 2u);  // ⌊1.5⌋ + 1
  const ChiSquared fit = chi_squared_fit(sampler, 2.25L, 1000000, 11);
  EXPECT_EQ(fit.bins, 15);
  EXPECT_LT(fit.statistic, fit.threshold)
      << "chi^2 = " << fit.statistic << " on " << fit.bins - 1 << " df";
  std::printf("chi^2(sigma = 1.5, n = 1e6) = %.2f on %d df, threshold %.2f\n", fit.statistic,
              fit.bins - 1, fit.threshold);
}

// The same test where σ² has a 64-bit numerator and denominator: σ² = (2⁶⁴ − 1)/(2⁶⁴ − 3),
// within 1.1e-19 of 1, so the pmf is that of σ = 1 to long double precision. Here den·t ≈ 2⁶⁵ and
// 2·num·den·t² ≈ 2¹³¹: every acceptance goes through the 256-bit path.
TEST(DiscreteGaussian, ChiSquaredWithWideRationalScale) {
  const DiscreteGaussian sampler(DiscreteGaussianScale::rational(kMax64, kMax64 - 2));
  EXPECT_EQ(sampler.laplace_scale(), 2u);
  const ChiSquared fit = chi_squared_fit(sampler, 1.0L, 200000, 12);
  EXPECT_LT(fit.statistic, fit.threshold)
      << "chi^2 = " << fit.statistic << " on " << fit.bins - 1 << " df";
}

// ---- Moments for large scales -----------------------------------------------------------------

struct Moments {
  long double mean;      // in units of σ
  long double variance;  // in units of σ²
  long double max_abs;   // in units of σ
};

Moments moments(const DiscreteGaussian& sampler, long double sigma, int n, std::uint64_t seed,
                std::vector<std::int64_t>* draws = nullptr) {
  auto engine = noise_engine(seed);
  long double s1 = 0, s2 = 0, max_abs = 0;
  for (int i = 0; i < n; ++i) {
    const std::int64_t y = sampler(engine);
    if (draws) draws->push_back(y);
    const long double x = static_cast<long double>(y) / sigma;
    s1 += x;
    s2 += x * x;
    max_abs = std::max(max_abs, std::fabs(x));
  }
  const long double mean = s1 / n;
  return {mean, s2 / n - mean * mean, max_abs};
}

// (b) σ = 1000 and σ = 2⁴⁰, 5·10⁵ draws each. The variance of N_Z(0, σ²) differs from σ² by a
// relative O(σ²e^{−2π²σ²}) (Poisson summation), and its kurtosis from 3 likewise: nothing at
// these σ. So the sample mean over σ has sd 1/√n = 1.41e-3
// and the sample variance over σ² has sd √(2/n) = 2.0e-3; the bands below are 5 sds (false
// failure < 1e-6 each). A wrong t, a wrong acceptance exponent or a truncation of the 256-bit
// arithmetic (σ = 2⁴⁰: the exponent's numerator reaches 2¹⁷⁰) moves the variance by far more.
TEST(DiscreteGaussian, MomentsAtLargeIntegerScales) {
  const int n = 500000;
  for (const std::uint64_t s : {std::uint64_t{1000}, std::uint64_t{1} << 40}) {
    const DiscreteGaussian sampler(DiscreteGaussianScale::integer(s));
    EXPECT_EQ(sampler.laplace_scale(), s + 1);
    const Moments m = moments(sampler, static_cast<long double>(s), n, 21);
    EXPECT_NEAR(static_cast<double>(m.mean), 0.0, 5 / std::sqrt(n)) << "s = " << s;
    EXPECT_NEAR(static_cast<double>(m.variance), 1.0, 5 * std::sqrt(2.0 / n)) << "s = " << s;
  }
}

// For σ = 2⁴⁰ the draws modulo 8 must be uniform: N_Z(0, σ²) mod m differs from uniform by about
// e^{−2π²σ²/m²} (Poisson summation), nothing at this σ. This looks at exactly the low-order bits
// Mironov's attack reads; a bias in the discrete Laplace's U or in the acceptance of odd against
// even |Y| would show. χ² with 7 df, threshold its 0.999 quantile (24.3).
TEST(DiscreteGaussian, LowOrderBitsUniformAtLargeScale) {
  const DiscreteGaussian sampler(DiscreteGaussianScale::integer(std::uint64_t{1} << 40));
  const int n = 200000;
  std::vector<std::int64_t> draws;
  moments(sampler, 0x1p40L, n, 22, &draws);
  std::array<double, 8> count{};
  for (const std::int64_t y : draws) count[static_cast<std::size_t>(y & 7)] += 1;
  double stat = 0;
  for (const double c : count) stat += (c - n / 8.0) * (c - n / 8.0) / (n / 8.0);
  EXPECT_LT(stat, boost::math::quantile(boost::math::chi_squared(7), 0.999));
}

// (e) The largest scale, σ = 2⁴² (σ² = 2⁸⁴, t = 2⁴² + 1, the acceptance exponent's numerator up to
// ~2¹⁷⁴ and denominator ~2¹⁶⁹). An overflow or truncation anywhere would give draws of the
// wrong size: none may exceed 12σ in magnitude (P(|Y| > 12σ) < 1e-32 per draw) and the
// variance is checked as in (b). The checked 256-bit type would throw on an overflow instead.
TEST(DiscreteGaussian, LargestScaleHasNoOverflow) {
  const std::uint64_t s = std::uint64_t{1} << 42;
  const DiscreteGaussian sampler(DiscreteGaussianScale::integer(s));
  EXPECT_EQ(sampler.laplace_scale(), s + 1);
  const int n = 200000;
  const Moments m = moments(sampler, static_cast<long double>(s), n, 23);
  EXPECT_LE(static_cast<double>(m.max_abs), 12.0);
  EXPECT_GT(static_cast<double>(m.max_abs), 3.0);  // not degenerate: P(max < 3σ) ≈ 0
  EXPECT_NEAR(static_cast<double>(m.mean), 0.0, 5 / std::sqrt(n));
  EXPECT_NEAR(static_cast<double>(m.variance), 1.0, 5 * std::sqrt(2.0 / n));
  // The largest rational scale, σ² = 2⁶⁴ − 1 (σ just below 2³²): same checks, fewer draws.
  const DiscreteGaussian wide(DiscreteGaussianScale::rational(kMax64, 1));
  EXPECT_EQ(wide.laplace_scale(), std::uint64_t{1} << 32);  // ⌊√(2⁶⁴ − 1)⌋ + 1
  const int n2 = 100000;
  const Moments m2 = moments(wide, std::sqrt(static_cast<long double>(kMax64)), n2, 24);
  EXPECT_LE(static_cast<double>(m2.max_abs), 12.0);
  EXPECT_NEAR(static_cast<double>(m2.mean), 0.0, 5 / std::sqrt(n2));
  EXPECT_NEAR(static_cast<double>(m2.variance), 1.0, 5 * std::sqrt(2.0 / n2));
}

// ---- The building blocks ----------------------------------------------------------------------

// (c) Bernoulli(exp(−γ)): frequency of 1 in 10⁶ draws within 5 binomial sds of e^{−γ}
// (γ = 0 must give 1 every time). γ = 2⁶³/(2⁶⁴ − 1) ≈ ½ makes d·K overflow 64 bits from K = 2,
// so its K-loop runs in 256 bits.
TEST(DiscreteGaussian, BernoulliExpMinusFrequencies) {
  struct Case {
    std::uint64_t num, den;
  };
  const int n = 1000000;
  auto engine = noise_engine(31);
  for (const Case c : {Case{0, 1}, Case{3, 10}, Case{1, 1}, Case{5, 2}, Case{40, 3},
                       Case{std::uint64_t{1} << 63, kMax64}}) {
    const double p = std::exp(-static_cast<double>(c.num) / static_cast<double>(c.den));
    int ones = 0;
    for (int i = 0; i < n; ++i) ones += bernoulli_exp_minus(engine, c.num, c.den) ? 1 : 0;
    const double sd = std::sqrt(p * (1 - p) / n);
    EXPECT_NEAR(static_cast<double>(ones) / n, p, 5 * sd + 1e-12)
        << "gamma = " << c.num << "/" << c.den;
  }
  // γ = 2⁶⁴ − 1: probability e^{−(2⁶⁴−1)}, i.e. never (the ⌊γ⌋ loop stops at its first 0).
  for (int i = 0; i < 1000; ++i) EXPECT_FALSE(bernoulli_exp_minus(engine, kMax64, 1));
}

// The discrete Laplace of scale t = 3: P(y) ∝ e^{−|y|/3}, mean 0, variance 2q/(1 − q)², q =
// e^{−1/3}
// (= 17.50); 10⁶ draws, 5-sd bands (the variance's sd from the fourth moment, estimated).
TEST(DiscreteGaussian, DiscreteLaplaceMoments) {
  const int n = 1000000;
  auto engine = noise_engine(41);
  long double s1 = 0, s2 = 0, s4 = 0;
  for (int i = 0; i < n; ++i) {
    const long double y = static_cast<long double>(sample_discrete_laplace(engine, 3));
    s1 += y;
    s2 += y * y;
    s4 += y * y * y * y;
  }
  const double q = std::exp(-1.0 / 3.0), var = 2 * q / ((1 - q) * (1 - q));
  const double mean = static_cast<double>(s1 / n), m2 = static_cast<double>(s2 / n);
  const double var_sd = std::sqrt((static_cast<double>(s4 / n) - m2 * m2) / n);
  EXPECT_NEAR(mean, 0.0, 5 * std::sqrt(var / n));
  EXPECT_NEAR(m2, var, 5 * var_sd);
}

// (d) The draws are a function of the engine state: a copy of the engine taken mid-stream gives
// the same draws, through the class and through the one-shot function, and leaves both engines
// at the same position.
TEST(DiscreteGaussian, SameEngineStateSameDraws) {
  for (const DiscreteGaussianScale scale :
       {DiscreteGaussianScale::rational(9, 4), DiscreteGaussianScale::integer(1000),
        DiscreteGaussianScale::integer(std::uint64_t{1} << 40)}) {
    auto a = noise_engine(51);
    for (int i = 0; i < 77; ++i) a();  // not at a buffer boundary
    auto b = a;
    const DiscreteGaussian sampler(scale);
    for (int i = 0; i < 500; ++i) {
      const std::int64_t x = sampler(a);
      EXPECT_EQ(x, sample_discrete_gaussian(b, scale));
    }
    EXPECT_EQ(a(), b());
  }
  // Different seeds give different draws (equal 20 draws at σ = 1000: probability < 1e-40).
  auto c = noise_engine(52), d = noise_engine(53);
  const DiscreteGaussian sampler(DiscreteGaussianScale::integer(1000));
  bool differ = false;
  for (int i = 0; i < 20; ++i) differ = differ || sampler(c) != sampler(d);
  EXPECT_TRUE(differ);
}

// Any engine of 64-bit words works, e.g. the algorithm stream's and std::mt19937_64.
TEST(DiscreteGaussian, AcceptsAny64BitEngine) {
  static_assert(UniformWordEngine<ChaChaEngine>);
  static_assert(UniformWordEngine<AlgorithmEngine>);
  static_assert(UniformWordEngine<std::mt19937_64>);
  static_assert(!UniformWordEngine<std::mt19937>);  // 32-bit words: refused
  std::mt19937_64 e(1);
  const std::int64_t y = sample_discrete_gaussian(e, DiscreteGaussianScale::integer(3));
  EXPECT_LT(std::abs(y), 100);
}

TEST(DiscreteGaussian, ScaleFactoriesAndChecks) {
  EXPECT_THROW(DiscreteGaussianScale::integer(0), ConfigError);
  EXPECT_THROW(DiscreteGaussianScale::integer((std::uint64_t{1} << 42) + 1), ConfigError);
  EXPECT_THROW(DiscreteGaussianScale::rational(0, 1), ConfigError);
  EXPECT_THROW(DiscreteGaussianScale::rational(1, 0), ConfigError);
  auto engine = noise_engine(61);
  EXPECT_THROW(bernoulli_exp_minus(engine, 1, 0), ConfigError);
  EXPECT_THROW(sample_discrete_laplace(engine, 0), ConfigError);
  EXPECT_THROW(sample_discrete_laplace(engine, (std::uint64_t{1} << 42) + 2), ConfigError);

  // σ² = s² exactly, in two words beyond 2⁶⁴.
  const auto big = DiscreteGaussianScale::integer(std::uint64_t{1} << 42);
  EXPECT_EQ(big.num_high(), std::uint64_t{1} << 20);
  EXPECT_EQ(big.num_low(), 0u);
  EXPECT_EQ(big.den(), 1u);
  EXPECT_EQ(big.sigma_lower_bound(), 0x1p42);
  // Reduced by the gcd: 10⁶/1 is the integer scale 1000; 18/8 is 9/4.
  EXPECT_EQ(DiscreteGaussianScale::rational(1000000, 1), DiscreteGaussianScale::integer(1000));
  EXPECT_EQ(DiscreteGaussianScale::rational(18, 8), DiscreteGaussianScale::rational(9, 4));
  EXPECT_EQ(DiscreteGaussianScale::rational(9, 4).variance(), 2.25);
  EXPECT_EQ(DiscreteGaussianScale::rational(9, 4).sigma_lower_bound(), 1.5);
  // √2 rounds up in double (1.4142135623730951 > √2), so the lower bound is the double below.
  EXPECT_EQ(DiscreteGaussianScale::rational(2, 1).sigma_lower_bound(),
            std::nextafter(std::sqrt(2.0), 0.0));
  EXPECT_EQ(DiscreteGaussianScale::rational(2, 1).variance(), 2.0);
}

}  // namespace
}  // namespace dpmcmc
