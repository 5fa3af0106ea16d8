// A user model (CSV + schema + family) through the whole sample job, against an exact posterior:
// Bayesian linear regression with known σ and normal priors is conjugate,
//   β | y ~ N(m, S),  S = (XᵀX/σ² + Λ⁻¹)⁻¹,  m = S (Xᵀy/σ² + Λ⁻¹μ₀),
// computed here with Eigen from the design the job reads. NUTS with default adaptation must
// recover m and √S_jj: each within 5 Monte Carlo standard errors (per parameter a false alarm
// rate below 1e-6 for an estimator that is normal to the CLT's accuracy; 4 × 1000 draws), and
// R-hat < 1.01.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "../data/temp_dir.hpp"
#include "core/rng.hpp"
#include "data/design.hpp"
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

}  // namespace
}  // namespace dpmcmc
