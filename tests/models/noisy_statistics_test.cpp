// Noisy sufficient statistics for regression families (models/noisy_statistics.hpp), against
// values computed here from the rows:
//  - every row's statistic lies in the declared box, whose diagonal is the sensitivity;
//  - with negligible noise the posterior given the release has exactly the likelihood ratios of
//    the rows: linear regression with σ known (the Gaussian likelihood of the rows) and the
//    PASS-GLM quadratic for logistic regression (Σ (y − ½)η − η²/8);
//  - the noise-aware likelihood forgets b as its noise grows (the plug-in would not);
//  - noise in the released XᵀX flattens the likelihood (errors in variables);
//  - poisson: with the intercept alone, the central-limit Gaussian of Σy; with covariates, the
//    moments of x e^{xᵀβ} under the covariates' Gaussian against Monte Carlo, and the
//    errors-in-variables covariance against simulated noise in A;
//  - logistic expanded at a centre β₀: at 0 the statistic of the expansion at 0, bit for bit;
//    every row in the box at any centre; with negligible noise the second-order Taylor expansion
//    of the rows' log-likelihood at β₀ (its log-likelihood ratios); the linearised mean is the
//    regularised Newton step computed here from the rows, and repeated pilots reach the rows'
//    posterior mode.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "core/error.hpp"
#include "core/poisson_variate.hpp"
#include "core/rng.hpp"
#include "models/noisy_statistics.hpp"

namespace dpmcmc {
namespace {

GlmSpec spec_of(GlmFamily family, std::optional<double> sigma) {
  GlmSpec g;
  g.family = family;
  g.coefficient_names = {"intercept", "a", "b"};
  g.coefficient_priors.assign(3, ScalarPrior{ScalarPrior::Kind::normal, 1.0, 0.0, 2.5});
  g.sigma = sigma;
  g.column_bounds = {1.0, 1.0, 0.5};
  g.row_norm_bound = std::sqrt(2.25);
  g.y_low = family == GlmFamily::logistic ? 0.0 : -3.0;  // linear: centre 1, half-range 4
  g.y_high = family == GlmFamily::logistic ? 1.0 : 5.0;
  return g;
}

// n rows (x.1 = 1, x.2 in [-1, 1], x.3 in [-0.5, 0.5], y) from β = (0.3, -1, 2).
Mat simulate_rows(GlmFamily family, int n, std::uint64_t seed) {
  Rng rng = make_rng(seed, 0);
  Mat rows(n, 4);
  for (int i = 0; i < n; ++i) {
    rows(i, 0) = 1.0;
    rows(i, 1) = 2.0 * rng.uniform() - 1.0;
    rows(i, 2) = rng.uniform() - 0.5;
    const double eta = 0.3 - rows(i, 1) + 2.0 * rows(i, 2);
    rows(i, 3) = family == GlmFamily::logistic
                     ? (rng.uniform() < 1.0 / (1.0 + std::exp(-eta)) ? 1.0 : 0.0)
                     : std::clamp(eta + rng.normal(0.0, 1.0), -3.0, 5.0);
  }
  return rows;
}

Vec released_sum(const RegressionStatistic& stat, const Mat& rows) {
  Mat s(rows.rows(), stat.stat_dim());
  stat.stat_rows(rows, s);
  return s.colwise().sum().transpose().cwiseProduct(stat.widths());
}

TEST(RegressionStatistic, EveryRowLiesInTheBoxWhoseDiagonalIsTheSensitivity) {
  for (const auto family : {GlmFamily::linear, GlmFamily::logistic}) {
    const RegressionStatistic stat(spec_of(family, std::nullopt));
    // 5 products of 3 columns (not the intercept's 1·1 = 1 per row: n is public), 3 cross
    // products with t, and t² for linear with σ sampled.
    EXPECT_EQ(stat.stat_dim(), family == GlmFamily::linear ? 9 : 8);
    const Mat rows = simulate_rows(family, 500, 2);
    Mat s(rows.rows(), stat.stat_dim());
    stat.stat_rows(rows, s);
    for (Eigen::Index i = 0; i < s.rows(); ++i) {
      EXPECT_TRUE((s.row(i).transpose().array() >= stat.stat_lower().array()).all()) << i;
      EXPECT_TRUE((s.row(i).transpose().array() <= stat.stat_upper().array()).all()) << i;
    }
    // Row 0 by hand: x = (1, a, b), t = y − 1 (linear: the middle of [-3, 5], absorbed by the
    // intercept) or y − ½ (logistic), released in units of each component's width.
    const double a = rows(0, 1), b = rows(0, 2);
    const double t = rows(0, 3) - (family == GlmFamily::logistic ? 0.5 : 1.0);
    const std::vector<double> expected = {a, b, a * a, a * b, b * b, t, a * t, b * t};
    for (std::size_t j = 0; j < expected.size(); ++j) {
      const auto c = static_cast<Eigen::Index>(j);
      EXPECT_DOUBLE_EQ(s(0, c) * stat.widths()(c), expected[j]) << j;
    }
    // Every component has width 1 in the released units but the 3 cross products x t, released in
    // units of half their width (width 2): Δ = √(k + 3·3) under substitution.
    EXPECT_DOUBLE_EQ(stat.stat_sensitivity(), std::sqrt(stat.stat_dim() + 9.0));
    // The units from the declared bounds: x_a x_b in [-0.5, 0.5], x_b² in [0, 0.25], and half
    // the width of t in [-4, 4] (linear) or [-½, ½].
    EXPECT_DOUBLE_EQ(stat.widths()(3), 1.0);
    EXPECT_DOUBLE_EQ(stat.widths()(4), 0.25);
    EXPECT_DOUBLE_EQ(stat.widths()(5), family == GlmFamily::linear ? 4.0 : 0.5);
  }
  // σ known: Σ t² is not released.
  EXPECT_EQ(RegressionStatistic(spec_of(GlmFamily::linear, 1.0)).stat_dim(), 8);
}

TEST(NoisyStatisticsModel, NegligibleNoiseGivesTheRowsLikelihoodRatios) {
  const Vec beta1 = (Vec(3) << 0.2, -0.8, 1.5).finished();
  const Vec beta2 = (Vec(3) << 0.4, -1.2, 2.4).finished();
  for (const auto family : {GlmFamily::linear, GlmFamily::logistic}) {
    const auto spec =
        spec_of(family, family == GlmFamily::linear ? std::optional(1.3) : std::nullopt);
    const RegressionStatistic stat(spec);
    const Mat rows = simulate_rows(family, 400, 5);
    const NoisyStatisticsModel model(make_glm_model(spec), stat, 400.0,
                                     Vec::Constant(stat.stat_dim(), 1e-9));
    const Vec s = released_sum(stat, rows);
    double expected = 0.0;  // Σ_i [ℓ_i(β1) − ℓ_i(β2)], the rows' own log-likelihood ratio
    for (Eigen::Index i = 0; i < rows.rows(); ++i) {
      const Vec x = rows.row(i).head(3).transpose();
      const double y = rows(i, 3), e1 = x.dot(beta1), e2 = x.dot(beta2);
      if (family == GlmFamily::linear) {
        expected += (-(y - e1) * (y - e1) + (y - e2) * (y - e2)) / (2.0 * 1.3 * 1.3);
      } else {
        expected += (y - 0.5) * (e1 - e2) - (e1 * e1 - e2 * e2) / 8.0;
      }
    }
    const double got = model.log_lik(beta1, s) - model.log_lik(beta2, s);
    EXPECT_NEAR(got, expected, 1e-6 * std::abs(expected)) << static_cast<int>(family);
  }
}

TEST(NoisyStatisticsModel, LargeNoiseOnTheDataPartFlattensTheLikelihood) {
  // Noise on b (the part that carries y) only: the plug-in βᵀb̃ − βᵀÃβ/8 would follow the noise
  // wherever it goes; the noise-aware likelihood forgets b as its noise grows.
  const auto spec = spec_of(GlmFamily::logistic, std::nullopt);
  const RegressionStatistic stat(spec);
  const Vec s = released_sum(stat, simulate_rows(GlmFamily::logistic, 400, 7));
  const Vec beta1 = Vec::Zero(3);
  const Vec beta2 = (Vec(3) << 1.0, -2.0, 3.0).finished();
  const auto gap = [&](double sd) {
    Vec sds = Vec::Constant(stat.stat_dim(), 1e-9);
    sds.tail(3).setConstant(sd);  // b = Σ x (y − ½)
    const NoisyStatisticsModel model(make_glm_model(spec), stat, 400.0, sds);
    return std::abs(model.log_lik(beta1, s) - model.log_lik(beta2, s));
  };
  // Negligible noise: the rows' quadratic log-likelihood ratio, about 10 nats for this move.
  EXPECT_GT(gap(1e-3), 5.0);
  // Noise 1e5 per coordinate swamps b (entries ~100): the release says ~nothing about β.
  EXPECT_LT(gap(1e5), 1e-3);
}

TEST(NoisyStatisticsModel, NoiseInTheReleasedXtXFlattensTheLikelihood) {
  // Noise on A only (b exact): the errors-in-variables variance of Eβ (A unknown around Ã) makes
  // the log-likelihood less curved than with A known, near β = 0 and at a large β.
  const auto spec = spec_of(GlmFamily::linear, 1.0);
  const RegressionStatistic stat(spec);
  const Vec s = released_sum(stat, simulate_rows(GlmFamily::linear, 400, 9));
  Vec exact = Vec::Constant(stat.stat_dim(), 1e-9), noisy_a = exact;
  noisy_a.head(5).setConstant(5.0);  // the 5 released entries of A's upper triangle
  const NoisyStatisticsModel m0(make_glm_model(spec), stat, 400.0, exact);
  const NoisyStatisticsModel m1(make_glm_model(spec), stat, 400.0, noisy_a);
  const auto curvature = [&](const NoisyStatisticsModel& m, const Vec& at) {
    Vec up = at, down = at;
    up(1) += 1e-3;
    down(1) -= 1e-3;
    return (m.log_lik(up, s) - 2 * m.log_lik(at, s) + m.log_lik(down, s)) / 1e-6;
  };
  for (const Vec& at : {Vec(Vec::Zero(3)), Vec((Vec(3) << 0.3, -1.0, 2.0).finished())}) {
    EXPECT_LT(curvature(m0, at), 0.0);
    EXPECT_LT(std::abs(curvature(m1, at)), 0.9 * std::abs(curvature(m0, at)));
  }
}

// The σ-sampled path end to end: a fixed design (n = 240), β and σ; y = Xβ + σε, then the
// release with independent noise on every component (sd 2 on A's entries, 3 on b, 20 on c),
// 100 000 times. The residuals (b̃ − Ãβ′, c̃ − β′ᵀÃβ′ − nσ²) computed by the model from each
// simulated release must have mean 0 and the covariance the model states for the exact
// statistic: σ²A + D_b + V(Eβ′), 2σ²Aβ′ + Cov(Eβ′, β′ᵀEβ′) and 4σ²β′ᵀAβ′ + 2nσ⁴ + d_c +
// Var(β′ᵀEβ′), where β′ is β with the intercept centred or, with residuals centred at β₀,
// β − β₀. The errors-in-variables terms are ~50 % of the b block and ~20 % of c's here, so a
// missing term or a wrong sign moves an entry far beyond the 4 % tolerance (the Monte Carlo
// error of a covariance entry is ~√(2/R) ≈ 0.5 % of its scale).
void expect_simulated_moments(std::optional<Vec> centre, double bound = 8.0) {
  const auto spec = spec_of(GlmFamily::linear, std::nullopt);
  const RegressionStatistic stat =
      centre ? RegressionStatistic(spec, centre, bound) : RegressionStatistic(spec);
  EXPECT_EQ(stat.is_residual(), centre.has_value());
  const int n = 240;
  const Mat design = simulate_rows(GlmFamily::linear, n, 13);
  const Mat x = design.leftCols(3);
  const Vec beta = (Vec(3) << 0.3, -1.0, 2.0).finished();
  const double sigma = 1.0;
  Vec sds(stat.stat_dim());
  sds.head(5).setConstant(2.0);
  sds.segment(5, 3).setConstant(3.0);
  sds(8) = 20.0;
  Vec theta(4);
  theta << beta, std::log(sigma);
  const NoisyStatisticsModel model(make_glm_model(spec), stat, n, sds);
  Rng rng = make_rng(21, 0);
  Mat rows = design;
  const auto release = [&](bool noisy) {
    for (int i = 0; i < n; ++i) rows(i, 3) = x.row(i).dot(beta) + sigma * rng.normal(0.0, 1.0);
    Vec s = released_sum(stat, rows);
    if (noisy) {
      for (Eigen::Index j = 0; j < s.size(); ++j) s(j) += sds(j) * rng.normal(0.0, 1.0);
    }
    return s;
  };
  // The model's covariance given the exact statistic (A enters only through σ²A and Aβ′).
  const Mat stated = model.observation(theta, release(false)).covariance;
  const int reps = 100000;
  Vec mean = Vec::Zero(4);
  Mat second = Mat::Zero(4, 4);
  for (int r = 0; r < reps; ++r) {
    const Vec res = model.observation(theta, release(true)).residual;
    mean += res / reps;
    second += res * res.transpose() / reps;
  }
  const Mat empirical = second - mean * mean.transpose();
  for (int j = 0; j < 4; ++j) {
    EXPECT_LT(std::abs(mean(j)), 5.0 * std::sqrt(stated(j, j) / reps)) << j;
    for (int k = 0; k < 4; ++k) {
      EXPECT_NEAR(empirical(j, k), stated(j, k), 0.04 * std::sqrt(stated(j, j) * stated(k, k)))
          << j << "," << k;
    }
  }
}

TEST(NoisyStatisticsModel, TheReleasesGaussianHasTheSimulatedMomentsWithSigmaSampled) {
  expect_simulated_moments(std::nullopt);
}

TEST(NoisyStatisticsModel, ResidualsCentredAtAPilotHaveTheSimulatedMoments) {
  // β = (0.3, −1, 2), β₀ = β − (0.5, −1, 1): Δ = β − β₀ is as large as the coefficients, so the
  // errors-in-variables terms in Δ are as visible as above; |xᵀΔ| ≤ 2 and the bound 8 clip a
  // residual with probability ~10⁻¹⁰.
  expect_simulated_moments((Vec(3) << -0.2, 0.0, 1.0).finished());
}

TEST(NoisyStatisticsModel, ClippedResidualsHaveTheClippedNormalsMoments) {
  // β₀ near β (|xᵀΔ| ≤ 0.15, as a pilot leaves it) and the clip at 2σ: 4.6 % of the residuals
  // are clipped, E t² = 0.92σ² and Var t² = 1.23σ⁴ against 2σ⁴ unclipped, so unmodelled
  // clipping would put c's mean 40 times the tolerance off and b's variance 7 % off.
  expect_simulated_moments((Vec(3) << 0.25, -0.95, 1.9).finished(), 2.0);
}

// clipped_normal against quadrature of clip(μ + e, ±t)^k φ(e) (Simpson on ±12, split at the
// clip's kinks e = ±t − μ so that each piece is smooth), and the derivatives in μ at 0 of
// E clip(μ + e), E clip(μ + e)², Cov(clip, clip²) and Var(clip²) by central differences of the
// same quadrature (the last two set the clipped release's covariance in Δ).
TEST(NoisyStatisticsModel, ClippedNormalMomentsMatchQuadrature) {
  const auto expect_clip = [](double t, double mu, int power) {
    const auto simpson = [&](double lo, double hi) {
      const int panels = 4000;
      const double h = (hi - lo) / panels;
      double sum = 0.0;
      for (int i = 0; i <= panels; ++i) {
        const double e = lo + i * h;
        const double w = i == 0 || i == panels ? 1.0 : i % 2 == 1 ? 4.0 : 2.0;
        sum += w * std::pow(std::clamp(mu + e, -t, t), power) * std::exp(-0.5 * e * e);
      }
      return sum * h / 3.0;
    };
    return (simpson(-12.0, -t - mu) + simpson(-t - mu, t - mu) + simpson(t - mu, 12.0)) /
           std::sqrt(2.0 * std::numbers::pi);
  };
  // Var(clip(μ + e)²) and Cov(clip(μ + e), clip(μ + e)²) by the same quadrature.
  const auto var2 = [&](double t, double mu) {
    return expect_clip(t, mu, 4) - std::pow(expect_clip(t, mu, 2), 2);
  };
  const auto cov12 = [&](double t, double mu) {
    return expect_clip(t, mu, 3) - expect_clip(t, mu, 1) * expect_clip(t, mu, 2);
  };
  for (const double t : {0.3, 0.5, 1.0, 2.0, 3.0, 5.0}) {
    const auto k = NoisyStatisticsModel::clipped_normal(t);
    EXPECT_NEAR(k.second, expect_clip(t, 0.0, 2), 1e-9) << t;
    EXPECT_NEAR(k.fourth, expect_clip(t, 0.0, 4), 1e-9) << t;
    const double d = 1e-3;
    EXPECT_NEAR(k.inside, (expect_clip(t, d, 1) - expect_clip(t, -d, 1)) / (2 * d), 1e-6) << t;
    const double curve =
        (expect_clip(t, d, 2) - 2 * expect_clip(t, 0.0, 2) + expect_clip(t, -d, 2)) / (2 * d * d);
    EXPECT_NEAR(k.curve, curve, 1e-4) << t;
    EXPECT_NEAR(k.cross(), (cov12(t, d) - cov12(t, -d)) / (2 * d), 1e-5) << t;
    EXPECT_NEAR(k.spread(), (var2(t, d) - 2 * var2(t, 0.0) + var2(t, -d)) / (2 * d * d), 1e-3) << t;
  }
  const auto none = NoisyStatisticsModel::clipped_normal(INFINITY);
  EXPECT_EQ(none.inside, 1.0);
  EXPECT_EQ(none.second, 1.0);
  EXPECT_EQ(none.fourth, 3.0);
  EXPECT_EQ(none.curve, 1.0);
  EXPECT_EQ(none.cross(), 2.0);   // Cov(e, e²) = 2μ for e ~ N(μ, 1)
  EXPECT_EQ(none.spread(), 4.0);  // Var(e²) = 2 + 4μ²
}

// Linear centred at β₀ with a residual bound: each row's t is y − xᵀβ₀ clipped at the bound, the
// cross products' width is 2 B_j T (released in half-width units), and no bound leaves the
// declared ranges' own, which never clips: T = max(|y_low − R|, |y_high + R|), R = Σ|β₀,j|B_j.
TEST(RegressionStatistic, ResidualsCentredAtAPilotAreClippedAtTheBound) {
  const auto spec = spec_of(GlmFamily::linear, std::nullopt);
  const Vec centre = (Vec(3) << 0.3, -1.0, 2.0).finished();
  const RegressionStatistic stat(spec, centre, 2.5);
  ASSERT_TRUE(stat.is_residual());
  EXPECT_DOUBLE_EQ(stat.residual_bound(), 2.5);
  EXPECT_DOUBLE_EQ(stat.widths()(5), 2.5);  // x.1 t ∈ ±2.5, in units of half the width
  EXPECT_DOUBLE_EQ(stat.widths()(7), 0.5 * 2.5);
  EXPECT_DOUBLE_EQ(stat.widths()(8), 2.5 * 2.5);  // t² ∈ [0, T²]
  Mat rows = simulate_rows(GlmFamily::linear, 400, 5);
  rows(0, 3) = rows.row(0).head(3).dot(centre) + 7.0;  // clipped to +2.5
  Mat s(rows.rows(), stat.stat_dim());
  stat.stat_rows(rows, s);
  int clipped = 0;
  for (Eigen::Index i = 0; i < rows.rows(); ++i) {
    const double r = rows(i, 3) - rows.row(i).head(3).dot(centre);
    const double t = std::clamp(r, -2.5, 2.5);
    clipped += std::abs(r) > 2.5 ? 1 : 0;
    EXPECT_NEAR(s(i, 5) * stat.widths()(5), t, 1e-12) << i;
    EXPECT_NEAR(s(i, 6) * stat.widths()(6), rows(i, 1) * t, 1e-12) << i;
    EXPECT_NEAR(s(i, 8) * stat.widths()(8), t * t, 1e-12) << i;
    EXPECT_TRUE((s.row(i).transpose().array() >= stat.stat_lower().array()).all()) << i;
    EXPECT_TRUE((s.row(i).transpose().array() <= stat.stat_upper().array()).all()) << i;
  }
  EXPECT_GE(clipped, 1);
  EXPECT_EQ(stat.stat_dim(), RegressionStatistic(spec).stat_dim());
  // The intercept's column is 1: xᵀβ₀ ∈ 0.3 ± (1 + 2·0.5); y on [−3, 5]: t ∈ [−5.3, 6.7].
  EXPECT_NEAR(RegressionStatistic(spec, centre).residual_bound(), 6.7, 1e-8);
  EXPECT_THROW(RegressionStatistic(spec, std::nullopt, 2.0), ConfigError);
  EXPECT_THROW(RegressionStatistic(spec, centre, 0.0), ConfigError);
  EXPECT_THROW(RegressionStatistic(spec_of(GlmFamily::logistic, std::nullopt), centre, 2.0),
               ConfigError);
}

// With negligible noise the residual centre is the rows' posterior mode (least squares: the
// N(0, 2.5²) priors pull with 10⁻⁵ of the rows' weight at n = 20 000) and the bound 3σ̂ plus its
// tiny uncertainty.
TEST(NoisyStatisticsModel, ResidualCentreIsTheRowsLeastSquaresWithNegligibleNoise) {
  const auto spec = spec_of(GlmFamily::linear, std::nullopt);
  const RegressionStatistic stat(spec);
  const int n = 20000;
  const Mat rows = simulate_rows(GlmFamily::linear, n, 31);
  const Vec released = released_sum(stat, rows);
  const NoisyStatisticsModel model(make_glm_model(spec), stat, n,
                                   Vec::Constant(stat.stat_dim(), 1e-6), released);
  const auto found = model.residual_centre(released);
  const Mat x = rows.leftCols(3);
  const Vec y = rows.col(3);
  const Vec ls = (x.transpose() * x).ldlt().solve(x.transpose() * y);
  const double sigma = std::sqrt((y - x * ls).squaredNorm() / n);
  for (int j = 0; j < 3; ++j) EXPECT_NEAR(found.centre(j), ls(j), 1e-3) << j;
  EXPECT_GT(found.bound, 3.0 * sigma);
  EXPECT_LT(found.bound, 3.2 * sigma);
  EXPECT_EQ(model.pilot_centre(released), found.centre);
}

// poisson on the named coefficients with the target declared on [0, y_high] (t = y − y_high/2).
GlmSpec poisson_spec(std::vector<std::string> names, double y_high = 20.0) {
  GlmSpec g;
  g.family = GlmFamily::poisson;
  g.coefficient_names = std::move(names);
  g.coefficient_priors.assign(g.coefficient_names.size(),
                              ScalarPrior{ScalarPrior::Kind::normal, 1.0, 0.0, 2.5});
  g.column_bounds.assign(g.coefficient_names.size(), 2.0);
  g.column_bounds.front() = 1.0;
  g.row_norm_bound = 3.0;
  g.y_low = 0.0;
  g.y_high = y_high;
  return g;
}

TEST(NoisyStatisticsModel, PoissonWithTheInterceptAloneIsTheGaussianOfTheCount) {
  const auto spec = poisson_spec({"intercept"});
  const RegressionStatistic stat(spec);
  ASSERT_EQ(stat.stat_dim(), 1);  // Σ (y − 10) only: Σ 1 = n is public
  const double n = 300.0, d_sd = 7.0;
  const NoisyStatisticsModel model(make_glm_model(spec), stat, n, Vec::Constant(1, d_sd));
  const Vec released = Vec::Constant(1, 950.0 - 10.0 * n);  // Σ y = 950
  for (const double beta0 : {0.5, 1.15, 2.0}) {
    // Σ y ~ Poisson(n e^β₀) ≈ N(n e^β₀, n e^β₀), plus the release's noise.
    const double mean = n * std::exp(beta0), var = mean + d_sd * d_sd;
    const double expected =
        -0.5 * (std::pow(950.0 - mean, 2) / var + std::log(var) + std::log(2.0 * std::numbers::pi));
    EXPECT_NEAR(model.log_lik(Vec::Constant(1, beta0), released), expected, 1e-9) << beta0;
  }
  EXPECT_THROW(RegressionStatistic(poisson_spec({"a", "b"})), ConfigError);  // no intercept
  auto negative = poisson_spec({"intercept"});
  negative.y_low = -1.0;
  EXPECT_THROW(RegressionStatistic{negative}, ConfigError);
}

// A release with A = n (S + m mᵀ) for x = (1, x₁, x₂) with x₁, x₂ Gaussian of mean m and
// covariance S, and b = 0 (the statistic's units).
struct GaussianCovariates {
  double n = 400.0;
  Vec m = (Vec(3) << 1.0, 0.3, -0.2).finished();
  Mat s = (Mat(3, 3) << 0, 0, 0, 0, 0.25, 0.06, 0, 0.06, 0.16).finished();
  Vec released() const {
    const Mat a = n * (s + m * m.transpose());
    Vec out = Vec::Zero(8);
    Eigen::Index c = 0;
    for (int j = 0; j < 3; ++j)
      for (int k = j; k < 3; ++k)
        if (j || k) out(c++) = a(j, k);
    return out;
  }
};

TEST(NoisyStatisticsModel, PoissonMomentsAreThoseOfGaussianCovariates) {
  // E[Σ x e^{xᵀβ}] and E[Σ x xᵀ e^{xᵀβ}] (the Poisson covariance of b given the covariates)
  // under x ~ N(m, S), by Monte Carlo (10⁶ draws; the error of each entry is well under 1 % of
  // its scale), against the model's closed forms.
  const auto spec = poisson_spec({"intercept", "a", "b"});
  const RegressionStatistic stat(spec);
  const GaussianCovariates cov;
  const NoisyStatisticsModel model(make_glm_model(spec), stat, cov.n,
                                   Vec::Constant(stat.stat_dim(), 1e-9));
  const Vec beta = (Vec(3) << 0.4, 0.9, -0.7).finished();
  const auto o = model.observation(beta, cov.released());
  const Eigen::LLT<Mat> chol(cov.s.bottomRightCorner(2, 2));
  Rng rng = make_rng(31, 0);
  const int draws = 1000000;
  Vec mean = Vec::Zero(3);
  Mat second = Mat::Zero(3, 3);
  for (int r = 0; r < draws; ++r) {
    Vec x = cov.m;
    x.tail(2) += chol.matrixL() * (Vec(2) << rng.normal(), rng.normal()).finished();
    const double w = std::exp(x.dot(beta));
    mean += w * x / draws;
    second += w * x * x.transpose() / draws;
  }
  // b = Σ x (y − 10) = 0 here: the residual is −(n E[x e^η] − 10 n m).
  const Vec expected_mean = cov.n * mean - 10.0 * cov.n * cov.m;
  for (int j = 0; j < 3; ++j) {
    EXPECT_NEAR(-o.residual(j), expected_mean(j), 0.01 * cov.n * std::sqrt(second(j, j))) << j;
    for (int k = 0; k < 3; ++k)
      EXPECT_NEAR(o.covariance(j, k), cov.n * second(j, k),
                  0.01 * cov.n * std::sqrt(second(j, j) * second(k, k)))
          << j << "," << k;
  }
}

TEST(NoisyStatisticsModel, PoissonResidualsOfWholeDataSetsHaveTheStatedSpread) {
  // Whole data sets: 1000 rows with x = (1, x₁, x₂), x₁, x₂ ~ N(0.3, 0.5²) and N(−0.2, 0.4²)
  // (clipped at the bounds ±2, which they almost never reach), y ~ Poisson(e^{xᵀβ}); the release
  // (negligible noise) and the model's whitened residual L⁻¹(b − μ) at the true β, over 2000 data
  // sets. Mean 0 (tolerance 0.1, 6 Monte Carlo sds) and sd between 0.95 and 1.15: the stated
  // covariance is the Poisson spread of b given the covariates, and Σ x e^η's own deviation from
  // its Gaussian value given the released moments is left out — it makes the slopes' sd about
  // 1.08–1.10 here (measured; a Monte Carlo sd error of 0.016), so their intervals are a little
  // narrow (docs/user-guide.md). A variance term over new samples of covariates made the sd about
  // 0.5; removing S from λ(uuᵀ + S) moves it above 1.15.
  const auto spec = poisson_spec({"intercept", "a", "b"}, 40.0);
  const RegressionStatistic stat(spec);
  const NoisyStatisticsModel model(make_glm_model(spec), stat, 1000.0,
                                   Vec::Constant(stat.stat_dim(), 1e-9));
  const Vec beta = (Vec(3) << 0.4, 0.9, -0.7).finished();
  Rng rng = make_rng(41, 0);
  const int reps = 2000, n = 1000;
  Mat rows(n, 4);
  Vec mean = Vec::Zero(3), second = Vec::Zero(3);
  for (int r = 0; r < reps; ++r) {
    for (int i = 0; i < n; ++i) {
      rows(i, 0) = 1.0;
      rows(i, 1) = std::clamp(0.3 + 0.5 * rng.normal(), -2.0, 2.0);
      rows(i, 2) = std::clamp(-0.2 + 0.4 * rng.normal(), -2.0, 2.0);
      const double rate = std::exp(rows.row(i).head(3).dot(beta));
      rows(i, 3) = static_cast<double>(poisson_variate(rng, rate));
    }
    const auto o = model.observation(beta, released_sum(stat, rows));
    const Vec z = Eigen::LLT<Mat>(o.covariance).matrixL().solve(o.residual);
    mean += z / reps;
    second += z.cwiseAbs2() / reps;
  }
  for (int j = 0; j < 3; ++j) {
    EXPECT_NEAR(mean(j), 0.0, 0.1) << j;
    const double sd = std::sqrt(second(j) - mean(j) * mean(j));
    EXPECT_GT(sd, 0.95) << j;
    EXPECT_LT(sd, 1.15) << j;
  }
}

TEST(NoisyStatisticsModel, PoissonErrorsInVariablesMatchSimulatedNoiseInA) {
  // Noise of sd 0.6 on each released entry of A (under 1 % of A's entries here, so the mean is
  // linear in it to well under the tolerance), none on b: the spread of the model's residual
  // over 20 000 noisy A must be the errors-in-variables term the model adds, V = stated(noisy) −
  // stated(exact) (Monte Carlo error of an entry ≈ √(2/20 000) = 1 %). With the target declared
  // on [0, 4] the three parts of dμ (E w, g₁ e₀ᵀEβ, g₂ βᵀEβ) have comparable coefficients, so
  // none can be wrong or missing unseen.
  const auto spec = poisson_spec({"intercept", "a", "b"}, 4.0);
  const RegressionStatistic stat(spec);
  const GaussianCovariates cov;
  Vec sds = Vec::Constant(stat.stat_dim(), 1e-9);
  sds.head(5).setConstant(0.6);
  const NoisyStatisticsModel noisy(make_glm_model(spec), stat, cov.n, sds);
  const NoisyStatisticsModel exact(make_glm_model(spec), stat, cov.n,
                                   Vec::Constant(stat.stat_dim(), 1e-9));
  const Vec beta = (Vec(3) << 0.4, 0.9, -0.7).finished();
  const Vec released = cov.released();
  const Mat v =
      noisy.observation(beta, released).covariance - exact.observation(beta, released).covariance;
  Rng rng = make_rng(37, 0);
  const int reps = 20000;
  Vec mean = Vec::Zero(3);
  Mat second = Mat::Zero(3, 3);
  for (int r = 0; r < reps; ++r) {
    Vec s = released;
    for (int j = 0; j < 5; ++j) s(j) += 0.6 * rng.normal();
    const Vec res = exact.observation(beta, s).residual;
    mean += res / reps;
    second += res * res.transpose() / reps;
  }
  const Mat empirical = second - mean * mean.transpose();
  for (int j = 0; j < 3; ++j) {
    EXPECT_GT(v(j, j), 0.1) << j;
    for (int k = 0; k < 3; ++k)
      EXPECT_NEAR(empirical(j, k), v(j, k), 0.05 * std::sqrt(v(j, j) * v(k, k))) << j << "," << k;
  }
}

// Σ_i ℓ_i(β) of logistic rows, its gradient and Hessian, computed here from the rows.
struct LogisticRows {
  double value = 0.0;
  Vec grad;
  Mat hess;
};
LogisticRows logistic_rows(const Mat& rows, const Vec& beta) {
  LogisticRows out{0.0, Vec::Zero(3), Mat::Zero(3, 3)};
  for (Eigen::Index i = 0; i < rows.rows(); ++i) {
    const Vec x = rows.row(i).head(3).transpose();
    const double y = rows(i, 3), eta = x.dot(beta);
    const double p = 1.0 / (1.0 + std::exp(-eta));
    out.value += y * eta - std::log1p(std::exp(eta));
    out.grad += (y - p) * x;
    out.hess -= p * (1.0 - p) * x * x.transpose();
  }
  return out;
}

TEST(LogisticExpansion, AtZeroItIsTheExpansionAtZeroBitForBit) {
  const auto spec = spec_of(GlmFamily::logistic, std::nullopt);
  const RegressionStatistic plain(spec);
  const RegressionStatistic centred(spec, Vec::Zero(3));
  ASSERT_EQ(plain.stat_dim(), centred.stat_dim());
  EXPECT_FALSE(centred.releases_intercept_weight());
  EXPECT_EQ(plain.stat_lower(), centred.stat_lower());
  EXPECT_EQ(plain.stat_upper(), centred.stat_upper());
  const Mat rows = simulate_rows(GlmFamily::logistic, 50, 3);
  EXPECT_EQ(released_sum(plain, rows), released_sum(centred, rows));
  // A linear centre is the residuals' (ResidualsCentredAtAPilotAreClippedAtTheBound).
  EXPECT_TRUE(RegressionStatistic(spec_of(GlmFamily::linear, 1.0), Vec::Zero(3)).is_residual());
  EXPECT_THROW(RegressionStatistic(spec, Vec::Zero(2)), ConfigError);
}

// Row i's statistic at centre β₀ computed here in long double: (1 − u) for the intercept's
// entry, u x_j x_k, then (y − σ(η₀)) x_j, with u = 4σ(η₀)σ(−η₀), in the statistic's units.
std::vector<long double> expansion_row(const Mat& rows, Eigen::Index i, const Vec& centre) {
  long double eta = 0.0L;
  for (int j = 0; j < 3; ++j) eta += static_cast<long double>(rows(i, j)) * centre(j);
  const long double up = 1.0L / (1.0L + std::exp(-eta)), down = 1.0L / (1.0L + std::exp(eta));
  const long double u = 4.0L * up * down, r = rows(i, 3) > 0.5 ? down : -up;
  std::vector<long double> out = {1.0L - u};
  for (int j = 0; j < 3; ++j)
    for (int k = j; k < 3; ++k)
      if (j + k > 0) out.push_back(u * rows(i, j) * rows(i, k));
  for (int j = 0; j < 3; ++j) out.push_back(r * rows(i, j));
  return out;
}

TEST(LogisticExpansion, EveryRowIsItsExpansionInsideTheBoxAtAnyCentre) {
  // The rows' statistics against the long-double values above, at centres from near 0 (the
  // intercept's Σ u then has a tiny range) to R = 20 (σ(R) within 2·10⁻⁹ of 1), with rows at
  // the box's corners where |η₀| reaches R. stat_rows clamps into the box, so equality with the
  // exact values (to 1e-9 of each component's width) is what shows the box holds them.
  const auto spec = spec_of(GlmFamily::logistic, std::nullopt);
  const Mat rows = simulate_rows(GlmFamily::logistic, 400, 4);
  Mat corners = rows.topRows(8);
  for (int i = 0; i < 8; ++i) {
    corners(i, 1) = i & 1 ? 1.0 : -1.0;
    corners(i, 2) = i & 2 ? 0.5 : -0.5;
    corners(i, 3) = i & 4 ? 1.0 : 0.0;
  }
  for (const Vec& centre :
       {Vec((Vec(3) << 0.3, -1.0, 2.0).finished()), Vec((Vec(3) << -4.0, 6.0, 9.0).finished()),
        Vec((Vec(3) << -8.0, 6.0, 12.0).finished()),  // R = 8 + 6 + 6 = 20
        Vec((Vec(3) << 1e-3, 0.0, 0.0).finished())}) {
    const RegressionStatistic stat(spec, centre);
    EXPECT_TRUE(stat.releases_intercept_weight());
    EXPECT_EQ(stat.stat_dim(), 9);  // Σ u of the intercept is released too
    const Vec width = (stat.stat_upper() - stat.stat_lower()).cwiseProduct(stat.widths());
    for (const Mat* m : {&rows, static_cast<const Mat*>(&corners)}) {
      Mat s(m->rows(), stat.stat_dim());
      stat.stat_rows(*m, s);
      for (Eigen::Index i = 0; i < s.rows(); ++i) {
        const auto exact = expansion_row(*m, i, centre);
        for (Eigen::Index c = 0; c < s.cols(); ++c) {
          const long double lo = stat.stat_lower()(c) * stat.widths()(c);
          const long double hi = stat.stat_upper()(c) * stat.widths()(c);
          const long double e = exact[static_cast<std::size_t>(c)];
          EXPECT_GE(e, lo - 1e-12L * width(c)) << centre.transpose() << " row " << i << " " << c;
          EXPECT_LE(e, hi + 1e-12L * width(c)) << centre.transpose() << " row " << i << " " << c;
          EXPECT_NEAR(s(i, c) * stat.widths()(c), static_cast<double>(e), 1e-9 * width(c))
              << centre.transpose() << " row " << i << " component " << c;
        }
      }
    }
    // √(9 + 3·3): the cross products have width 2 in their units, the rest width 1.
    EXPECT_DOUBLE_EQ(stat.stat_sensitivity(), std::sqrt(18.0));
  }
  // Near 0 the intercept's Σ (1 − u) spans [0, n(1 − u_min)], so its released values are
  // of order one, not 1/width (the summation's float-error bound uses the largest).
  const RegressionStatistic near_zero(spec, Vec((Vec(3) << 1e-3, 0.0, 0.0).finished()));
  EXPECT_LE(near_zero.stat_upper().cwiseAbs().maxCoeff(), 1.0 + 1e-12);
  EXPECT_LE(near_zero.stat_lower().cwiseAbs().maxCoeff(), 1.0 + 1e-12);
}

TEST(LogisticExpansion, NegligibleNoiseGivesTheRowsTaylorExpansionAtTheCentre) {
  const auto spec = spec_of(GlmFamily::logistic, std::nullopt);
  const Mat rows = simulate_rows(GlmFamily::logistic, 600, 6);
  const Vec centre = (Vec(3) << 0.2, -0.7, 1.6).finished();
  const RegressionStatistic stat(spec, centre);
  const NoisyStatisticsModel model(make_glm_model(spec), stat, 600.0,
                                   Vec::Constant(stat.stat_dim(), 1e-9));
  const Vec s = released_sum(stat, rows);
  const LogisticRows at = logistic_rows(rows, centre);
  const auto taylor = [&](const Vec& beta) {
    const Vec d = beta - centre;
    return at.grad.dot(d) + 0.5 * d.dot(at.hess * d);
  };
  const Vec beta1 = (Vec(3) << 0.5, -1.1, 2.3).finished();
  const Vec beta2 = (Vec(3) << -0.1, -0.4, 1.0).finished();
  const double expected = taylor(beta1) - taylor(beta2);
  EXPECT_NEAR(model.log_lik(beta1, s) - model.log_lik(beta2, s), expected,
              1e-6 * std::abs(expected));
  // Near the centre the expansion is the rows' own log-likelihood ratio to third order.
  const Vec near = centre + Vec::Constant(3, 0.02);
  const double exact = logistic_rows(rows, near).value - at.value;
  EXPECT_NEAR(model.log_lik(near, s) - model.log_lik(centre, s), exact, 1e-3 * std::abs(exact));
}

TEST(LogisticExpansion, PilotsAreRegularisedNewtonStepsToTheRowsPosteriorMode) {
  auto spec = spec_of(GlmFamily::logistic, std::nullopt);
  const Mat rows = simulate_rows(GlmFamily::logistic, 2000, 8);
  const std::shared_ptr<const GlmModel> glm = make_glm_model(spec);
  const Vec precision = Vec::Constant(3, 1.0 / (2.5 * 2.5));  // the priors N(0, 2.5²)
  const auto newton = [&](const Vec& beta) {
    const LogisticRows r = logistic_rows(rows, beta);
    Mat h = -r.hess;
    h.diagonal() += precision;
    return Vec(beta + h.ldlt().solve(r.grad - precision.cwiseProduct(beta)));
  };
  Vec centre = Vec::Zero(3);
  for (int step = 0; step < 6; ++step) {
    const RegressionStatistic stat(spec, centre);
    const NoisyStatisticsModel model(glm, stat, 2000.0, Vec::Constant(stat.stat_dim(), 1e-9));
    const Vec next = model.linearised_mean(released_sum(stat, rows));
    const Vec expected = newton(centre);
    for (int j = 0; j < 3; ++j) EXPECT_NEAR(next(j), expected(j), 1e-6) << step << "," << j;
    centre = next;
  }
  // Converged: the mode of the rows' posterior (its gradient vanishes there).
  const LogisticRows at = logistic_rows(rows, centre);
  EXPECT_LT((at.grad - precision.cwiseProduct(centre)).norm(), 1e-6);
  // A release swamped by noise says nothing: the centre goes to the priors' mean, 0.
  const RegressionStatistic stat(spec, centre);
  const NoisyStatisticsModel swamped(glm, stat, 2000.0, Vec::Constant(stat.stat_dim(), 1e9));
  EXPECT_LT(swamped.linearised_mean(released_sum(stat, rows)).norm(), 1e-3);
}

// The analytic gradient at θ against central differences of log_lik (step 1e-6).
void expect_gradient_is_central_difference(const NoisyStatisticsModel& model, const Vec& theta,
                                           const Vec& released) {
  const Vec g = model.analytic_gradient(theta, released);
  for (Eigen::Index j = 0; j < theta.size(); ++j) {
    Vec up = theta, down = theta;
    up(j) += 1e-6;
    down(j) -= 1e-6;
    const double fd = (model.log_lik(up, released) - model.log_lik(down, released)) / 2e-6;
    EXPECT_NEAR(g(j), fd, 1e-5 * std::max(1.0, std::abs(fd))) << model.name() << ", " << j;
  }
}

TEST(NoisyStatisticsModel, AnalyticGradientsAreTheLogLikelihoodsCentralDifferences) {
  // Noise on every component (the errors-in-variables terms move the covariance with β), at a
  // point away from the centre: the analytic gradient against central differences of log_lik.
  struct Case {
    GlmFamily family;
    std::optional<Vec> centre;
  };
  for (const Case& c : {Case{GlmFamily::logistic, std::nullopt},
                        Case{GlmFamily::logistic, Vec((Vec(3) << 0.2, -0.7, 1.6).finished())},
                        Case{GlmFamily::linear, std::nullopt}}) {
    const auto spec =
        spec_of(c.family, c.family == GlmFamily::linear ? std::optional(1.3) : std::nullopt);
    const RegressionStatistic stat(spec, c.centre);
    const Mat rows = simulate_rows(c.family, 300, 9);
    const NoisyStatisticsModel model(make_glm_model(spec), stat, 300.0,
                                     Vec::Constant(stat.stat_dim(), 3.0));
    ASSERT_TRUE(model.has_analytic_gradient());
    const Vec s = released_sum(stat, rows);
    const Vec theta = (Vec(3) << 0.6, -1.4, 2.2).finished();
    expect_gradient_is_central_difference(model, theta, s);
  }
  // σ sampled moves the covariance through σ too: central differences there.
  const auto sampled = spec_of(GlmFamily::linear, std::nullopt);
  const RegressionStatistic stat(sampled);
  EXPECT_FALSE(NoisyStatisticsModel(make_glm_model(sampled), stat, 300.0,
                                    Vec::Constant(stat.stat_dim(), 3.0))
                   .has_analytic_gradient());
}

TEST(PoissonExpansion, RowsInTheBoxAndTheRowsTaylorExpansionAtTheCentre) {
  // Rows x = (1, a, b), a and b uniform on [-2, 2], y ~ Poisson(e^{0.8 + 0.3a − 0.2b}) capped
  // at the declared 40; the expansion at β₀ against the rows' own second-order Taylor expansion
  // of Σ (y η − e^η), computed here.
  const auto spec = poisson_spec({"intercept", "a", "b"}, 40.0);
  Rng rng = make_rng(41, 0);
  const int n = 800;
  Mat rows(n, 4);
  for (int i = 0; i < n; ++i) {
    rows(i, 0) = 1.0;
    rows(i, 1) = 4.0 * rng.uniform() - 2.0;
    rows(i, 2) = 4.0 * rng.uniform() - 2.0;
    const double eta = 0.8 + 0.3 * rows(i, 1) - 0.2 * rows(i, 2);
    rows(i, 3) = std::min(40.0, static_cast<double>(poisson_variate(rng, std::exp(eta))));
  }
  const Vec centre = (Vec(3) << 0.7, 0.25, -0.1).finished();
  const RegressionStatistic stat(spec, centre);
  ASSERT_TRUE(stat.is_expansion());
  EXPECT_DOUBLE_EQ(stat.curvature(),
                   std::exp((0.7 + 0.25 * 2.0 + 0.1 * 2.0) * (1.0 + 1e-9) + 1e-12));
  Mat s(n, stat.stat_dim());
  stat.stat_rows(rows, s);
  for (Eigen::Index i = 0; i < n; ++i) {
    EXPECT_TRUE((s.row(i).transpose().array() >= stat.stat_lower().array()).all()) << i;
    EXPECT_TRUE((s.row(i).transpose().array() <= stat.stat_upper().array()).all()) << i;
  }
  const NoisyStatisticsModel model(make_glm_model(spec), stat, n,
                                   Vec::Constant(stat.stat_dim(), 1e-9));
  const Vec released = s.colwise().sum().transpose().cwiseProduct(stat.widths());
  Vec grad = Vec::Zero(3);
  Mat hess = Mat::Zero(3, 3);
  for (Eigen::Index i = 0; i < n; ++i) {
    const Vec x = rows.row(i).head(3).transpose();
    const double m0 = std::exp(x.dot(centre));
    grad += (rows(i, 3) - m0) * x;
    hess -= m0 * x * x.transpose();
  }
  const auto taylor = [&](const Vec& beta) {
    const Vec d = beta - centre;
    return grad.dot(d) + 0.5 * d.dot(hess * d);
  };
  const Vec beta1 = (Vec(3) << 0.9, 0.2, -0.3).finished();
  const Vec beta2 = (Vec(3) << 0.6, 0.4, 0.0).finished();
  const double expected = taylor(beta1) - taylor(beta2);
  EXPECT_NEAR(model.log_lik(beta1, released) - model.log_lik(beta2, released), expected,
              1e-6 * std::abs(expected));
  // Its analytic gradient is that of log_lik, and a pilot from it is the rows' Newton step.
  ASSERT_TRUE(model.has_analytic_gradient());
  expect_gradient_is_central_difference(model, beta1, released);
  Mat h = -hess;
  h.diagonal().array() += 1.0 / 6.25;
  const Vec newton = centre + h.ldlt().solve(grad - centre / 6.25);
  const Vec next = model.pilot_centre(released);
  for (Eigen::Index j = 0; j < 3; ++j) EXPECT_NEAR(next(j), newton(j), 1e-6) << j;
  // The first release (no centre) is not linear in β: its pilot centre is its posterior mode.
  const RegressionStatistic first(spec);
  Mat s0(n, first.stat_dim());
  first.stat_rows(rows, s0);
  const Vec r0 = s0.colwise().sum().transpose().cwiseProduct(first.widths());
  const NoisyStatisticsModel gaussian_x(make_glm_model(spec), first, n,
                                        Vec::Constant(first.stat_dim(), 1e-9), r0);
  const Vec mode = gaussian_x.pilot_centre(r0);
  for (Eigen::Index j = 0; j < 3; ++j) {
    Vec up = mode, down = mode;
    up(j) += 1e-4;
    down(j) -= 1e-4;
    const auto f = [&](const Vec& b) {
      return gaussian_x.log_prior(b) + gaussian_x.log_lik(b, r0);
    };
    EXPECT_LT(std::abs((f(up) - f(down)) / 2e-4), 1e-2) << j;  // the gradient vanishes there
  }
  EXPECT_NEAR(mode(0), 0.8, 0.15);  // and it is near the coefficients that made the rows
}

}  // namespace
}  // namespace dpmcmc
