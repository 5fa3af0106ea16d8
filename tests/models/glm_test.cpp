// The regression families (models/glm.hpp) against independent values: Boost.Math's densities
// and distribution functions (long double in the probit tail), central differences for every
// gradient, and the logistic family's ratio bound on random pairs of coefficients.
#include "models/glm.hpp"

#include <gtest/gtest.h>

#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/poisson.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <boost/math/special_functions/erf.hpp>
#include <cmath>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "model_test_util.hpp"

namespace dpmcmc {
namespace {

GlmSpec spec_of(GlmFamily family, int p, std::optional<double> sigma = std::nullopt) {
  GlmSpec s;
  s.family = family;
  for (int j = 0; j < p; ++j) {
    s.coefficient_names.push_back(j == 0 ? "intercept" : "b" + std::to_string(j));
    s.coefficient_priors.push_back({ScalarPrior::Kind::normal, 1.0, 0.0, 2.5});
    s.column_bounds.push_back(1.0);
  }
  s.sigma = sigma;
  s.row_norm_bound = std::sqrt(static_cast<double>(p));
  s.y_low = -5;
  s.y_high = family == GlmFamily::poisson ? 30 : 5;
  return s;
}

// Rows (1, u_1, …) with u uniform in [−1, 1] and the given targets.
Mat rows_with(const std::vector<double>& y, int p, Rng& rng) {
  Mat x(static_cast<Eigen::Index>(y.size()), p + 1);
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    x(i, 0) = 1.0;
    for (int j = 1; j < p; ++j) x(i, j) = 2.0 * rng.uniform() - 1.0;
    x(i, p) = y[static_cast<std::size_t>(i)];
  }
  return x;
}

double independent_loglik(GlmFamily f, double y, double z, double sigma) {
  namespace bm = boost::math;
  switch (f) {
    case GlmFamily::logistic: {
      const double p = 1.0 / (1.0 + std::exp(-z));
      return y == 1.0 ? std::log(p) : std::log1p(-p);
    }
    case GlmFamily::probit: {
      const long double t = (2.0L * y - 1.0L) * z;
      return static_cast<double>(std::log(0.5L * bm::erfc(-t / std::sqrt(2.0L))));
    }
    case GlmFamily::poisson:
      return std::log(bm::pdf(bm::poisson_distribution<double>(std::exp(z)), y));
    case GlmFamily::linear:
    case GlmFamily::normal:
      return std::log(bm::pdf(bm::normal_distribution<double>(z, sigma), y));
  }
  return 0.0;
}

TEST(Glm, LogLikelihoodMatchesBoost) {
  Rng rng = make_rng(5, 0);
  const int p = 3;
  struct Case {
    GlmFamily family;
    std::vector<double> y;
    std::optional<double> sigma;
  };
  const std::vector<Case> cases = {{GlmFamily::logistic, {0, 1, 1, 0, 1}, {}},
                                   {GlmFamily::probit, {0, 1, 1, 0, 1}, {}},
                                   {GlmFamily::poisson, {0, 3, 7, 1, 12}, {}},
                                   {GlmFamily::linear, {-1.5, 0.3, 2.2, 4, -3}, 1.7},
                                   {GlmFamily::linear, {-1.5, 0.3, 2.2, 4, -3}, {}}};
  for (const auto& c : cases) {
    const auto model = make_glm_model(spec_of(c.family, p, c.sigma));
    const Mat rows = rows_with(c.y, p, rng);
    Vec theta(model->dim());
    theta.head(3) << 0.3, -1.2, 0.8;
    if (model->dim() == 4) theta(3) = std::log(0.9);
    const double sigma = c.sigma.value_or(0.9);
    Vec out(rows.rows());
    model->log_lik_rows(theta, rows, out);
    for (Eigen::Index i = 0; i < rows.rows(); ++i) {
      const double z = rows.row(i).head(p).dot(theta.head(p));
      EXPECT_NEAR(out(i), independent_loglik(c.family, rows(i, p), z, sigma), 1e-12)
          << to_string(c.family) << " row " << i;
    }
  }
}

// The probit family's far tails, where Φ underflows a double: log Φ(t) from long double erfc.
TEST(Glm, ProbitTailsStayFiniteAndAccurate) {
  const auto model = make_glm_model(spec_of(GlmFamily::probit, 1));
  for (const double z : {-5.0, -29.9, -30.1, -38.0, -45.0, -80.0, 8.0, 40.0}) {
    Mat row(1, 2);
    row << 1.0, 1.0;
    Vec out(1), theta = Vec::Constant(1, z);
    model->log_lik_rows(theta, row, out);
    const double want = independent_loglik(GlmFamily::probit, 1.0, z, 1.0);
    EXPECT_NEAR(out(0), want, 1e-9 * std::max(1.0, std::abs(want))) << z;
    Mat g(1, 1);
    model->grad_log_lik_rows(theta, row, g);
    // d/dz log Φ(z) = φ(z)/Φ(z), in long double (exp(−z²/2) is representable to |z| ≈ 150).
    const long double t = z;
    const long double phi = std::exp(-t * t / 2) / std::sqrt(2.0L * 3.14159265358979323846L);
    const long double cdf = 0.5L * boost::math::erfc(-t / std::sqrt(2.0L));
    EXPECT_NEAR(g(0, 0), static_cast<double>(phi / cdf), 1e-8 * std::max(1.0, std::abs(z))) << z;
  }
}

TEST(Glm, GradientsMatchCentralDifferences) {
  Rng rng = make_rng(6, 0);
  const int p = 3;
  for (const auto& [family, y, sigma] :
       std::vector<std::tuple<GlmFamily, std::vector<double>, std::optional<double>>>{
           {GlmFamily::logistic, {0, 1, 1}, {}},
           {GlmFamily::probit, {0, 1, 0}, {}},
           {GlmFamily::poisson, {0, 4, 9}, {}},
           {GlmFamily::linear, {-1, 2, 0.5}, 1.3},
           {GlmFamily::linear, {-1, 2, 0.5}, {}}}) {
    GlmSpec s = spec_of(family, p, sigma);
    s.coefficient_priors[1] = {ScalarPrior::Kind::student_t, 3.0, 0.5, 2.0};
    const auto model = make_glm_model(s);
    const Mat rows = rows_with(y, p, rng);
    Vec theta(model->dim());
    theta.head(3) << -0.4, 0.9, 1.1;
    if (model->dim() == 4) theta(3) = 0.2;
    Mat grad(rows.rows(), model->dim());
    model->grad_log_lik_rows(theta, rows, grad);
    for (Eigen::Index i = 0; i < rows.rows(); ++i) {
      const auto f = [&](const Vec& t) {
        Vec out(rows.rows());
        model->log_lik_rows(t, rows, out);
        return out(i);
      };
      const Vec fd = test::central_difference(f, theta, 1e-6);
      EXPECT_LT((grad.row(i).transpose() - fd).norm(), 1e-6 * (1.0 + fd.norm()))
          << to_string(family) << " row " << i;
    }
    Vec gp(model->dim());
    model->grad_log_prior(theta, gp);
    const Vec fdp =
        test::central_difference([&](const Vec& t) { return model->log_prior(t); }, theta, 1e-6);
    EXPECT_LT((gp - fdp).norm(), 1e-6) << to_string(family);
  }
}

TEST(Glm, PriorsMatchBoost) {
  namespace bm = boost::math;
  const ScalarPrior normal{ScalarPrior::Kind::normal, 1.0, 1.5, 2.0};
  const ScalarPrior t{ScalarPrior::Kind::student_t, 3.0, -1.0, 0.5};
  const ScalarPrior half{ScalarPrior::Kind::half_normal, 1.0, 0.0, 4.0};
  for (const double x : {-3.0, 0.0, 0.7, 5.0}) {
    EXPECT_NEAR(normal.log_density(x), std::log(bm::pdf(bm::normal_distribution<>(1.5, 2.0), x)),
                1e-12);
    EXPECT_NEAR(t.log_density(x),
                std::log(bm::pdf(bm::students_t_distribution<>(3.0), (x + 1.0) / 0.5) / 0.5),
                1e-12);
    // σ = e^x: density of σ times the Jacobian σ.
    const double sigma = std::exp(x);
    EXPECT_NEAR(half.log_density(x),
                std::log(2.0 * bm::pdf(bm::normal_distribution<>(0.0, 4.0), sigma) * sigma), 1e-12);
  }
}

TEST(Glm, ParsesPriorOptions) {
  const PriorOption all = parse_prior_option("student_t(3, 0, 2.5)");
  EXPECT_EQ(all.target, "");
  EXPECT_EQ(all.prior.kind, ScalarPrior::Kind::student_t);
  EXPECT_EQ(all.prior.nu, 3.0);
  const PriorOption one = parse_prior_option(" age = normal(1,0.5)");
  EXPECT_EQ(one.target, "age");
  EXPECT_EQ(one.prior.mean, 1.0);
  EXPECT_EQ(one.prior.scale, 0.5);
  EXPECT_EQ(parse_prior_option("sigma=half_normal(3)").prior.scale, 3.0);
  for (const char* bad :
       {"normal(0)", "normal(0, -1)", "cauchy(0, 1)", "normal 0 1", "=normal(0,1)", "normal(0, x)",
        "half_normal(2)", "sigma=normal(0, 1)", "student_t(0, 0, 1)"}) {
    EXPECT_THROW(parse_prior_option(bad), UsageError) << bad;
  }
}

// [ZhangZhang2023] Assumption 1 for the logistic family: |Δℓ_i| ≤ c_i ‖β′ − β‖ with
// c_i = ‖x_i‖ ≤ R, for coefficients far apart too.
TEST(Glm, LogisticRatioBoundHolds) {
  Rng rng = make_rng(9, 0);
  const int p = 4;
  const auto model = make_glm_model(spec_of(GlmFamily::logistic, p));
  const auto* bound = dynamic_cast<const RatioBound*>(model.get());
  ASSERT_NE(bound, nullptr);
  EXPECT_EQ(bound->public_row_bound(), std::optional<double>(2.0));
  EXPECT_EQ(dynamic_cast<const RatioBound*>(make_glm_model(spec_of(GlmFamily::probit, p)).get()),
            nullptr);
  std::vector<double> y;
  for (int i = 0; i < 200; ++i) y.push_back(i % 2);
  const Mat rows = rows_with(y, p, rng);
  Vec c(rows.rows());
  bound->row_bounds(rows, c);
  double tightest = 0.0;
  for (int trial = 0; trial < 50; ++trial) {
    Vec a(p), b(p);
    for (int j = 0; j < p; ++j) {
      a(j) = 10.0 * rng.normal();
      b(j) = a(j) + std::pow(10.0, 2.0 * rng.uniform() - 1.0) * rng.normal();
    }
    Vec la(rows.rows()), lb(rows.rows());
    model->log_lik_rows(a, rows, la);
    model->log_lik_rows(b, rows, lb);
    const double m = bound->bound_distance(a, b);
    for (Eigen::Index i = 0; i < rows.rows(); ++i) {
      EXPECT_LE(c(i), 2.0 + 1e-12);
      EXPECT_LE(std::abs(lb(i) - la(i)), c(i) * m * (1.0 + 1e-12));
      tightest = std::max(tightest, std::abs(lb(i) - la(i)) / (c(i) * m));
    }
  }
  EXPECT_GT(tightest, 0.5);  // the bound is not loose by orders of magnitude
}

// A row beyond the declared norm bound would void the ratio bound: refused, not used.
TEST(Glm, LogisticRefusesARowBeyondTheNormBound) {
  const auto model = make_glm_model(spec_of(GlmFamily::logistic, 2));  // R = √2
  const auto* bound = dynamic_cast<const RatioBound*>(model.get());
  Mat rows(2, 3);
  rows << 1.0, 1.0, 1.0, 1.0, 1.5, 0.0;
  Vec c(2);
  EXPECT_THROW(bound->row_bounds(rows, c), DataError);
  // Simulated rows keep within it, one-hot and binary columns included.
  Rng rng = make_rng(3, 0);
  const Dataset sim = model->simulate(Vec::Zero(2), 500, rng);
  Vec cs(500);
  EXPECT_NO_THROW(bound->row_bounds(sim.x, cs));
}

TEST(Glm, RefusesInconsistentSpecs) {
  EXPECT_THROW(make_glm_model(spec_of(GlmFamily::logistic, 2, 1.0)), UsageError);
  EXPECT_THROW(make_glm_model(spec_of(GlmFamily::linear, 2, -1.0)), UsageError);
  EXPECT_THROW(parse_glm_family("gamma"), UsageError);
  EXPECT_EQ(make_glm_model(spec_of(GlmFamily::linear, 2))->param_names(),
            (std::vector<std::string>{"intercept", "b1", "log_sigma"}));
}

}  // namespace
}  // namespace dpmcmc
