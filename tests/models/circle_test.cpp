#include "models/circle.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "model_test_util.hpp"

namespace dpmcmc {
namespace {

// By hand: θ = (1, 2), r = 3: |θ|² − r² = 5 − 9 = −4, log-lik = −a·16; gradient −4a(−4)θ.
TEST(CircleModel, LogLikAndGradientByHand) {
  const CircleModel model(0.5);
  Vec theta(2);
  theta << 1.0, 2.0;
  Mat r(2, 1);
  r << 3.0, -1.0;  // r enters squared: r = −1 gives |θ|² − 1 = 4
  Vec out(2);
  model.log_lik_rows(theta, r, out);
  EXPECT_DOUBLE_EQ(out(0), -0.5 * 16.0);
  EXPECT_DOUBLE_EQ(out(1), -0.5 * 16.0);
  Mat g(2, 2);
  model.grad_log_lik_rows(theta, r, g);
  EXPECT_DOUBLE_EQ(g(0, 0), 8.0);
  EXPECT_DOUBLE_EQ(g(0, 1), 16.0);
  EXPECT_DOUBLE_EQ(g(1, 0), -8.0);
  EXPECT_DOUBLE_EQ(g(1, 1), -16.0);
  EXPECT_EQ(model.log_prior(theta), 0.0);
  Vec gp(2);
  model.grad_log_prior(theta, gp);
  EXPECT_EQ(gp, Vec::Zero(2));
}

// r ~ N(3, 1) whatever θ: mean within 5 standard errors 1/√n, variance within 5·sqrt(2/n); the
// same seed with another θ gives the same rows.
TEST(CircleModel, SimulateIgnoresTheta) {
  const CircleModel model;
  Rng rng = make_rng(8, 0, Stream::data);
  const Dataset data = model.simulate(Vec::Zero(2), 100000, rng);
  ASSERT_EQ(data.x.cols(), 1);
  EXPECT_EQ(data.columns, std::vector<std::string>{"r"});
  const double N = 100000;
  EXPECT_NEAR(data.x.mean(), 3.0, 5 / std::sqrt(N));
  EXPECT_NEAR(test::sample_cov(data.x)(0, 0), 1.0, 5 * std::sqrt(2 / N));
  Rng rng2 = make_rng(8, 0, Stream::data);
  Vec other(2);
  other << 5.0, -7.0;
  EXPECT_EQ(model.simulate(other, 100, rng2).x, data.x.topRows(100));
}

TEST(CircleModel, NoExactPosterior) {
  const CircleModel model;
  EXPECT_FALSE(model.has_exact_posterior());
  Rng rng = make_rng(1, 0);
  Dataset data = model.simulate(Vec::Zero(2), 5, rng);
  EXPECT_THROW(model.sample_posterior(data, 3, rng), SoftwareError);
}

TEST(CircleModel, RejectsBadConfiguration) {
  EXPECT_THROW(CircleModel(0.0), ConfigError);
  EXPECT_THROW(CircleModel(-1.0), ConfigError);
  EXPECT_THROW(CircleModel(1e-5, 3.0, -1.0), ConfigError);
  EXPECT_THROW(CircleModel(1e-5, 3.0, 1.0, 2.0), ConfigError);
  const CircleModel model;
  Vec out(3);
  EXPECT_THROW(model.log_lik_rows(Vec::Zero(2), Mat::Zero(3, 2), out), DataError);
}

}  // namespace
}  // namespace dpmcmc
