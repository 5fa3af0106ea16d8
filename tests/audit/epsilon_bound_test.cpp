// The threshold-test lower bound and the hockey-stick estimate on samples whose true privacy
// curve is known: a shift N(0, 1) against N(m, 1) is exactly the Gaussian mechanism with
// Δ/σ = m, whose privacy loss is N(μ, 2μ) with μ = m²/2 and whose ε(δ) is
// privacy/gaussian_pld.hpp's (tested against independent values in tests/privacy/).
#include "audit/epsilon_bound.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "privacy/gaussian_pld.hpp"

namespace dpmcmc {
namespace {

AuditSamples gaussian_shift(double mu, Eigen::Index trials, std::uint64_t seed) {
  Rng rng = make_rng(seed, 0);
  AuditSamples s;
  s.names = {"x"};
  s.on_d.resize(trials, 1);
  s.on_d_prime.resize(trials, 1);
  for (Eigen::Index i = 0; i < trials; ++i) {
    s.on_d(i, 0) = rng.normal();
    s.on_d_prime(i, 0) = mu + rng.normal();
  }
  return s;
}

TEST(EpsilonLowerBound, GaussianShiftIsBoundedBelowTheTruthAndNotFarBelow) {
  const double m = 1.0, delta = 1e-5;
  const double truth = gaussian_pld_epsilon(0.5 * m * m, delta);
  const auto b = epsilon_lower_bound(gaussian_shift(m, 400000, 1), delta, 0.05);
  EXPECT_LE(b.epsilon, truth);
  // 2·10⁵ judged trials resolve false-positive rates of ~10⁻⁴: ε up to ~3 is visible there.
  EXPECT_GE(b.epsilon, 0.55 * truth) << "truth " << truth;
  EXPECT_EQ(b.statistic, "x");
  EXPECT_EQ(b.judged_trials, 200000u);
}

// Same distributions on both sides: the true ε is 0, so ε_lb > 0 is a false claim and must
// happen in at most β of the audits (the confidence statement, including the threshold and
// direction chosen on the other half). 400 audits at β = 0.05: the count of false claims is
// Binomial(400, ≤ 0.05), so > 35 (mean + 3.9 sd) would refute the claim at p < 10⁻⁴.
TEST(EpsilonLowerBound, NoDifferenceGivesFalseClaimsAtMostBetaOfTheTime) {
  int false_claims = 0;
  for (std::uint64_t r = 0; r < 400; ++r) {
    if (epsilon_lower_bound(gaussian_shift(0.0, 400, 100 + r), 1e-5, 0.05).epsilon > 0.0) {
      ++false_claims;
    }
  }
  EXPECT_LE(false_claims, 35);
}

TEST(EpsilonLowerBound, DisjointPointMassesGiveTheClopperPearsonLimit) {
  AuditSamples s;
  s.names = {"a", "b"};
  s.on_d = Mat::Zero(1000, 2);
  s.on_d_prime = Mat::Zero(1000, 2);
  s.on_d_prime.col(1).setOnes();
  const auto b = epsilon_lower_bound(s, 1e-5, 0.05);
  // Judged on 500 trials with no error: FPR_u = FNR_u = 1 − 0.025^(1/500).
  const double u = 1.0 - std::pow(0.025, 1.0 / 500.0);
  EXPECT_NEAR(b.epsilon, std::log((1.0 - 1e-5 - u) / u), 1e-9);
  EXPECT_EQ(b.statistic, "b");
}

TEST(EpsilonLowerBound, RefusesMismatchedSamples) {
  AuditSamples s;
  s.names = {"a"};
  s.on_d = Mat::Zero(10, 1);
  s.on_d_prime = Mat::Zero(11, 1);
  EXPECT_THROW(epsilon_lower_bound(s, 1e-5, 0.05), ConfigError);
  s.on_d_prime = Mat::Zero(10, 1);
  EXPECT_THROW(epsilon_lower_bound(s, 1e-5, 1.5), ConfigError);
}

// The plug-in estimate at a δ its bins resolve (0.05: the region where p_b > e^ε q_b holds
// thousands of samples) is within 10% of the truth with 2·10⁵ trials a side.
TEST(HockeyStickEstimate, GaussianShiftAtAResolvedDelta) {
  const double m = 1.0, delta = 0.05;
  const double truth = gaussian_pld_epsilon(0.5 * m * m, delta);
  const auto s = gaussian_shift(m, 200000, 7);
  const auto h = hockey_stick_estimate(s, 0, delta);
  EXPECT_NEAR(h.epsilon, truth, 0.1 * truth);
  EXPECT_EQ(h.bins, 800u);
}

TEST(TradeoffCurve, RatesAreMonotoneInTheThreshold) {
  const auto s = gaussian_shift(1.0, 20000, 3);
  const auto curve = tradeoff_curve(s, ThresholdTest{0, 0.0, true, false}, 49);
  ASSERT_EQ(curve.size(), 50u);
  for (std::size_t i = 1; i < curve.size(); ++i) {
    EXPECT_LE(curve[i].first, curve[i - 1].first);    // FPR falls as the threshold rises
    EXPECT_GE(curve[i].second, curve[i - 1].second);  // FNR rises
  }
}

}  // namespace
}  // namespace dpmcmc

namespace dpmcmc {
namespace {

// The test is chosen on the first half and judged on the second: a separation that exists in
// the first half only (as a lucky selection would see) must not show in ε_lb.
TEST(EpsilonLowerBound, ASeparationInTheSelectionHalfAloneShowsNothing) {
  AuditSamples s = gaussian_shift(0.0, 20000, 11);
  s.on_d_prime.topRows(10000).array() += 50.0;
  const auto b = epsilon_lower_bound(s, 1e-5, 0.05);
  EXPECT_EQ(b.epsilon, 0.0) << b.statistic << " " << b.test.threshold;
  // The same separation in both halves is found (the Clopper–Pearson limit of 10⁴ runs).
  AuditSamples t = gaussian_shift(0.0, 20000, 11);
  t.on_d_prime.array() += 50.0;
  EXPECT_GT(epsilon_lower_bound(t, 1e-5, 0.05).epsilon, 7.0);
}

}  // namespace
}  // namespace dpmcmc
