#include "diagnostics/mcse.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "test_chains.hpp"

namespace dpmcmc {
namespace {

struct Calibration {
  double empirical_sd_of_mean, average_mcse_mean, empirical_sd_of_sd, average_mcse_sd;
};

// Repeats an experiment R times and compares the spread of the estimates with the average
// MCSE: the MCSE is correct when the two agree.
Calibration calibrate(double phi, int repeats) {
  double m1 = 0, m2 = 0, s1 = 0, s2 = 0, mcse_m = 0, mcse_s = 0;
  for (int r = 0; r < repeats; ++r) {
    Rng rng = make_rng(500 + static_cast<std::uint64_t>(r), 1);
    const Mat x = testing::ar1_chains(rng, 250, 4, phi);
    const double m = x.mean(), s = pooled_sd(x);
    m1 += m;
    m2 += m * m;
    s1 += s;
    s2 += s * s;
    mcse_m += mcse_mean(x);
    mcse_s += mcse_sd(x);
  }
  const double r = repeats;
  return {std::sqrt(m2 / r - (m1 / r) * (m1 / r)), mcse_m / r,
          std::sqrt(s2 / r - (s1 / r) * (s1 / r)), mcse_s / r};
}

// The empirical sd of R = 400 independent estimates has relative standard error
// 1/sqrt(2(R − 1)) ≈ 0.035; the average MCSE is far more precise. A tolerance of 0.15 on the
// ratio is > 4 standard errors. (Pre-study: ratios 1.001/0.963 for φ = 0, 1.005/1.019 for 0.7.)
TEST(Mcse, CalibratedForIndependentDraws) {
  const auto c = calibrate(0.0, 400);
  EXPECT_NEAR(c.empirical_sd_of_mean / c.average_mcse_mean, 1.0, 0.15);
  EXPECT_NEAR(c.empirical_sd_of_sd / c.average_mcse_sd, 1.0, 0.15);
}

TEST(Mcse, CalibratedForAutocorrelatedDraws) {
  const auto c = calibrate(0.7, 400);
  EXPECT_NEAR(c.empirical_sd_of_mean / c.average_mcse_mean, 1.0, 0.15);
  EXPECT_NEAR(c.empirical_sd_of_sd / c.average_mcse_sd, 1.0, 0.15);
}

// Closed forms for large iid Gaussian samples: MCSE(mean) = σ/√S and MCSE(sd) ≈ σ/√(2S)
// (var of s² is 2σ⁴/S for a Gaussian, delta method). Spread of the estimates at S = 40000: the
// ESS of white noise has relative sd 1.5% (pre-study in ess_test), so MCSE ∝ ESS^(−1/2) varies
// by 0.8%; mcse_sd also estimates the fourth moment, m4 − m2² = 2σ⁴ with relative sd
// √((105 − 9)/S)/2 = 2.4%, i.e. 1.2% after the square root: 1.5% in all. Tolerances: 5% for
// the means (> 6 sd), 6% for the sd (4 sd).
TEST(Mcse, IndependentGaussianClosedForms) {
  Rng rng = make_rng(51, 0);
  const Mat x = testing::ar1_chains(rng, 10000, 4, 0.0, 1.0, 2.0);  // σ = 2
  EXPECT_NEAR(mcse_mean(x) / (2.0 / std::sqrt(40000.0)), 1.0, 0.05);
  EXPECT_NEAR(mcse_sd(x) / (2.0 / std::sqrt(2.0 * 40000.0)), 1.0, 0.06);
  EXPECT_NEAR(stansummary_mcse(x) / (2.0 / std::sqrt(40000.0)), 1.0, 0.05);
}

TEST(Mcse, PooledSdIsSampleSd) {
  Mat x(2, 2);
  x << 1, 3, 2, 4;  // pooled {1,2,3,4}: var = 5/3
  EXPECT_NEAR(pooled_sd(x), std::sqrt(5.0 / 3.0), 1e-15);
}

}  // namespace
}  // namespace dpmcmc
