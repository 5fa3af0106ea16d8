// Convergence warnings (issue #25): each threshold fires just beyond its value and not at it, only
// the model's parameters are judged, and the acceptance checks follow the sampler's kind.
#include "diagnostics/convergence_warnings.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace dpmcmc {
namespace {

ParameterSummary param(const std::string& name, double rhat, double bulk, double tail) {
  ParameterSummary p;
  p.name = name;
  p.rhat = rhat;
  p.ess_bulk = bulk;
  p.ess_tail = tail;
  return p;
}

Summary four_chains(std::vector<ParameterSummary> parameters) {
  Summary s;
  s.chains = 4;
  s.draws_per_chain = 1000;
  s.parameters = std::move(parameters);
  return s;
}

const std::vector<std::string> kTheta = {"theta.1", "theta.2"};

TEST(ConvergenceWarnings, ThresholdsAreRhat1_01AndEss100PerChain) {
  // At the thresholds: nothing. (lp__ is not a parameter: its R-hat 2 is not judged.)
  const Summary ok = four_chains({param("lp__", 2.0, 1.0, 1.0), param("theta.1", 1.01, 400, 400),
                                  param("theta.2", 1.0, 5000, 5000)});
  EXPECT_TRUE(convergence_warnings(ok, kTheta, {}, AcceptanceCheck::none, false).empty());

  const Summary bad =
      four_chains({param("theta.1", 1.0101, 400, 399.9),
                   param("theta.2", std::numeric_limits<double>::quiet_NaN(), 399.9, 400)});
  const auto w = convergence_warnings(bad, kTheta, {}, AcceptanceCheck::none, true);
  ASSERT_EQ(w.size(), 4u);
  EXPECT_EQ(w[0].check, "rhat");
  EXPECT_EQ(w[0].subject, "theta.1");
  EXPECT_EQ(w[1].check, "ess_tail");
  EXPECT_DOUBLE_EQ(w[1].threshold, 400.0);
  EXPECT_EQ(w[2].check, "rhat");  // undefined R-hat: a chain that never moved
  EXPECT_NE(w[2].problem.find("undefined"), std::string::npos);
  EXPECT_EQ(w[3].check, "ess_bulk");
  // A private run's advice is about its budget: --iter only as what does not apply.
  EXPECT_NE(w[0].advice.find("--epsilon"), std::string::npos);
  EXPECT_EQ(w[0].advice.find("more iterations (--iter"), std::string::npos);
  EXPECT_NE(w[0].advice.find("--iter does not apply"), std::string::npos) << w[0].advice;
  // With the caller's words for what the budget bought and what more would buy, those are the
  // advice (the sample job's depend on whether the noise or the length follows the budget).
  const std::string bought = "epsilon = 4 allows 700 iterations per chain (350 warmup), too few";
  const auto why = convergence_warnings(bad, kTheta, {}, AcceptanceCheck::none, true, bought);
  EXPECT_EQ(why[0].advice, bought);
  // A non-private run is told to run longer.
  const auto plain = convergence_warnings(bad, kTheta, {}, AcceptanceCheck::none, false);
  EXPECT_EQ(plain[0].advice, "more iterations (--iter, --warmup)");
}

TEST(ConvergenceWarnings, AcceptanceChecksFollowTheSamplerKind) {
  const Summary ok = four_chains({param("theta.1", 1.0, 1000, 1000)});
  const std::vector<double> rates = {0.049, 0.05, 0.95, 0.951};
  const auto rw = convergence_warnings(ok, kTheta, rates, AcceptanceCheck::random_walk, false);
  ASSERT_EQ(rw.size(), 2u);
  EXPECT_EQ(rw[0].subject, "chain 1");
  EXPECT_EQ(rw[1].subject, "chain 4");
  const auto hmc = convergence_warnings(ok, kTheta, rates, AcceptanceCheck::low_only, false);
  ASSERT_EQ(hmc.size(), 1u);
  EXPECT_EQ(hmc[0].subject, "chain 1");
  EXPECT_TRUE(convergence_warnings(ok, kTheta, rates, AcceptanceCheck::none, false).empty());
  // A chain without sampling iterations (NaN rate) is not judged.
  const std::vector<double> none = {std::nan("")};
  EXPECT_TRUE(convergence_warnings(ok, kTheta, none, AcceptanceCheck::random_walk, false).empty());
}

// One divergent transition among 4000 is a warning (divergent__'s mean times the draws), none is
// not; the advice is the target acceptance.
TEST(ConvergenceWarnings, AnyDivergentTransitionWarns) {
  ParameterSummary divergent = param("divergent__", 1.0, 1000, 1000);
  divergent.mean = 0.0;
  const Summary none = four_chains({param("theta.1", 1.0, 1000, 1000), divergent});
  EXPECT_TRUE(convergence_warnings(none, kTheta, {}, AcceptanceCheck::low_only, false).empty());
  divergent.mean = 1.0 / 4000.0;
  const Summary one = four_chains({param("theta.1", 1.0, 1000, 1000), divergent});
  const auto w = convergence_warnings(one, kTheta, {}, AcceptanceCheck::low_only, false);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].check, "divergent");
  EXPECT_EQ(w[0].value, 1.0);
  EXPECT_NE(w[0].problem.find("1 of 4000 kept"), std::string::npos) << w[0].problem;
  EXPECT_NE(w[0].advice.find("--target-accept"), std::string::npos);
}

TEST(ConvergenceWarnings, AdaptationOverAShortWarmupWarns) {
  const Summary ok = four_chains({param("theta.1", 1.0, 1000, 1000)});
  // Not adapted, or adapted over exactly the 150 iterations of Stan's schedule: nothing.
  EXPECT_TRUE(convergence_warnings(ok, kTheta, {}, AcceptanceCheck::none, false, "", {}).empty());
  // Adaptation on with no warmup at all: nothing was learnt, and the run says so.
  EXPECT_EQ(convergence_warnings(ok, kTheta, {}, AcceptanceCheck::none, false, "", 0).size(), 1u);
  EXPECT_TRUE(convergence_warnings(ok, kTheta, {}, AcceptanceCheck::none, false, "", 150).empty());
  const auto w = convergence_warnings(ok, kTheta, {}, AcceptanceCheck::none, false, "", 149);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].check, "adaptation");
  EXPECT_EQ(w[0].value, 149.0);
  EXPECT_EQ(w[0].threshold, 150.0);
  EXPECT_NE(w[0].problem.find("over 149 warmup iterations"), std::string::npos) << w[0].problem;
  EXPECT_NE(w[0].advice.find("--warmup"), std::string::npos);
  // A private run's warmup comes from its budget: the advice names --epsilon and --adapt false.
  const auto p = convergence_warnings(ok, kTheta, {}, AcceptanceCheck::none, true, "", 12);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_NE(p[0].advice.find("--epsilon"), std::string::npos);
  EXPECT_NE(p[0].advice.find("--adapt false"), std::string::npos);
  EXPECT_EQ(p[0].advice.find("--warmup"), std::string::npos);
}

TEST(ConvergenceWarnings, TextGroupsProblemsBySubjectAndGivesEachAdviceOnce) {
  const Summary bad = four_chains({param("theta.1", 1.2, 10, 10), param("theta.2", 1.3, 10, 10)});
  const auto w = convergence_warnings(bad, kTheta, {}, AcceptanceCheck::none, false);
  const std::string text = format_warnings(w);
  EXPECT_EQ(text,
            "WARNING: theta.1: R-hat 1.200 > 1.01 (the chains disagree); bulk-ESS 10 < 400 (100 "
            "per chain); tail-ESS 10 < 400 (100 per chain)\n"
            "WARNING: theta.2: R-hat 1.300 > 1.01 (the chains disagree); bulk-ESS 10 < 400 (100 "
            "per chain); tail-ESS 10 < 400 (100 per chain)\n"
            "  try: more iterations (--iter, --warmup)\n");
  const auto j = warnings_json(w);
  ASSERT_EQ(j.size(), 6u);
  EXPECT_EQ(j[0]["check"], "rhat");
  EXPECT_DOUBLE_EQ(j[0]["value"].get<double>(), 1.2);
}

}  // namespace
}  // namespace dpmcmc
