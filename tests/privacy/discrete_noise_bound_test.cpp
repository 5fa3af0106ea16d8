#include "privacy/discrete_noise_bound.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>

#include "core/error.hpp"

namespace dpmcmc {
namespace {

// The true TV(N_Z(0, s²), round(N(0, s²))) by direct summation in long double, independently of
// the bound's derivation: p_k = exp(−k²/(2s²)) / Σ_j exp(−j²/(2s²)) and
// R_k = ½[erfc((k − ½)/(s√2)) − erfc((k + ½)/(s√2))] (R_0 = erf(1/(2s√2))), summed over
// |k| ≤ 40s + 10; both tails beyond carry less than e^{−800}. By symmetry, k ≥ 1 count twice.
// Accuracy: each R_k is a difference of erfc values ≤ 1, so it carries an absolute error of a
// few long double ulps (~1e-19), as does p_k; over the ~40s terms the sum's error is below
// ~1e-17·s, e.g. 1e-15 at s = 100, where the TV is 2e-6: resolved to nine digits or more for
// every s tested here. (The TV shrinks like 0.02/s², so long double would stop resolving it
// only near s ~ 10⁶, far beyond the tested range.)
long double true_tv(long double s) {
  const long double r2 = std::sqrt(2.0L) * s;
  const int n = static_cast<int>(40 * s) + 10;
  long double z = 1;  // k = 0
  for (int k = 1; k <= n; ++k) z += 2 * std::exp(-static_cast<long double>(k) * k / (2 * s * s));
  long double l1 = std::fabs(1 / z - std::erf(0.5L / r2));
  for (int k = 1; k <= n; ++k) {
    const long double p = std::exp(-static_cast<long double>(k) * k / (2 * s * s)) / z;
    const long double r = (std::erfc((k - 0.5L) / r2) - std::erfc((k + 0.5L) / r2)) / 2;
    l1 += 2 * std::fabs(p - r);
  }
  return l1 / 2;
}

// The bound must be safe (≥ the true TV) at every s, and not loose: the brief allows 20×; the
// derivation predicts ≈ 3.1× at s = 1 falling to 1 + O(1/s), so it is checked against 4× too.
TEST(DiscreteNoiseBound, BoundsTheTrueTotalVariation) {
  std::printf("%8s %14s %14s %8s\n", "s", "true TV", "bound", "ratio");
  for (const double s : {1.0, 1.5, 3.0, 10.0, 30.0, 100.0, 1000.0}) {
    const long double tv = true_tv(s);
    const double bound = discrete_gaussian_tv_bound(s);
    std::printf("%8g %14.6Le %14.6e %8.4Lf\n", s, tv, bound, bound / tv);
    EXPECT_GE(bound, tv) << "s = " << s;
    EXPECT_LE(bound, 20 * tv) << "s = " << s;
    EXPECT_LE(bound, 4 * tv) << "s = " << s;
    if (s >= 100) {
      EXPECT_LE(bound, 1.05L * tv) << "s = " << s;  // first-order tight
    }
  }
}

// η is decreasing in s (so s_min gives a bound valid for every larger scale) and ~φ(1)/(12s²).
TEST(DiscreteNoiseBound, DecreasingWithTheRightRate) {
  double previous = discrete_gaussian_tv_bound(1.0);
  for (double s = 1.25; s < 1e7; s *= 1.25) {
    const double b = discrete_gaussian_tv_bound(s);
    EXPECT_LT(b, previous) << "s = " << s;
    previous = b;
  }
  const double phi1 = std::exp(-0.5) / std::sqrt(2 * std::numbers::pi);
  EXPECT_NEAR(discrete_gaussian_tv_bound(1e6) * 1e12 / (phi1 / 12), 1.0, 1e-5);
  EXPECT_GT(discrete_gaussian_tv_bound(1e100), 0.0);
}

// δ added = (1 + e^ε)·K·η(s_min). By hand at ε = 1, K = 1000, s = 10, with φ(0) = 0.3989422804,
// φ(1) = 0.2419707245, φ(√3) = 0.0890160549:
//   e1(10) = [4φ(1)/100 + (2φ(0) + 8φ(√3))/1000]/24 = [0.0096788290 + 0.0015100130]/24
//          = 4.6620175e-4,
//   η(10)  = e1/2 + q/(1 − q) = 2.3310087e-4   (q = e^{−200π²}: nothing),
//   δ      = (1 + e)·1000·η = 3.7182818·0.23310087 = 0.86673475.
// The same in 30-digit arithmetic (mpmath) gives 0.866734746230543532890 for δ and
// 2.33100874602004398e-4 for η: the code must agree to ~1e-12 relative and lie above.
TEST(DiscreteNoiseBound, DiscretisationDeltaByHand) {
  const double eta = discrete_gaussian_tv_bound(10.0);
  EXPECT_GE(eta, 2.33100874602004398e-4);
  EXPECT_NEAR(eta / 2.33100874602004398e-4, 1.0, 1e-11);
  const double delta = discretisation_delta(1.0, 1000.0, 10.0);
  EXPECT_GE(delta, 0.866734746230543532890);
  EXPECT_NEAR(delta / 0.866734746230543532890, 1.0, 1e-11);
  EXPECT_NEAR(discretisation_delta(0.0, 1.0, 10.0) / (2 * eta), 1.0, 1e-11);
  // η(1) in 30 digits: 0.0516228338879348843.
  EXPECT_GE(discrete_gaussian_tv_bound(1.0), 0.0516228338879348843);
  EXPECT_NEAR(discrete_gaussian_tv_bound(1.0) / 0.0516228338879348843, 1.0, 1e-11);
  EXPECT_EQ(discretisation_delta(3.0, 0.0, 5.0), 0.0);
  EXPECT_EQ(discretisation_delta(800.0, 1.0, 5.0), std::numeric_limits<double>::infinity());
}

TEST(DiscreteNoiseBound, Preconditions) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const double s : {0.999, 0.0, -1.0, nan, inf, 1e101}) {
    EXPECT_THROW(discrete_gaussian_tv_bound(s), ConfigError) << "s = " << s;
    EXPECT_THROW(discretisation_delta(1.0, 1.0, s), ConfigError) << "s = " << s;
  }
  EXPECT_THROW(discretisation_delta(1.0, -1.0, 10.0), ConfigError);
  EXPECT_THROW(discretisation_delta(1.0, inf, 10.0), ConfigError);
  EXPECT_THROW(discretisation_delta(1.0, nan, 10.0), ConfigError);
  EXPECT_THROW(discretisation_delta(-0.1, 1.0, 10.0), ConfigError);
  EXPECT_THROW(discretisation_delta(inf, 1.0, 10.0), ConfigError);
  EXPECT_THROW(discretisation_delta(nan, 1.0, 10.0), ConfigError);
  EXPECT_NO_THROW(discretisation_delta(0.0, 0.0, 1.0));
}

}  // namespace
}  // namespace dpmcmc
