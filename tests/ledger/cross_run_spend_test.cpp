// Cross-run composition (ledger/cross_run_spend.hpp) against an independent computation: the
// exact privacy profile of composed Gaussian mechanisms (Balle and Wang 2018, Theorem 8): with
// μ² = Σ count/z², δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2), solved for ε by bisection here.
#include "ledger/cross_run_spend.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"

namespace dpmcmc {
namespace {

double phi(double x) {
  return 0.5 * std::erfc(-x / std::sqrt(2.0));
}

double gaussian_delta(double mu, double eps) {
  return phi(-eps / mu + mu / 2) - std::exp(eps) * phi(-eps / mu - mu / 2);
}

double gaussian_epsilon(double mu, double delta) {
  double lo = 0, hi = 100;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (gaussian_delta(mu, mid) > delta ? lo : hi) = mid;
  }
  return hi;
}

PrivacyEvent gaussian(double z, std::uint64_t count,
                      Neighbouring relation = Neighbouring::substitute) {
  PrivacyEvent e;
  e.mechanism = Mechanism::gaussian;
  e.sensitivity = 2.0;
  e.noise_sd = 2.0 * z;
  e.relation = relation;
  e.count = count;
  e.kind = ReleaseKind::llr_sum;
  return e;
}

TEST(CrossRunSpend, NoRunsSpendNothing) {
  const auto s = compose_runs({}, Budget{1.0, 1e-5}, CompositionRule::gaussian);
  EXPECT_EQ(s.epsilon, 0.0);
  EXPECT_TRUE(s.within);
}

TEST(CrossRunSpend, TwoRunsComposeAsOneGaussianMechanism) {
  // Each run certified exactly its own events at δ = 10⁻⁶.
  const double eps_a = gaussian_epsilon(std::sqrt(100.0 / 400.0), 1e-6);
  const double eps_b = gaussian_epsilon(std::sqrt(50.0 / 100.0), 1e-6);
  const std::vector<RunSpend> runs = {{{gaussian(20.0, 100)}, 0.0, Budget{eps_a, 1e-6}},
                                      {{gaussian(10.0, 50)}, 0.0, Budget{eps_b, 1e-6}}};
  const Budget dataset{10.0, 1e-5};
  const auto s = compose_runs(runs, dataset, CompositionRule::gaussian);
  const double mu = std::sqrt(100.0 / 400.0 + 50.0 / 100.0);
  const double expected = gaussian_epsilon(mu, 1e-5);
  EXPECT_NEAR(s.epsilon, expected, 1e-6 * expected);
  EXPECT_DOUBLE_EQ(s.delta_accountants, 1e-5);
  // The composition is far below the sum of the runs' own certificates, which is also reported.
  EXPECT_DOUBLE_EQ(s.sum_epsilon, eps_a + eps_b);
  EXPECT_DOUBLE_EQ(s.sum_delta, 2e-6);
  EXPECT_LT(s.epsilon, s.sum_epsilon);
  EXPECT_TRUE(compose_runs(runs, Budget{expected * 1.001, 1e-5}, CompositionRule::gaussian).within);
  EXPECT_FALSE(
      compose_runs(runs, Budget{expected * 0.999, 1e-5}, CompositionRule::gaussian).within);
}

TEST(CrossRunSpend, DiscretisationVariationComesOffTheDelta) {
  const std::vector<RunSpend> runs = {{{gaussian(20.0, 100)}, 1e-7, Budget{1.0, 1e-6}},
                                      {{gaussian(20.0, 100)}, 2e-7, Budget{1.0, 1e-6}}};
  const Budget dataset{2.0, 1e-5};
  const auto s = compose_runs(runs, dataset, CompositionRule::gaussian);
  const double delta_a = 1e-5 - (1.0 + std::exp(2.0)) * 3e-7;
  EXPECT_DOUBLE_EQ(s.delta_accountants, delta_a);
  EXPECT_NEAR(s.epsilon, gaussian_epsilon(std::sqrt(200.0 / 400.0), delta_a), 1e-6);
}

TEST(CrossRunSpend, NoDeltaLeftIsNoGuarantee) {
  const std::vector<RunSpend> runs = {{{gaussian(20.0, 100)}, 1e-5, Budget{1.0, 1e-6}}};
  const auto s = compose_runs(runs, Budget{1.0, 1e-5}, CompositionRule::gaussian);
  EXPECT_LT(s.delta_accountants, 0.0);
  EXPECT_TRUE(std::isinf(s.epsilon));
  EXPECT_FALSE(s.within);
}

TEST(CrossRunSpend, MixedRelationsAreRefused) {
  const std::vector<RunSpend> runs = {
      {{gaussian(20.0, 100)}, 0.0, Budget{1.0, 1e-6}},
      {{gaussian(20.0, 100, Neighbouring::add_remove)}, 0.0, Budget{1.0, 1e-6}}};
  EXPECT_THROW(compose_runs(runs, Budget{10.0, 1e-5}, CompositionRule::gaussian), ConfigError);
  EXPECT_THROW(compose_runs(runs, Budget{10.0, 1e-5}, CompositionRule::basic), ConfigError);
}

// The gaussian rule is a Gaussian DP filter: it admits plain Gaussian releases only (subsampled
// ones are not μ-GDP for any μ the rule could add up).
TEST(CrossRunSpend, TheGaussianRuleRefusesOtherMechanisms) {
  PrivacyEvent sub = gaussian(5.0, 100);
  sub.mechanism = Mechanism::subsampled_gaussian;
  sub.sampling = Sampling::without_replacement;
  sub.sampling_rate = 0.01;
  const std::vector<RunSpend> runs = {{{sub}, 0.0, Budget{1.0, 1e-6}}};
  EXPECT_THROW(compose_runs(runs, Budget{10.0, 1e-5}, CompositionRule::gaussian), ConfigError);
  EXPECT_NO_THROW(compose_runs(runs, Budget{10.0, 1e-5}, CompositionRule::basic));
}

// The basic rule adds the runs' own certificates, ε and δ both.
TEST(CrossRunSpend, TheBasicRuleAddsTheRunsCertificates) {
  PrivacyEvent approx;
  approx.mechanism = Mechanism::approximate_dp;
  approx.epsilon = 0.01;
  approx.delta = 1e-9;
  approx.relation = Neighbouring::substitute;
  approx.count = 100;
  const std::vector<RunSpend> runs = {{{approx}, 0.0, Budget{1.0, 2e-6}},
                                      {{gaussian(20.0, 100)}, 1e-9, Budget{0.5, 3e-6}}};
  const auto s = compose_runs(runs, Budget{2.0, 1e-5}, CompositionRule::basic);
  EXPECT_DOUBLE_EQ(s.epsilon, 1.5);
  EXPECT_DOUBLE_EQ(s.sum_delta, 5e-6);
  EXPECT_TRUE(s.within);
  EXPECT_FALSE(compose_runs(runs, Budget{1.4, 1e-5}, CompositionRule::basic).within);
  EXPECT_FALSE(compose_runs(runs, Budget{2.0, 4e-6}, CompositionRule::basic).within);
}

}  // namespace
}  // namespace dpmcmc
