#include "diagnostics/rhat.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "test_chains.hpp"

namespace dpmcmc {
namespace {

// Hand computation (BDA3 eq. 11.3–11.4) for chains (1,2,3,4) and (3,4,5,6): means 2.5, 4.5;
// within variances 5/3 each, W = 5/3; B = n·var(means) = 4 · 2 = 8;
// R̂ = sqrt(((n−1)/n W + B/n)/W) = sqrt((1.25 + 2)/(5/3)) = sqrt(1.95).
TEST(Rhat, ClassicMatchesHandComputation) {
  Mat x(4, 2);
  x << 1, 3, 2, 4, 3, 5, 4, 6;
  EXPECT_NEAR(rhat_classic(x), std::sqrt(1.95), 1e-14);
  EXPECT_NEAR(rhat_basic(x, false), std::sqrt(1.95), 1e-14);
}

// Split: (1,2),(3,4),(3,4),(5,6): means 1.5, 3.5, 3.5, 5.5, var(means) = 8/3, B = 2·8/3;
// W = 1/2; R̂ = sqrt((1/2·1/2 + 8/3)/(1/2)) = sqrt(35/6).
TEST(Rhat, SplitMatchesHandComputation) {
  Mat x(4, 2);
  x << 1, 3, 2, 4, 3, 5, 4, 6;
  EXPECT_NEAR(rhat_basic(x, true), std::sqrt(35.0 / 6.0), 1e-14);
}

// Well-mixed chains: a pre-study of 200 seeds of 4 × 1000 iid draws never exceeded 1.0025, so
// 1.01 (the usual convergence threshold) is a safe upper bound for one fixed seed.
TEST(Rhat, IndependentChainsNearOne) {
  Rng rng = make_rng(31, 0);
  const Mat x = testing::ar1_chains(rng, 1000, 4, 0.0);
  EXPECT_LT(rhat(x), 1.01);
  EXPECT_GE(rhat(x), 0.99);
}

// One chain shifted by one standard deviation: between-chain variance dominates.
TEST(Rhat, ShiftedChainIsDetectedByBulk) {
  Rng rng = make_rng(32, 0);
  Mat x = testing::ar1_chains(rng, 1000, 4, 0.0);
  x.col(3).array() += 1.0;
  EXPECT_GT(rhat_bulk(x), 1.05);
  EXPECT_GT(rhat(x), 1.05);
}

// Same location, different scale: the bulk R̂ (a location diagnostic) stays near 1 but the
// folded (tail) R̂ sees the difference — the reason rhat() takes the maximum
// (Vehtari et al. 2021, Section 4.2).
TEST(Rhat, ScaleDifferenceIsDetectedByFolding) {
  Rng rng = make_rng(33, 0);
  Mat x = testing::ar1_chains(rng, 1000, 4, 0.0);
  x.col(3) *= 3.0;
  EXPECT_LT(rhat_bulk(x), 1.01);
  EXPECT_GT(rhat_tail(x), 1.05);
  EXPECT_DOUBLE_EQ(rhat(x), rhat_tail(x));
}

// A trend within each chain is invisible to unsplit R̂ but visible after splitting.
TEST(Rhat, TrendIsDetectedBySplitting) {
  Rng rng = make_rng(34, 0);
  Mat x = testing::ar1_chains(rng, 1000, 4, 0.0);
  for (int i = 0; i < 1000; ++i) x.row(i).array() += 3.0 * i / 1000.0;
  EXPECT_LT(rhat_basic(x, false), 1.01);
  EXPECT_GT(rhat_basic(x, true), 1.1);
  EXPECT_GT(rhat(x), 1.1);
}

// Chains that each stay at their own point have no within-chain variance: R̂ = sqrt((B/W + n −
// 1)/n) = ∞ with B > 0 and W = 0, not a huge finite number from the rounding of the chain
// means (the committed Fashion-MNIST rows of DP-Fast MH had R̂ ≈ 1.7e15). One constant chain among
// moving ones leaves R̂ finite.
TEST(Rhat, ChainsStuckAtDifferentPointsGiveInfinity) {
  Mat stuck(1255, 3);
  stuck.col(0).setConstant(0.1);
  stuck.col(1).setConstant(-0.3);
  stuck.col(2).setConstant(0.7);
  EXPECT_EQ(rhat_classic(stuck), std::numeric_limits<double>::infinity());
  EXPECT_EQ(rhat_basic(stuck, true), std::numeric_limits<double>::infinity());
  EXPECT_EQ(rhat(stuck), std::numeric_limits<double>::infinity());
  Rng rng = make_rng(35, 0);
  Mat one_stuck = testing::ar1_chains(rng, 1000, 4, 0.0);
  one_stuck.col(2).setConstant(0.5);
  EXPECT_TRUE(std::isfinite(rhat(one_stuck)));
  // Two stuck chains fold to the same distance from their midpoint (up to rounding): the tail
  // R̂ may be undefined, but R̂ is never a finite number.
  Mat two_stuck(1255, 2);
  two_stuck.col(0).setConstant(0.1);
  two_stuck.col(1).setConstant(0.7);
  EXPECT_EQ(rhat_basic(two_stuck, true), std::numeric_limits<double>::infinity());
  EXPECT_FALSE(std::isfinite(rhat(two_stuck)));
}

TEST(Rhat, UndefinedCasesAreNaN) {
  EXPECT_TRUE(std::isnan(rhat(Mat::Constant(10, 4, 2.0))));
  Mat with_nan = Mat::Random(10, 4);
  with_nan(0, 0) = std::nan("");
  EXPECT_TRUE(std::isnan(rhat(with_nan)));
  EXPECT_TRUE(std::isnan(rhat_classic(Mat::Random(10, 1))));  // one chain, unsplit
  EXPECT_FALSE(std::isnan(rhat(Mat::Random(10, 1))));         // one chain is fine when split
}

}  // namespace
}  // namespace dpmcmc
