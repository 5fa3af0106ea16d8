#include "models/posterior.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "models/banana.hpp"

namespace dpmcmc {
namespace {

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
  double lik = 0.0;
  Vec g = Vec::Zero(3);
  for (std::size_t i = 0; i < data.rows(); ++i) {
    Vec v(1);
    Mat gi(1, 3);
    model.log_lik_rows(theta, data.block(i, 1), v);
    model.grad_log_lik_rows(theta, data.block(i, 1), gi);
    lik += v(0);
    g += gi.row(0).transpose();
  }
  Vec gp(3);
  model.grad_log_prior(theta, gp);
  const double want = model.log_prior(theta) + 0.3 * lik;
  const Vec want_grad = gp + 0.3 * g;
  for (std::size_t block : {1u, 10u, 103u, 4096u}) {
    const Posterior post(model, data, block);
    EXPECT_NEAR(post.log_density(theta), want, 1e-10 * std::abs(want)) << block;
    Vec grad;
    EXPECT_NEAR(post.log_density_gradient(theta, grad), want, 1e-10 * std::abs(want));
    EXPECT_LT((grad - want_grad).cwiseAbs().maxCoeff(), 1e-10 * (1 + want_grad.norm()));
  }
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
