#include "models/posterior.hpp"

#include <gtest/gtest.h>

#include <utility>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "models/banana.hpp"
#include "models/gaussian.hpp"

namespace dpmcmc {
namespace {

// log p(θ) + T Σ_i log p(x_i | θ) and its gradient, one row at a time: the independent value.
// t is the model's temperature, given here rather than read from the model.
std::pair<double, Vec> row_by_row(const Model& model, const Dataset& data, const Vec& theta,
                                  double t) {
  const int d = model.dim();
  double lik = 0.0;
  Vec g = Vec::Zero(d);
  for (std::size_t i = 0; i < data.rows(); ++i) {
    Vec v(1);
    Mat gi(1, d);
    model.log_lik_rows(theta, data.block(i, 1), v);
    model.grad_log_lik_rows(theta, data.block(i, 1), gi);
    lik += v(0);
    g += gi.row(0).transpose();
  }
  Vec gp(d);
  model.grad_log_prior(theta, gp);
  return {model.log_prior(theta) + t * lik, gp + t * g};
}

// Posterior::log_density against a row-by-row sum computed here, for block sizes that divide
// the data, do not, and exceed it: log p(θ) + T Σ_i log p(x_i | θ).
TEST(Posterior, BlockedSumEqualsRowByRowSum) {
  BananaModel::Params p;
  p.a = 3.0;
  p.lik_var = Vec::Constant(3, 2.0);
  p.temperature = 0.3;
  const BananaModel model(p);
  Vec theta(3);
  theta << 0.2, -0.1, 0.5;
  Rng rng = make_rng(1, 0, Stream::data);
  const Dataset data = model.simulate(theta, 103, rng);
  const auto [want, want_grad] = row_by_row(model, data, theta, 0.3);
  for (std::size_t block : {1u, 10u, 103u, 4096u}) {
    const Posterior post(model, data, block);
    EXPECT_NEAR(post.log_density(theta), want, 1e-10 * std::abs(want)) << block;
    Vec grad;
    EXPECT_NEAR(post.log_density_gradient(theta, grad), want, 1e-10 * std::abs(want));
    EXPECT_LT((grad - want_grad).cwiseAbs().maxCoeff(), 1e-10 * (1 + want_grad.norm()));
  }
}

// The Gaussian's closed form (its LikelihoodSummary) against the sum of its rows computed here,
// value and gradient, on data centred at 1e5: a summary that forms Σ x_iᵀ P x_i − 2θᵀP Σ x_i + …
// without centring is off by about 1e-5 of the value there (numpy: 7.6e-6) and fails the 1e-10
// tolerance.
TEST(Posterior, GaussianSummaryEqualsTheSumOfItsRows) {
  Mat a(3, 3);
  a << 1.0, 0.2, -0.3, 0.0, 0.7, 0.1, 0.4, 0.0, 1.3;
  const Mat cov = a * a.transpose() + 0.1 * Mat::Identity(3, 3);
  const GaussianModel model(Vec::Zero(3), Mat::Identity(3, 3) * 1e12, cov, 0.3);
  const Vec centre = Vec::Constant(3, 1e5);
  Rng rng = make_rng(2, 0, Stream::data);
  const Dataset data = model.simulate(centre, 5000, rng);
  const auto summary = model.summarize(data);
  ASSERT_NE(summary, nullptr);
  Vec theta = centre;
  theta(1) += 0.01;
  const auto [want, want_grad] = row_by_row(model, data, theta, 0.3);
  // The summary itself (untempered), so that a Posterior that stopped using it would not leave
  // its formula untested: T Σ log p = want − log p(θ).
  const double lik = (want - model.log_prior(theta)) / 0.3;
  EXPECT_NEAR(summary->log_lik(theta), lik, 1e-10 * std::abs(lik));
  Vec prior_grad(3);
  model.grad_log_prior(theta, prior_grad);
  Vec lik_grad(3);
  summary->grad_log_lik(theta, lik_grad);
  EXPECT_LT((0.3 * lik_grad + prior_grad - want_grad).cwiseAbs().maxCoeff(),
            1e-8 * (1 + want_grad.norm()));
  const Posterior post(model, data);
  EXPECT_NEAR(post.log_density(theta), want, 1e-10 * std::abs(want));
  Vec grad;
  EXPECT_NEAR(post.log_density_gradient(theta, grad), want, 1e-10 * std::abs(want));
  EXPECT_LT((grad - want_grad).cwiseAbs().maxCoeff(), 1e-8 * (1 + want_grad.norm()));
  // A θ of the wrong size is refused, as the rows refuse it.
  EXPECT_THROW(post.log_density(Vec::Zero(2)), UsageError);
  EXPECT_THROW(summary->log_lik(Vec::Zero(4)), UsageError);
  EXPECT_THROW(summary->grad_log_lik(Vec::Zero(2), lik_grad), UsageError);
}

// No rows: no summary, and the posterior is the prior.
TEST(Posterior, GaussianWithoutRowsIsItsPrior) {
  const GaussianModel model(Vec::Zero(2), Mat::Identity(2, 2), Mat::Identity(2, 2));
  Dataset data;
  data.x = Mat::Zero(0, 2);
  EXPECT_EQ(model.summarize(data), nullptr);
  const Posterior post(model, data);
  const Vec theta = Vec::Constant(2, 0.5);
  EXPECT_DOUBLE_EQ(post.log_density(theta), model.log_prior(theta));
}

TEST(Posterior, RejectsDataOfTheWrongWidth) {
  BananaModel::Params p;
  p.lik_var = Vec::Ones(2);
  const BananaModel model(p);
  Dataset data;
  data.x = Mat::Zero(4, 3);
  EXPECT_THROW(Posterior(model, data), DataError);
}

}  // namespace
}  // namespace dpmcmc
