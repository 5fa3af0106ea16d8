#include "samplers/nuts.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "chain_moments.hpp"
#include "core/error.hpp"
#include "diagnostics/ess.hpp"
#include "gaussian_test_model.hpp"

namespace dpmcmc {
namespace {

using testing::ChainMoments;
using testing::run_kernel;

// The standard fixture's Gaussian posterior, 2·10^4 NUTS draws at a fixed step. Bands of 5 MCSE
// for the means, variances and covariance with the chain's own ESS (split-chain ess_basic) of θ_j
// and of (θ_j − m_j)²; measured at this seed ≥ 1.5·10^4 for every statistic, so the bands are
// tight enough to catch a sampler whose stationary law is off by a few percent.
TEST(Nuts, ReproducesGaussianPosterior) {
  const auto model = testing::standard_model();
  const Dataset data = testing::standard_data(model);
  const Mat cov = model.posterior_cov(data);
  const Vec mean = model.posterior_mean(data);
  NutsConfig c;
  c.step_size = 0.1 * std::sqrt(cov.diagonal().minCoeff());
  auto kernel = make_nuts(model, data, c);
  const ChainMoments m = run_kernel(*kernel, mean + 3 * cov.diagonal().cwiseSqrt(), 200, 20000, 51);
  for (int j = 0; j < 2; ++j) {
    const Mat x = m.draws.col(j);
    const Mat sq = (x.array() - mean[j]).square().matrix();
    const double ess_x = ess_basic(x), ess_sq = ess_basic(sq);
    EXPECT_GT(ess_x, 5000) << j;  // NUTS on a Gaussian: nearly independent draws
    EXPECT_NEAR(m.mean[j], mean[j], 5 * std::sqrt(cov(j, j) / ess_x)) << "mean " << j;
    EXPECT_NEAR(m.cov(j, j), cov(j, j), 5 * cov(j, j) * std::sqrt(2 / ess_sq)) << "variance " << j;
  }
  const Mat cross =
      ((m.draws.col(0).array() - mean[0]) * (m.draws.col(1).array() - mean[1])).matrix();
  const double ess_cross = ess_basic(cross);
  EXPECT_NEAR(m.cov(0, 1), cov(0, 1),
              5 * std::sqrt((cov(0, 0) * cov(1, 1) + cov(0, 1) * cov(0, 1)) / ess_cross));
}

// A step far below the scale of the posterior: no U-turn within the maximum depth, so every
// trajectory is the full tree of 2^3 − 1 = 7 steps, nearly exact (accept_stat ≈ 1), never
// divergent.
TEST(Nuts, TinyStepRunsToTheMaximumDepth) {
  const auto model = testing::standard_model();
  const Dataset data = testing::standard_data(model);
  NutsConfig c;
  c.step_size = 1e-4;
  c.max_depth = 3;
  auto kernel = make_nuts(model, data, c);
  const ChainMoments m = run_kernel(*kernel, model.posterior_mean(data), 0, 50, 52);
  for (int i = 0; i < 50; ++i) {
    EXPECT_EQ(m.extras(i, 0), 1e-4);
    EXPECT_EQ(m.extras(i, 1), 3.0);
    EXPECT_EQ(m.extras(i, 2), 7.0);
    EXPECT_EQ(m.extras(i, 3), 0.0);
  }
  EXPECT_GT(m.acceptance, 0.9);
}

// A step far above the stability limit of the leapfrog (2/ω with ω the largest frequency): the
// energy error explodes on the first step, the transition is divergent and the chain stays put.
TEST(Nuts, HugeStepDivergesAndStays) {
  const auto model = testing::standard_model();
  const Dataset data = testing::standard_data(model);
  NutsConfig c;
  c.step_size = 1e3;
  auto kernel = make_nuts(model, data, c);
  const Vec start = model.posterior_mean(data);
  const ChainMoments m = run_kernel(*kernel, start, 0, 20, 53);
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(m.extras(i, 3), 1.0) << i;
    EXPECT_EQ(m.extras(i, 2), 1.0) << i;  // the divergent leaf is the only step
  }
  EXPECT_EQ(m.draws.row(19).transpose(), start);
  EXPECT_EQ(m.acceptance, 0.0);
}

TEST(Nuts, RefusesBadConfiguration) {
  const auto model = testing::standard_model();
  const Dataset data = testing::standard_data(model);
  NutsConfig c;
  c.step_size = 0.0;
  EXPECT_THROW(make_nuts(model, data, c), ConfigError);
  c.step_size = 0.1;
  c.max_depth = 0;
  EXPECT_THROW(make_nuts(model, data, c), ConfigError);
  c.max_depth = 10;
  c.mass = Vec::Constant(3, 1.0);
  EXPECT_THROW(make_nuts(model, data, c), ConfigError);
}

// The tuning hooks change the step column and the metric, and are checked.
TEST(Nuts, TuningIsAppliedAndChecked) {
  const auto model = testing::standard_model();
  const Dataset data = testing::standard_data(model);
  auto kernel = make_nuts(model, data, NutsConfig{});
  ASSERT_TRUE(kernel->adaptation());
  EXPECT_EQ(kernel->adaptation()->accept, 0.8);
  kernel->set_tuning({0.25, Vec::Constant(2, 4.0)});
  EXPECT_EQ(kernel->tuning().step, 0.25);
  EXPECT_EQ(kernel->tuning().metric, Vec::Constant(2, 4.0));
  EXPECT_THROW(kernel->set_tuning({-1.0, Vec::Constant(2, 1.0)}), SoftwareError);
  EXPECT_THROW(kernel->set_tuning({1.0, Vec::Constant(3, 1.0)}), SoftwareError);
}

}  // namespace
}  // namespace dpmcmc

namespace dpmcmc {
namespace {

// With a dense metric equal to the posterior covariance the target is, in the metric's
// coordinates, a standard normal: NUTS reproduces the moments (bands of 5 MCSE from the chain's
// own ESS) with short trajectories.
TEST(Nuts, DenseMetricReproducesGaussianPosterior) {
  const auto model = testing::standard_model();
  const Dataset data = testing::standard_data(model);
  const Mat cov = model.posterior_cov(data);
  const Vec mean = model.posterior_mean(data);
  auto kernel = make_nuts(model, data, NutsConfig{});
  kernel->set_tuning(Tuning(0.8, cov.diagonal(), cov));
  EXPECT_EQ(kernel->tuning().dense, cov);
  const ChainMoments m = run_kernel(*kernel, mean, 100, 20000, 54);
  for (int j = 0; j < 2; ++j) {
    const Mat x = m.draws.col(j);
    const Mat sq = (x.array() - mean[j]).square().matrix();
    const double ess_x = ess_basic(x), ess_sq = ess_basic(sq);
    EXPECT_GT(ess_x, 10000) << j;  // nearly independent draws in whitened coordinates
    EXPECT_NEAR(m.mean[j], mean[j], 5 * std::sqrt(cov(j, j) / ess_x)) << "mean " << j;
    EXPECT_NEAR(m.cov(j, j), cov(j, j), 5 * cov(j, j) * std::sqrt(2 / ess_sq)) << "variance " << j;
  }
  EXPECT_LT(m.extras.col(2).mean(), 8.0);  // n_leapfrog__: a few steps per transition
  // Not positive definite: refused.
  Mat bad = cov;
  bad(0, 1) = bad(1, 0) = 10.0;
  EXPECT_THROW(kernel->set_tuning(Tuning(0.8, bad.diagonal(), bad)), ConfigError);
}

}  // namespace
}  // namespace dpmcmc
