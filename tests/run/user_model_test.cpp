// A user model (CSV + schema + family) through the whole sample job, against an exact posterior:
// Bayesian linear regression with known σ and normal priors is conjugate,
//   β | y ~ N(m, S),  S = (XᵀX/σ² + Λ⁻¹)⁻¹,  m = S (Xᵀy/σ² + Λ⁻¹μ₀),
// computed here with Eigen from the design the job reads. NUTS with default adaptation must
// recover m and √S_jj: each within 5 Monte Carlo standard errors (per parameter a false alarm
// rate below 1e-6 for an estimator that is normal to the CLT's accuracy; 4 × 1000 draws), and
// R-hat < 1.01.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>

#include "../data/temp_dir.hpp"
#include "core/rng.hpp"
#include "data/design.hpp"
#include "models/user_model.hpp"
#include "run/sample_job.hpp"

namespace dpmcmc {
namespace {

TEST(UserModel, LinearRegressionMatchesTheConjugatePosterior) {
  testing::TempDir dir;
  std::ofstream(dir / "schema.json") << R"({"columns": [
    {"name": "dose", "role": "feature", "type": "real", "bounds": [0, 10]},
    {"name": "site", "role": "feature", "type": "categorical", "levels": ["a", "b"]},
    {"name": "y", "role": "target", "type": "real", "bounds": [-20, 20]}]})";
  Rng rng = make_rng(11, 0);
  std::ofstream csv(dir / "data.csv");
  csv << "site,y,dose\n";
  for (int i = 0; i < 200; ++i) {
    const double dose = 10.0 * rng.uniform();
    const bool b = rng.uniform() < 0.4;
    const double y = 1.0 + 2.0 * (dose - 5.0) / 5.0 - 0.5 * (b ? 1 : 0) + rng.normal(0.0, 1.5);
    csv << (b ? "b" : "a") << "," << y << "," << dose << "\n";
  }
  csv.close();

  SampleSpec spec;
  spec.preset = "linear";
  spec.sampler = "nuts";
  spec.data_file = dir / "data.csv";
  spec.user_model = UserModelSpec{"linear",
                                  dir / "schema.json",
                                  dir / "data.csv",
                                  {"normal(0, 3)", "intercept=normal(0.5, 3)"},
                                  1.5,
                                  {},
                                  {}};
  spec.run.chains = 4;
  spec.run.seed = 5;
  spec.seed_given = true;
  spec.run.warmup = 1000;
  spec.run.samples = 1000;
  spec.run.adapt = true;
  spec.run.progress = ProgressMode::never;
  spec.write_draws = false;
  spec.out_dir = dir / "out";
  const SampleOutcome out = run_sample_job(spec);

  const Design d = load_design(dir / "data.csv", load_schema(dir / "schema.json"));
  const Eigen::Index p = 3;
  const Mat x = d.data.x.leftCols(p);
  const Vec y = d.data.x.col(p);
  Vec mu0 = Vec::Zero(p);
  mu0(0) = 0.5;
  const Mat precision = x.transpose() * x / (1.5 * 1.5) + Mat::Identity(p, p) / 9.0;
  const Mat cov = precision.inverse();
  const Vec mean = cov * (x.transpose() * y / (1.5 * 1.5) + mu0 / 9.0);

  const std::vector<std::string> names = {"intercept", "dose", "site_b"};
  for (Eigen::Index j = 0; j < p; ++j) {
    const auto it = std::find_if(out.summary.parameters.begin(), out.summary.parameters.end(),
                                 [&](const ParameterSummary& s) { return s.name == names[j]; });
    ASSERT_NE(it, out.summary.parameters.end()) << names[j];
    EXPECT_LT(std::abs(it->mean - mean(j)), 5.0 * it->mcse_mean) << names[j];
    EXPECT_LT(std::abs(it->sd - std::sqrt(cov(j, j))), 5.0 * it->mcse_sd) << names[j];
    EXPECT_LT(it->rhat, 1.01) << names[j];
  }
  EXPECT_EQ(out.report["model"]["details"]["priors"]["dose"], "normal(0, 3)");
  EXPECT_EQ(out.report["model"]["details"]["priors"]["intercept"], "normal(0.5, 3)");
  EXPECT_EQ(out.report["model"]["details"]["priors"]["sigma"], "fixed at 1.5");
}

// The stochastic-gradient defaults of a user model (models/user_model.cpp), against the rules
// recomputed here: s0 = c/√n (c = 2 for logistic, 1 for Poisson), clip L·R (L = 1 for
// logistic, the count bound for Poisson), batch n/10, SGLD h = 0.2·s0²/R² unless the noise
// multiplier m = 2b/(n√h·C) would fall below 2, SGNHT h' = √(0.2 h) and A = 2h'/h; and what they
// imply: the two releases' noise multipliers equal ((b/n)·√(2A/h')/C for SGNHT) and SGNHT's
// initial friction A·h' = 0.4.
TEST(UserModel, StochasticGradientDefaultsFollowTheirRules) {
  const double r = std::sqrt(3.0);
  for (const GlmFamily family : {GlmFamily::logistic, GlmFamily::poisson}) {
    SCOPED_TRACE(to_string(family));
    GlmSpec g;
    g.family = family;
    g.row_norm_bound = r;
    g.y_low = 0.0;
    g.y_high = family == GlmFamily::poisson ? 20.0 : 1.0;
    const nlohmann::json d = user_model_sampler_defaults(g, 1000, 3);
    const bool logistic = family == GlmFamily::logistic;
    const double s0 = (logistic ? 2.0 : 1.0) / std::sqrt(1000.0);
    const double clip = (logistic ? 1.0 : 20.0) * r;
    const nlohmann::json& sgld = d.at("dp-sgld");
    const nlohmann::json& sgnht = d.at("dp-sgnht");
    EXPECT_DOUBLE_EQ(sgld.at("clip").get<double>(), clip);
    EXPECT_EQ(sgld.at("batch_size").get<double>(), 100.0);
    const double h = sgld.at("step_size").get<double>() / 1000.0;
    const double multiplier = 2.0 * 100.0 / (1000.0 * std::sqrt(h) * clip);
    if (logistic) {
      // m = 200/(1000·√(0.2)·s0/R·R) = 7.1 ≥ 2: the curvature rule sets the step.
      EXPECT_DOUBLE_EQ(h, 0.2 * s0 * s0 / 3.0);
      EXPECT_GT(multiplier, 2.0);
    } else {
      // C = 20R: the curvature rule would give m ≈ 0.7; the step is lowered to m = 2.
      EXPECT_LT(h, 0.2 * s0 * s0 / 3.0);
      EXPECT_NEAR(multiplier, 2.0, 1e-12);
    }
    const double h2 = sgnht.at("step_size").get<double>() / 1000.0;
    const double a = sgnht.at("A").get<double>();
    EXPECT_NEAR(h2, std::sqrt(0.2 * h), 1e-15);
    EXPECT_NEAR(multiplier / (0.1 * std::sqrt(2.0 * a / h2) / clip), 1.0, 1e-12);
    EXPECT_NEAR(a * h2, 0.4, 1e-12);
  }
  const auto samplers = user_model_samplers(GlmFamily::poisson);
  EXPECT_NE(std::find(samplers.begin(), samplers.end(), "dp-sgld"), samplers.end());
  EXPECT_NE(std::find(samplers.begin(), samplers.end(), "dp-sgnht"), samplers.end());
  // dp-nss: listed for every family with a released statistic, poisson's (intercept) included.
  for (const GlmFamily f : {GlmFamily::linear, GlmFamily::normal, GlmFamily::logistic,
                            GlmFamily::poisson, GlmFamily::probit}) {
    const auto listed = user_model_samplers(f);
    EXPECT_EQ(std::find(listed.begin(), listed.end(), "dp-nss") != listed.end(),
              f != GlmFamily::probit)
        << to_string(f);
  }
  EXPECT_TRUE(has_released_statistic(GlmFamily::poisson, true));
  EXPECT_FALSE(has_released_statistic(GlmFamily::poisson, false));
}

}  // namespace
}  // namespace dpmcmc
