#include "models/gaussian_mixture.hpp"

#include <gtest/gtest.h>

#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <limits>
#include <numbers>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "model_test_util.hpp"
#include "models/posterior.hpp"

namespace dpmcmc {
namespace {

Vec theta2(double a, double b) {
  Vec t(2);
  t << a, b;
  return t;
}

// Independent value: the mixture density written with the normal pdf of Boost.Math, summed in
// linear space (safe for these moderate |x|), then logged.
double direct_log_lik(double x, const Vec& theta, double var) {
  const boost::math::normal_distribution<double> n1(theta(0), std::sqrt(var));
  const boost::math::normal_distribution<double> n2(theta(0) + theta(1), std::sqrt(var));
  return std::log(0.5 * boost::math::pdf(n1, x) + 0.5 * boost::math::pdf(n2, x));
}

TEST(GaussianMixtureModel, LogLikMatchesDirectFormula) {
  const GaussianMixtureModel model;
  Mat x(5, 1);
  x << -7.5, -1.0, 0.0, 0.8, 3.0;
  for (const Vec& theta : {theta2(0.0, 1.0), theta2(1.0, -1.0), theta2(-2.5, 2.9)}) {
    Vec out(5);
    model.log_lik_rows(theta, x, out);
    for (int i = 0; i < 5; ++i) {
      // Same quantity by different algebra: rounding only, |log p| ≤ ~20.
      EXPECT_NEAR(out(i), direct_log_lik(x(i, 0), theta, 2.0), 1e-12) << "row " << i;
    }
  }
}

// Far from both components the linear-space sum underflows; the log-sum-exp form must stay
// finite and equal to the dominant component's log density plus log(1/2) (the other term is
// e^{-huge} smaller). x = 1000, θ = (0, 1): components at 0 and 1; the second dominates by
// exp((1000² − 999²)/4) = e^{499.75}.
TEST(GaussianMixtureModel, LogLikStableFarInTheTail) {
  const GaussianMixtureModel model;
  Mat x(1, 1);
  x << 1000.0;
  Vec out(1);
  model.log_lik_rows(theta2(0.0, 1.0), x, out);
  const double want =
      std::log(0.5) - 0.5 * std::log(2 * std::numbers::pi * 2.0) - 999.0 * 999.0 / 4.0;
  EXPECT_TRUE(std::isfinite(out(0)));
  EXPECT_NEAR(out(0), want, 1e-9 * std::abs(want));
  Mat g(1, 2);
  model.grad_log_lik_rows(theta2(0.0, 1.0), x, g);
  // w2 = 1 to double precision: gradient (r2, r2)/σ² = (999/2, 999/2).
  EXPECT_NEAR(g(0, 0), 499.5, 1e-9);
  EXPECT_NEAR(g(0, 1), 499.5, 1e-9);
}

// Per-row gradient and prior gradient vs central differences. h = 1e-6: error ≲ 1e-10·|f|/h +
// h²|f'''| ≈ 1e-9 here (|f| ≲ 30); tolerance 1e-6·(1 + |g|).
TEST(GaussianMixtureModel, GradientsMatchFiniteDifferences) {
  const GaussianMixtureModel model;
  Rng rng = make_rng(11, 0, Stream::data);
  const Dataset data = model.simulate(theta2(0.0, 1.0), 30, rng);
  for (const Vec& theta : {theta2(0.0, 1.0), theta2(0.9, -1.1), theta2(-2.0, 2.5)}) {
    Mat g(30, 2);
    model.grad_log_lik_rows(theta, data.x, g);
    for (Eigen::Index i = 0; i < 30; ++i) {
      const Mat row = data.x.row(i);
      const auto f = [&](const Vec& t) {
        Vec out(1);
        model.log_lik_rows(t, row, out);
        return out(0);
      };
      const Vec fd = test::central_difference(f, theta, 1e-6);
      for (int j = 0; j < 2; ++j) {
        EXPECT_NEAR(g(i, j), fd(j), 1e-6 * (1.0 + std::abs(fd(j)))) << "row " << i << " j " << j;
      }
    }
    Vec gp(2);
    model.grad_log_prior(theta, gp);
    const Vec fdp =
        test::central_difference([&](const Vec& t) { return model.log_prior(t); }, theta, 1e-6);
    EXPECT_NEAR(gp(0), fdp(0), 1e-6);
    EXPECT_NEAR(gp(1), fdp(1), 1e-6);
  }
}

// The truncated prior integrates to 1 over its box (checks the normaliser): a 2-d midpoint rule
// with 600² cells has relative error ≈ h²/24·|f''/f| ≲ 1e-5; tolerance 1e-4. Outside: −∞.
TEST(GaussianMixtureModel, TruncatedPriorIsNormalisedOnItsBox) {
  GaussianMixtureModel::Params p;
  p.theta_bound1 = 2.0;  // cut the N(0, 10) prior of θ1 hard, so the normaliser matters
  p.theta_bound2 = 1.5;
  const GaussianMixtureModel model(p);
  const int n = 600;
  const double h1 = 4.0 / n, h2 = 3.0 / n;
  double sum = 0.0;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      sum += std::exp(model.log_prior(theta2(-2.0 + (i + 0.5) * h1, -1.5 + (j + 0.5) * h2)));
    }
  }
  EXPECT_NEAR(sum * h1 * h2, 1.0, 1e-4);
  EXPECT_EQ(model.log_prior(theta2(2.01, 0.0)), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(model.log_prior(theta2(0.0, -1.6)), -std::numeric_limits<double>::infinity());
}

// Assumption 1 of [ZhangZhang2023]: |log p(x|θ′) − log p(x|θ)| ≤ c(x)·‖θ′ − θ‖ for θ, θ′ in the
// box, checked on 20 000 random pairs × 9 rows spread over [−R, R] (including ±R, where c is
// largest relative to typical gradients). Pairs are drawn both uniformly over the box and as short
// steps near the corners, where the gradient bound is approached. A violation by more than rounding
// fails.
TEST(GaussianMixtureModel, RatioBoundHoldsOnRandomPairs) {
  const GaussianMixtureModel model;
  Mat x(9, 1);
  x << -8.0, -5.0, -2.0, -0.5, 0.0, 0.7, 3.0, 6.0, 8.0;
  Vec c(9);
  model.row_bounds(x, c);
  Rng rng = make_rng(12, 0);
  double worst = 0.0;  // largest observed |Δ log p| / (c M)
  Vec a(9), b(9);
  for (int k = 0; k < 20000; ++k) {
    Vec t(2), u(2);
    if (k % 2 == 0) {
      t << 6.0 * rng.uniform() - 3.0, 6.0 * rng.uniform() - 3.0;
      u << 6.0 * rng.uniform() - 3.0, 6.0 * rng.uniform() - 3.0;
    } else {  // near a corner (±3, ±3), a short step that stays in the box
      const double s1 = rng.uniform() < 0.5 ? -1 : 1, s2 = rng.uniform() < 0.5 ? -1 : 1;
      t << s1 * (3.0 - 0.1 * rng.uniform()), s2 * (3.0 - 0.1 * rng.uniform());
      u << s1 * (3.0 - 0.1 * rng.uniform()), s2 * (3.0 - 0.1 * rng.uniform());
    }
    const double m = model.bound_distance(t, u);
    model.log_lik_rows(t, x, a);
    model.log_lik_rows(u, x, b);
    for (int i = 0; i < 9; ++i) {
      const double diff = std::abs(b(i) - a(i));
      EXPECT_LE(diff, c(i) * m * (1.0 + 1e-12) + 1e-12) << "x = " << x(i, 0);
      if (m > 0) worst = std::max(worst, diff / (c(i) * m));
    }
  }
  // The bound is not vacuous. Its largest ratio ‖∇ log p‖ / c on the box is ≈ 0.57 (x = ±8 at the
  // corner θ = ∓(3, 3): gradient ≈ (|x| + 3)/σx², c = √2(|x| + 6)/σx²), since the √2 and the
  // |r2| = |x| + a1 + a2 of the bound are not reached together; a short corner step aligned
  // within 45° of the gradient shows > 0.4.
  EXPECT_GT(worst, 0.4);
  // The closed form: c = √2(|x| + 6)/2 at x = −5.
  EXPECT_NEAR(c(1), std::numbers::sqrt2 * 11.0 / 2.0, 1e-14);
  EXPECT_DOUBLE_EQ(model.bound_distance(theta2(0, 0), theta2(3, 4)), 5.0);
}

TEST(GaussianMixtureModel, RowBoundsRefuseRowsOutsideTheRange) {
  const GaussianMixtureModel model;  // R = 8
  Mat x(4, 1);
  x << 0.0, 1.0, 8.5, 2.0;
  Vec c(4);
  try {
    model.row_bounds(x, c);
    FAIL() << "expected a DataError";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("row 3"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("8.5"), std::string::npos) << e.what();
  }
  x(2, 0) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(model.row_bounds(x, c), DataError);
  Mat wide(2, 2);
  wide.setZero();
  Vec c2(2);
  EXPECT_THROW(model.row_bounds(wide, c2), DataError);  // wrong number of data columns
}

TEST(GaussianMixtureModel, RejectsBadParameters) {
  GaussianMixtureModel::Params p;
  p.temperature = 0.0;
  EXPECT_THROW(GaussianMixtureModel{p}, ConfigError);
  p = {};
  p.sigma_x2 = -1.0;
  EXPECT_THROW(GaussianMixtureModel{p}, ConfigError);
  p = {};
  p.data_range = std::numeric_limits<double>::infinity();
  EXPECT_THROW(GaussianMixtureModel{p}, ConfigError);
  p = {};
  p.theta_bound2 = 0.0;
  EXPECT_THROW(GaussianMixtureModel{p}, ConfigError);
  const GaussianMixtureModel model;
  Rng rng = make_rng(1, 0);
  EXPECT_THROW(model.simulate(theta2(50.0, 0.0), 10, rng), ConfigError);  // no mass in [−8, 8]
  EXPECT_THROW(model.log_prior(Vec::Zero(3)), UsageError);
}

// simulate() draws the truncated mixture: with R = 3 ([ZhangZhang2023]'s truncation, 5.7% of the
// mass cut) the sample mean of 10⁵ rows matches the truncated mixture's mean computed from Boost's
// normal cdf/pdf (truncated-normal means: μ + σ(φ(α) − φ(β))/(Φ(β) − Φ(α)), weighted by each
// component's in-range mass). sd of x ≤ 1.5, so SE ≤ 0.005; band 5 SE = 0.025. Every row lies in
// [−3, 3].
TEST(GaussianMixtureModel, SimulateDrawsTheTruncatedMixture) {
  GaussianMixtureModel::Params p;
  p.data_range = 3.0;
  const GaussianMixtureModel model(p);
  Rng rng = make_rng(13, 0, Stream::data);
  const Dataset data = model.simulate(theta2(0.0, 1.0), 100000, rng);
  ASSERT_EQ(data.columns, std::vector<std::string>{"x"});
  EXPECT_LE(data.x.cwiseAbs().maxCoeff(), 3.0);
  const boost::math::normal_distribution<double> z;
  const double s = std::sqrt(2.0);
  double mass = 0.0, first = 0.0;
  for (double mu : {0.0, 1.0}) {
    const double al = (-3.0 - mu) / s, be = (3.0 - mu) / s;
    const double w = boost::math::cdf(z, be) - boost::math::cdf(z, al);
    const double m = mu + s * (boost::math::pdf(z, al) - boost::math::pdf(z, be)) / w;
    mass += 0.5 * w;
    first += 0.5 * w * m;
  }
  EXPECT_NEAR(data.x.mean(), first / mass, 0.025);
}

}  // namespace
}  // namespace dpmcmc
