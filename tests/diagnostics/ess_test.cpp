#include "diagnostics/ess.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "test_chains.hpp"

namespace dpmcmc {
namespace {

// For AR(1) chains the ESS of the mean is N·M(1 − φ)/(1 + φ) (test_chains.hpp). A pre-study
// over 200 seeds with 4 × 5000 draws, φ = 0.5, gave ess/theory = 0.996 ± 0.040 (sd); with
// 4 × 20000 draws the sd halves to ≈ 0.02, so 0.08 is 4 standard deviations. The same holds
// for ess_basic and ess_bulk (rank-normalising a Gaussian chain barely changes it).
TEST(Ess, Ar1PositiveCorrelationMatchesTheory) {
  Rng rng = make_rng(21, 0);
  const Mat x = testing::ar1_chains(rng, 20000, 4, 0.5);
  const double theory = testing::ar1_ess(20000, 4, 0.5);
  EXPECT_NEAR(ess_basic(x) / theory, 1.0, 0.08);
  EXPECT_NEAR(ess_basic(x, false) / theory, 1.0, 0.08);
  EXPECT_NEAR(ess_bulk(x) / theory, 1.0, 0.08);
  EXPECT_NEAR(ess_mean(x), ess_basic(x, true), 0.0);
}

// Antithetic chains (φ < 0) have ESS > N·M; Geyer's sequence must not truncate them to N·M.
// Theory for φ = −0.3: 1.857 N·M. The relative sd is smaller than for φ = 0.5 (τ is smaller),
// so the same 0.08 (≥ 4 sd) applies.
TEST(Ess, Ar1AntitheticExceedsDrawCount) {
  Rng rng = make_rng(22, 0);
  const Mat x = testing::ar1_chains(rng, 20000, 4, -0.3);
  const double theory = testing::ar1_ess(20000, 4, -0.3);
  EXPECT_GT(ess_basic(x), 80000.0);
  EXPECT_NEAR(ess_basic(x) / theory, 1.0, 0.08);
}

// For independent draws the indicator I(x ≤ q) of any quantile is independent too, so every
// ESS ≈ N·M. Pre-study over 100 seeds of 4 × 10000 N(0,1) draws: ess/(N·M) had mean 0.98–0.99
// (the estimator's small downward bias) and sd 0.015 for tail, bulk, median and sd ESS; the
// tolerance 0.08 covers the bias plus 4 sd.
TEST(Ess, IndependentDrawsGiveDrawCount) {
  Rng rng = make_rng(23, 0);
  const Mat x = testing::ar1_chains(rng, 10000, 4, 0.0);
  EXPECT_NEAR(ess_tail(x) / 40000.0, 1.0, 0.08);
  EXPECT_NEAR(ess_bulk(x) / 40000.0, 1.0, 0.08);
  EXPECT_NEAR(ess_quantile(x, 0.5) / 40000.0, 1.0, 0.08);
  EXPECT_NEAR(ess_sd(x) / 40000.0, 1.0, 0.08);
}

// Perfectly alternating chains have ρ̂₁ ≈ −1, so τ̂ would be ≈ 0: the estimate is capped at
// N·M·log10(N·M) (posterior's tau_bound), an independent closed-form value.
TEST(Ess, AntitheticCapIsNMLog10NM) {
  Mat x(1000, 2);
  for (int i = 0; i < 1000; ++i) {
    x(i, 0) = (i % 2 == 0) ? 1.0 : -1.0;
    x(i, 1) = (i % 2 == 0) ? -1.0 : 1.0;
  }
  EXPECT_NEAR(ess_basic(x, false), 2000.0 * std::log10(2000.0), 1e-9);
}

// A chain stuck between two values for long stretches mixes badly: the ESS must be far below
// the draw count (a sanity check that the estimator sees autocorrelation at all).
TEST(Ess, StickyChainHasSmallEss) {
  Rng rng = make_rng(24, 0);
  const Mat x = testing::ar1_chains(rng, 4000, 4, 0.99);
  EXPECT_LT(ess_bulk(x), 0.05 * 16000.0);
}

TEST(Ess, UndefinedCasesAreNaN) {
  const Mat constant = Mat::Constant(100, 4, 1.5);
  EXPECT_TRUE(std::isnan(ess_basic(constant)));
  EXPECT_TRUE(std::isnan(ess_bulk(constant)));
  EXPECT_TRUE(std::isnan(ess_tail(constant)));
  Mat with_inf = Mat::Random(100, 4);
  with_inf(3, 2) = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(std::isnan(ess_bulk(with_inf)));
  EXPECT_TRUE(std::isnan(ess_geyer(Mat::Random(2, 4))));  // fewer than 3 draws per chain
}

// Chains that are each constant but at different values: every ρ̂_t = 1 (γ̂_t = 0, W = 0), so
// the positive sequence never stops and only the length limit ends it. For N = 1000 the last
// pair examined is (996, 997), hence by hand:
//   posterior: τ̂ = −1 + 2 Σ_{t<996} 1 + ρ̂_996 = 1992,  ESS = 4000/1992;
//   Stan:      τ̂ = −1 + 2 Σ_{t≤996} 1 + ρ̂_996 = 1994,  ESS = 4000/1994 = 2.00602 (the N_Eff
//              stansummary printed for stepsize__ of the fixture, checked in fixture_test).
TEST(Ess, SaturatedSequenceTruncationConventions) {
  Mat x(1000, 4);
  for (int c = 0; c < 4; ++c) x.col(c).setConstant(0.9 + 0.01 * c);
  EXPECT_NEAR(ess_basic(x, false), 4000.0 / 1992.0, 1e-12);
  EXPECT_NEAR(stansummary_ess(x), 4000.0 / 1994.0, 1e-12);
}

// Away from that corner the two conventions agree exactly.
TEST(Ess, TruncationConventionsAgreeOnOrdinaryChains) {
  Rng rng = make_rng(25, 0);
  const Mat x = testing::ar1_chains(rng, 3000, 4, 0.8);
  EXPECT_EQ(stansummary_ess(x), ess_basic(x, false));
}

}  // namespace
}  // namespace dpmcmc
