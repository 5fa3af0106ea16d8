#include "models/gaussian.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "model_test_util.hpp"
#include "models/banana.hpp"

namespace dpmcmc {
namespace {

GaussianModel correlated_2d(double rho, double temperature = 1.0) {
  Mat cov(2, 2);
  cov << 1.5, rho * std::sqrt(1.5 * 0.8), rho * std::sqrt(1.5 * 0.8), 0.8;
  Mat cov0(2, 2);
  cov0 << 9.0, -1.0, -1.0, 4.0;
  Vec mu0(2);
  mu0 << 1.0, -2.0;
  return GaussianModel(mu0, cov0, cov, temperature);
}

// Independent value: the bivariate normal log-density written with σ1, σ2, ρ.
double bivariate_log_pdf(double x1, double x2, double m1, double m2, double s1, double s2,
                         double rho) {
  const double z1 = (x1 - m1) / s1, z2 = (x2 - m2) / s2;
  const double q = (z1 * z1 - 2.0 * rho * z1 * z2 + z2 * z2) / (1.0 - rho * rho);
  return -std::log(2.0 * std::numbers::pi * s1 * s2 * std::sqrt(1.0 - rho * rho)) - 0.5 * q;
}

TEST(GaussianModel, LogLikMatchesBivariateFormula) {
  const double rho = 0.7;
  const GaussianModel model = correlated_2d(rho);
  Mat x(3, 2);
  x << 0.3, -0.2, 2.0, 1.0, -1.5, 0.4;
  Vec theta(2);
  theta << 0.5, 0.1;
  Vec out(3);
  model.log_lik_rows(theta, x, out);
  for (int i = 0; i < 3; ++i) {
    const double want =
        bivariate_log_pdf(x(i, 0), x(i, 1), 0.5, 0.1, std::sqrt(1.5), std::sqrt(0.8), rho);
    EXPECT_NEAR(out(i), want, 1e-12);  // same quantity, different algebra: rounding only
  }
  // The prior: N((1, −2), [[9, −1], [−1, 4]]), ρ0 = −1/6.
  EXPECT_NEAR(model.log_prior(theta), bivariate_log_pdf(0.5, 0.1, 1.0, -2.0, 3.0, 2.0, -1.0 / 6.0),
              1e-12);
}

// Independent value: the posterior in the form of BDA Section 3.5 with Σ_n = Σ/(Tn),
//   cov = Σ0 (Σ0 + Σ_n)⁻¹ Σ_n,  mean = Σ_n (Σ0 + Σ_n)⁻¹ μ0 + Σ0 (Σ0 + Σ_n)⁻¹ x̄,
// which never forms the precision matrices the implementation uses.
TEST(GaussianModel, PosteriorMomentsMatchCovarianceForm) {
  const double t = 0.4;
  const GaussianModel model = correlated_2d(0.9, t);
  Vec theta(2);
  theta << 0.7, -0.3;
  Rng rng = make_rng(11, 0, Stream::data);
  const Dataset data = model.simulate(theta, 50, rng);
  const auto m = model.posterior_moments(data);

  const double n = 50;
  const Mat sn = model.covariance() / (t * n);
  const Mat s0 = model.prior_covariance();
  const Mat inv = (s0 + sn).inverse();
  const Vec xbar = data.x.colwise().mean().transpose();
  const Mat cov = s0 * inv * sn;
  const Vec mean = sn * inv * model.prior_mean() + s0 * inv * xbar;
  EXPECT_LT((m.cov - cov).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LT((m.mean - mean).cwiseAbs().maxCoeff(), 1e-12);
}

// 1-d conjugate update by hand: precision 1/s0² + Tn/s², mean (μ0/s0² + TΣx/s²)/precision.
TEST(GaussianModel, OneDimensionalConjugateUpdate) {
  const GaussianModel model(Vec::Constant(1, 2.0), Mat::Constant(1, 1, 9.0),
                            Mat::Constant(1, 1, 4.0), 0.5);
  Dataset data;
  data.x.resize(3, 1);
  data.x << 1.0, 2.0, 4.5;
  data.columns = {"x.1"};
  const auto m = model.posterior_moments(data);
  const double prec = 1.0 / 9.0 + 0.5 * 3.0 / 4.0;
  EXPECT_NEAR(m.cov(0, 0), 1.0 / prec, 1e-14);
  EXPECT_NEAR(m.mean(0), (2.0 / 9.0 + 0.5 * 7.5 / 4.0) / prec, 1e-14);
  // No data: the posterior is the prior.
  Dataset empty;
  empty.x.resize(0, 1);
  const auto p = model.posterior_moments(empty);
  EXPECT_NEAR(p.mean(0), 2.0, 1e-14);
  EXPECT_NEAR(p.cov(0, 0), 9.0, 1e-13);
}

// Exact draws against the closed form. With N = 40000 draws the mean of component j has standard
// error sqrt(C_jj/N) and a sample covariance entry sqrt((C_ii C_jj + C_ij²)/N) (Gaussian draws);
// 5 standard errors make a false failure (≈6e-7 per check) negligible while a wrong factor or
// a transposed Cholesky solve (wrong correlation sign or scale) is off by far more.
TEST(GaussianModel, ExactDrawsMatchClosedForm) {
  const GaussianModel model = correlated_2d(0.999);
  Vec theta(2);
  theta << 0.0, 3.0;
  Rng data_rng = make_rng(5, 0, Stream::data);
  const Dataset data = model.simulate(theta, 2000, data_rng);
  const auto m = model.posterior_moments(data);
  Rng rng = make_rng(5, 0, Stream::exact);
  const std::size_t n = 40000;
  const Mat draws = model.sample_posterior(data, n, rng);
  ASSERT_EQ(draws.rows(), 40000);
  ASSERT_EQ(draws.cols(), 2);
  const Vec mean = test::sample_mean(draws);
  const Mat cov = test::sample_cov(draws);
  const double N = static_cast<double>(n);
  for (int i = 0; i < 2; ++i) {
    EXPECT_NEAR(mean(i), m.mean(i), 5.0 * std::sqrt(m.cov(i, i) / N));
    for (int j = 0; j < 2; ++j) {
      const double se = std::sqrt((m.cov(i, i) * m.cov(j, j) + m.cov(i, j) * m.cov(i, j)) / N);
      EXPECT_NEAR(cov(i, j), m.cov(i, j), 5.0 * se) << i << "," << j;
    }
  }
  // The correlation is far from 0 here (≈ 0.999 at n = 2000): a sampler ignoring it fails.
  EXPECT_GT(m.cov(0, 1) / std::sqrt(m.cov(0, 0) * m.cov(1, 1)), 0.99);
}

// Simulated rows: mean θ (5 standard errors sqrt(Σ_jj/n)) and covariance Σ (5 standard errors as
// above).
TEST(GaussianModel, SimulateHasRequestedMoments) {
  const GaussianModel model = correlated_2d(-0.6);
  Vec theta(2);
  theta << -1.0, 2.0;
  Rng rng = make_rng(9, 0, Stream::data);
  const std::size_t n = 100000;
  const Dataset data = model.simulate(theta, n, rng);
  ASSERT_EQ(data.rows(), n);
  ASSERT_EQ(data.columns, (std::vector<std::string>{"x.1", "x.2"}));
  const Mat& s = model.covariance();
  const Vec mean = test::sample_mean(data.x);
  const Mat cov = test::sample_cov(data.x);
  const double N = static_cast<double>(n);
  for (int i = 0; i < 2; ++i) {
    EXPECT_NEAR(mean(i), theta(i), 5.0 * std::sqrt(s(i, i) / N));
    for (int j = 0; j < 2; ++j) {
      EXPECT_NEAR(cov(i, j), s(i, j), 5.0 * std::sqrt((s(i, i) * s(j, j) + s(i, j) * s(i, j)) / N));
    }
  }
  // Rows are drawn one at a time: a shorter dataset from the same seed is a prefix.
  Rng rng2 = make_rng(9, 0, Stream::data);
  const Dataset head = model.simulate(theta, 10, rng2);
  EXPECT_EQ(head.x, data.x.topRows(10));
}

// The banana with a = 0 is this Gaussian model with a diagonal covariance and prior σ0² I:
// identical log-likelihoods and prior and the same posterior moments (two implementations).
TEST(GaussianModel, AgreesWithBananaAtZeroCurvature) {
  BananaModel::Params p;
  p.a = 0.0;
  p.prior_var = 50.0;
  p.lik_var = Vec(3);
  p.lik_var << 20.0, 2.5, 1.0;
  p.temperature = 0.1;
  const BananaModel banana(p);
  const GaussianModel gauss(Vec::Zero(3), Mat::Identity(3, 3) * 50.0, Mat(p.lik_var.asDiagonal()),
                            0.1);
  Vec theta(3);
  theta << 0.2, 3.1, -0.4;
  Rng rng = make_rng(3, 0, Stream::data);
  const Dataset data = banana.simulate(theta, 200, rng);
  Vec a(200), b(200);
  banana.log_lik_rows(theta, data.x, a);
  gauss.log_lik_rows(theta, data.x, b);
  EXPECT_LT((a - b).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_NEAR(banana.log_prior(theta), gauss.log_prior(theta), 1e-12);
  const auto g = gauss.posterior_moments(data);
  const auto bp = banana.gaussian_posterior(data);
  EXPECT_LT((g.mean - bp.mean).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LT((g.cov.diagonal() - bp.var).cwiseAbs().maxCoeff(), 1e-15);
  EXPECT_LT(std::abs(g.cov(0, 1)), 1e-15);
}

TEST(GaussianModel, RejectsBadConfiguration) {
  const Mat id = Mat::Identity(2, 2);
  Mat not_pd(2, 2);
  not_pd << 1.0, 2.0, 2.0, 1.0;
  Mat asym(2, 2);
  asym << 1.0, 0.5, 0.0, 1.0;
  EXPECT_THROW(GaussianModel(Vec::Zero(2), id, not_pd), ConfigError);
  EXPECT_THROW(GaussianModel(Vec::Zero(2), not_pd, id), ConfigError);
  EXPECT_THROW(GaussianModel(Vec::Zero(2), id, asym), ConfigError);
  EXPECT_THROW(GaussianModel(Vec::Zero(2), Mat::Identity(3, 3), id), ConfigError);
  EXPECT_THROW(GaussianModel(Vec::Zero(2), id, id, 0.0), ConfigError);
  EXPECT_THROW(GaussianModel(Vec::Zero(2), id, id, 1.5), ConfigError);
  Vec nan_mean = Vec::Zero(2);
  nan_mean(0) = std::nan("");
  EXPECT_THROW(GaussianModel(nan_mean, id, id), ConfigError);
  try {
    GaussianModel(Vec::Zero(2), id, not_pd);
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("likelihood covariance"), std::string::npos);
  }
}

TEST(GaussianModel, RejectsMismatchedArguments) {
  const GaussianModel model = correlated_2d(0.5);
  Mat rows3 = Mat::Zero(4, 3);
  Vec out(4);
  EXPECT_THROW(model.log_lik_rows(Vec::Zero(2), rows3, out), DataError);
  EXPECT_THROW(model.log_lik_rows(Vec::Zero(3), Mat::Zero(4, 2), out), UsageError);
  Vec short_out(3);
  EXPECT_THROW(model.log_lik_rows(Vec::Zero(2), Mat::Zero(4, 2), short_out), SoftwareError);
  Dataset bad;
  bad.x = Mat::Zero(5, 3);
  Rng rng = make_rng(1, 0);
  EXPECT_THROW(model.sample_posterior(bad, 3, rng), DataError);
}

}  // namespace
}  // namespace dpmcmc
