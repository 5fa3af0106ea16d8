#include "models/banana.hpp"

#include <gtest/gtest.h>

#include <boost/math/distributions/normal.hpp>
#include <cmath>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "model_test_util.hpp"
#include "models/posterior.hpp"

namespace dpmcmc {
namespace {

double normal_log_pdf(double x, double mean, double var) {
  return std::log(boost::math::pdf(boost::math::normal(mean, std::sqrt(var)), x));
}

BananaModel shifted_banana(double temperature) {
  BananaModel::Params p;
  p.a = 1.0;
  p.b = 0.2;
  p.m = 0.3;
  p.prior_var = 10.0;
  p.lik_var = Vec(2);
  p.lik_var << 1.0, 1.5;
  p.temperature = temperature;
  return BananaModel(p);
}

// Theorem 5.2's model written out with Boost's normal density: x1 ~ N(θ1, σ1²),
// x2 ~ N(θ2 + a(θ1 − m)² + b, σ2²), x3 ~ N(θ3, σ3²); prior N(0, σ0²) on θ1, θ2 + a(θ1 − m)² + b
// and θ3.
TEST(BananaModel, DensitiesMatchDefinition) {
  BananaModel::Params p;
  p.a = 2.0;
  p.b = -0.5;
  p.m = 0.25;
  p.prior_var = 30.0;
  p.lik_var = Vec(3);
  p.lik_var << 20.0, 2.5, 1.0;
  const BananaModel model(p);
  Vec theta(3);
  theta << 0.4, 1.7, -0.6;
  const double phi2 = 1.7 + 2.0 * 0.15 * 0.15 - 0.5;
  Mat x(2, 3);
  x << 0.1, 2.0, -1.0, -3.0, 0.5, 0.7;
  Vec out(2);
  model.log_lik_rows(theta, x, out);
  for (int i = 0; i < 2; ++i) {
    const double want = normal_log_pdf(x(i, 0), 0.4, 20.0) + normal_log_pdf(x(i, 1), phi2, 2.5) +
                        normal_log_pdf(x(i, 2), -0.6, 1.0);
    EXPECT_NEAR(out(i), want, 1e-12);
  }
  const double prior =
      normal_log_pdf(0.4, 0, 30.0) + normal_log_pdf(phi2, 0, 30.0) + normal_log_pdf(-0.6, 0, 30.0);
  EXPECT_NEAR(model.log_prior(theta), prior, 1e-12);
  const Vec phi = model.to_gaussian(theta);
  EXPECT_NEAR(phi(1), phi2, 1e-15);
  EXPECT_LT((model.from_gaussian(phi) - theta).cwiseAbs().maxCoeff(), 1e-15);
}

// The exact sampler and Theorem 5.2 against an independent computation: moments of the
// unnormalised posterior exp(log p(θ) + T Σ log p(x_i|θ)) (Posterior::log_density) by the
// midpoint rule on a θ-grid. With n = 10 and T = 0.5 the posterior is wide (sd ≈ 0.4), so a
// 0.01-spaced grid over ±9 sd resolves it: the midpoint rule on a smooth, rapidly decaying
// integrand is accurate far below the 1e-6 checked here.
class BananaQuadrature : public ::testing::Test {
 protected:
  void SetUp() override {
    Vec theta(2);
    theta << 0.5, 1.0;
    Rng rng = make_rng(21, 0, Stream::data);
    data_ = model_.simulate(theta, 10, rng);
    const Posterior post(model_, data_);
    const auto g = model_.gaussian_posterior(data_);
    const double sd1 = std::sqrt(g.var(0)), sd2 = std::sqrt(g.var(1));
    const double p = model_.params().a, m = model_.params().m, b = model_.params().b;
    const double lo1 = g.mean(0) - 9 * sd1, hi1 = g.mean(0) + 9 * sd1;
    const double worst = std::max(std::pow(lo1 - m, 2), std::pow(hi1 - m, 2));
    const double lo2 = g.mean(1) - 9 * sd2 - p * worst - b, hi2 = g.mean(1) + 9 * sd2 - b;
    const int n1 = 800, n2 = static_cast<int>((hi2 - lo2) / 0.01);
    const double h1 = (hi1 - lo1) / n1, h2 = (hi2 - lo2) / n2;
    // Log densities first, then weights relative to the maximum (no overflow or underflow).
    Mat lp(n1, n2);
    Vec t(2);
    for (int i = 0; i < n1; ++i) {
      t(0) = lo1 + (i + 0.5) * h1;
      for (int j = 0; j < n2; ++j) {
        t(1) = lo2 + (j + 0.5) * h2;
        lp(i, j) = post.log_density(t);
      }
    }
    const Mat w = (lp.array() - lp.maxCoeff()).exp();
    double z = 0, s1 = 0, s2 = 0, s11 = 0, s22 = 0, s12 = 0;
    for (int i = 0; i < n1; ++i) {
      const double t1 = lo1 + (i + 0.5) * h1;
      for (int j = 0; j < n2; ++j) {
        const double t2 = lo2 + (j + 0.5) * h2, wij = w(i, j);
        z += wij;
        s1 += wij * t1;
        s2 += wij * t2;
        s11 += wij * t1 * t1;
        s22 += wij * t2 * t2;
        s12 += wij * t1 * t2;
      }
    }
    mean_ << s1 / z, s2 / z;
    cov_ << s11 / z - mean_(0) * mean_(0), s12 / z - mean_(0) * mean_(1),
        s12 / z - mean_(0) * mean_(1), s22 / z - mean_(1) * mean_(1);
  }

  BananaModel model_ = shifted_banana(0.5);
  Dataset data_;
  Eigen::Vector2d mean_;
  Eigen::Matrix2d cov_;
};

// Closed-form moments of θ = g(φ), φ ~ N(μ, diag v) (Theorem 5.2): E θ1 = μ1, Var θ1 = v1,
// E θ2 = μ2 − a(v1 + (μ1 − m)²) − b, Var θ2 = v2 + a²(2v1² + 4(μ1 − m)² v1),
// Cov(θ1, θ2) = −2a(μ1 − m) v1. Agreement with quadrature to 1e-6 checks Theorem 5.2's μ and v
// (as implemented) against the density itself.
TEST_F(BananaQuadrature, TheoremMomentsMatchQuadrature) {
  const auto g = model_.gaussian_posterior(data_);
  const double a = model_.params().a, m = model_.params().m, b = model_.params().b;
  const double mu1 = g.mean(0), mu2 = g.mean(1), v1 = g.var(0), v2 = g.var(1);
  const double c = mu1 - m;
  EXPECT_NEAR(mean_(0), mu1, 1e-6);
  EXPECT_NEAR(mean_(1), mu2 - a * (v1 + c * c) - b, 1e-6);
  EXPECT_NEAR(cov_(0, 0), v1, 1e-6);
  EXPECT_NEAR(cov_(1, 1), v2 + a * a * (2 * v1 * v1 + 4 * c * c * v1), 1e-6);
  EXPECT_NEAR(cov_(0, 1), -2 * a * c * v1, 1e-6);
  // The check has teeth: the posterior is visibly curved and tempering matters.
  EXPECT_GT(std::abs(cov_(0, 1)), 0.05);
  const auto untempered = shifted_banana(1.0).gaussian_posterior(data_);
  EXPECT_GT(std::abs(untempered.var(0) - v1), 0.05);
}

// Exact draws against the quadrature moments, within 5 Monte Carlo standard errors estimated
// from the draws themselves (θ2 is skewed, so the Gaussian formula for the SE of a variance
// would be wrong): mean SE = s/√N, variance SE = sqrt((m4 − s⁴)/N), covariance SE =
// sd((θ1 − θ̄1)(θ2 − θ̄2))/√N. 5 SE: false-failure probability ≈ 6e-7 per check.
TEST_F(BananaQuadrature, ExactDrawsMatchQuadrature) {
  Rng rng = make_rng(22, 0, Stream::exact);
  const Eigen::Index n = 200000;
  const Mat draws = model_.sample_posterior(data_, n, rng);
  ASSERT_EQ(draws.rows(), n);
  const Vec mean = test::sample_mean(draws);
  const Mat cov = test::sample_cov(draws);
  const Mat centred = draws.rowwise() - mean.transpose();
  const double N = static_cast<double>(n);
  for (int j = 0; j < 2; ++j) {
    const double m4 = centred.col(j).array().pow(4).mean();
    EXPECT_NEAR(mean(j), mean_(j), 5 * std::sqrt(cov(j, j) / N)) << "mean " << j;
    EXPECT_NEAR(cov(j, j), cov_(j, j), 5 * std::sqrt((m4 - cov(j, j) * cov(j, j)) / N))
        << "variance " << j;
  }
  const Vec prod = centred.col(0).cwiseProduct(centred.col(1));
  const double prod_sd = std::sqrt((prod.array() - prod.mean()).square().sum() / (N - 1));
  EXPECT_NEAR(cov(0, 1), cov_(0, 1), 5 * prod_sd / std::sqrt(N));
}

// Simulated data: column means φ(θ) within 5 standard errors σ_j/√n, variances σ_j² within 5
// standard errors σ_j²·sqrt(2/n) (Gaussian columns).
TEST(BananaModel, SimulateHasRequestedMoments) {
  const BananaModel model = shifted_banana(1.0);
  Vec theta(2);
  theta << 0.9, -0.5;
  Rng rng = make_rng(4, 0, Stream::data);
  const std::size_t n = 100000;
  const Dataset data = model.simulate(theta, n, rng);
  ASSERT_EQ(data.rows(), n);
  ASSERT_EQ(data.cols(), 2u);
  EXPECT_EQ(data.columns, (std::vector<std::string>{"x.1", "x.2"}));
  const Vec phi = model.to_gaussian(theta);
  const Vec mean = test::sample_mean(data.x);
  const Mat cov = test::sample_cov(data.x);
  const Vec& var = model.params().lik_var;
  const double N = static_cast<double>(n);
  for (int j = 0; j < 2; ++j) {
    EXPECT_NEAR(mean(j), phi(j), 5 * std::sqrt(var(j) / N));
    EXPECT_NEAR(cov(j, j), var(j), 5 * var(j) * std::sqrt(2.0 / N));
  }
  EXPECT_NEAR(cov(0, 1), 0.0, 5 * std::sqrt(var(0) * var(1) / N));
}

TEST(BananaModel, RejectsBadConfiguration) {
  BananaModel::Params p;
  p.lik_var = Vec::Ones(1);
  EXPECT_THROW(BananaModel{p}, ConfigError);  // d < 2
  p.lik_var = Vec::Ones(2);
  p.lik_var(1) = 0.0;
  EXPECT_THROW(BananaModel{p}, ConfigError);
  p.lik_var(1) = 1.0;
  p.prior_var = -1.0;
  EXPECT_THROW(BananaModel{p}, ConfigError);
  p.prior_var = 1.0;
  p.temperature = 0.0;
  EXPECT_THROW(BananaModel{p}, ConfigError);
  p.temperature = 1.0;
  p.a = std::nan("");
  EXPECT_THROW(BananaModel{p}, ConfigError);
  p.a = 1.0;
  EXPECT_NO_THROW(BananaModel{p});
}

}  // namespace
}  // namespace dpmcmc
