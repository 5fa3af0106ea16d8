#include "samplers/accept_rule.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace dpmcmc {
namespace {

const Vec kA = Vec::Zero(1), kB = Vec::Ones(1);

MoveProposal move(double lp_from, double lp_to, double correction = 0.0) {
  return MoveProposal{kA, kB, lp_from, lp_to, correction};
}

TEST(AcceptRule, LogRatioIncludesCorrectionAndMapsNanToMinusInfinity) {
  EXPECT_DOUBLE_EQ(log_acceptance_ratio(move(-3.0, -4.5, 0.25)), -1.25);
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(log_acceptance_ratio(move(-inf, -inf)), -inf);
  EXPECT_EQ(log_acceptance_ratio(move(0.0, std::nan(""))), -inf);
}

// Accept frequency over 10^5 proposals with α = 0.3: sd √(0.21/10^5) ≈ 0.00145, band 5 sd.
TEST(AcceptRule, MetropolisAcceptsWithProbabilityMinOneRatio) {
  Rng rng = make_rng(1, 0);
  const int n = 100000;
  int accepted = 0;
  for (int i = 0; i < n; ++i) {
    const AcceptDecision d = metropolis_accept(move(0.0, std::log(0.3)), rng);
    ASSERT_NEAR(d.accept_stat, 0.3, 1e-15);
    accepted += d.accept;
  }
  EXPECT_NEAR(static_cast<double>(accepted) / n, 0.3, 5 * 0.00145);
  for (int i = 0; i < 1000; ++i) {
    const AcceptDecision up = metropolis_accept(move(-2.0, -1.0), rng);
    ASSERT_TRUE(up.accept);
    ASSERT_EQ(up.accept_stat, 1.0);
    const AcceptDecision bad = metropolis_accept(move(-1.0, std::nan("")), rng);
    ASSERT_FALSE(bad.accept);
    ASSERT_EQ(bad.accept_stat, 0.0);
  }
}

// Barker: p = 1/(1 + 1/r) for ratio r; r = 0.3 gives 0.3/1.3 ≈ 0.2308 (sd of the frequency over
// 10^5 draws ≈ 0.00133, band 5 sd); r = 1 gives exactly 1/2; extreme ratios give 0 and 1, no NaN.
TEST(AcceptRule, BarkerAcceptsWithProbabilityRatioOverOnePlusRatio) {
  Rng rng = make_rng(2, 0);
  const int n = 100000;
  int accepted = 0;
  for (int i = 0; i < n; ++i) {
    const AcceptDecision d = barker_accept(move(0.0, std::log(0.3)), rng);
    ASSERT_NEAR(d.accept_stat, 0.3 / 1.3, 1e-15);
    accepted += d.accept;
  }
  EXPECT_NEAR(static_cast<double>(accepted) / n, 0.3 / 1.3, 5 * 0.00133);
  EXPECT_EQ(barker_accept(move(1.0, 1.0), rng).accept_stat, 0.5);
  EXPECT_NEAR(barker_accept(move(0.0, 800.0), rng).accept_stat, 1.0, 1e-300);
  EXPECT_EQ(barker_accept(move(800.0, 0.0), rng).accept_stat, 0.0);
  EXPECT_EQ(barker_accept(move(0.0, std::nan("")), rng).accept_stat, 0.0);
}

// Each rule consumes exactly one word of the stream whatever the outcome, so later draws do not
// depend on it.
TEST(AcceptRule, RulesDrawExactlyOneUniform) {
  for (auto rule : {&metropolis_accept, &barker_accept}) {
    for (double lp_to : {-10.0, 0.0, 10.0}) {
      Rng a = make_rng(9, 0), b = make_rng(9, 0);
      rule(move(0.0, lp_to), a);
      b.bits();
      EXPECT_EQ(a.bits(), b.bits());
    }
  }
}

}  // namespace
}  // namespace dpmcmc
