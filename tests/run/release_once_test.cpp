// Release once, sample forever (run/release_once_job.hpp) through the sample job:
//  - the published release is PrivateData's (rebuilt here with the key, seed and stream) and
//    carries noise, and NUTS on it recovers the exact posterior given the release of linear
//    regression with σ known (by quadrature here): means and sds within 5 MCSE;
//  - at ε = 1 the run records exactly one release, whose composed ε equals the plan's for every
//    accountant and stays within the budget for the certified ones; --iter sets the chains'
//    length, not the budget;
//  - the same seed and key give the same draws; families without a statistic are refused.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <algorithm>
#include <cmath>

#include "../data/temp_dir.hpp"
#include "core/error.hpp"
#include "core/rng.hpp"
#include "data/design.hpp"
#include "models/noisy_statistics.hpp"
#include "privacy/iteration_templates.hpp"
#include "privacy/private_data.hpp"
#include "run/private_samplers.hpp"
#include "run/release_once_job.hpp"
#include "test_noise.hpp"

namespace dpmcmc {
namespace {

constexpr const char* kSchema = R"({"columns": [
    {"name": "dose", "role": "feature", "type": "real", "bounds": [0, 10]},
    {"name": "y", "role": "target", "type": "real", "bounds": [-8, 8], "outside": "clip"}]})";

std::string rows_csv(int n) {
  Rng rng = make_rng(17, 0);
  std::string csv = "dose,y\n";
  for (int i = 0; i < n; ++i) {
    const double dose = 10.0 * rng.uniform();
    const double y = 1.0 + 1.5 * (dose - 5.0) / 5.0 + rng.normal(0.0, 1.0);
    csv += fmt::format("{},{}\n", dose, y);
  }
  return csv;
}

SampleSpec nss_spec(const testing::TempDir& dir, const std::string& family, double epsilon) {
  SampleSpec spec;
  spec.sampler = kReleaseOnceSampler;
  UserModelSpec user;
  user.family = family;
  user.schema_file = "schema (test)";
  user.data_file = "rows (test)";
  user.sigma = 1.0;
  user.schema_doc = nlohmann::json::parse(kSchema);
  user.data_text = rows_csv(2000);
  spec.preset = family;
  spec.user_model = user;
  spec.epsilon = epsilon;
  spec.delta = 1e-6;
  spec.noise_key = std::make_shared<const NoiseKey>(test_noise_key());
  spec.run.chains = 4;
  spec.run.seed = 3;
  spec.seed_given = true;
  spec.run.warmup = 500;
  spec.run.samples = 1000;
  spec.run.progress = ProgressMode::never;
  spec.write_draws = false;
  spec.out_dir = dir / ("out-" + std::to_string(epsilon));
  return spec;
}

TEST(ReleaseOnce, TheChainsSampleTheExactPosteriorGivenTheRelease) {
  testing::TempDir dir;
  const SampleOutcome out = run_sample_job(nss_spec(dir, "linear", 1.0));
  const auto& release = out.report["privacy"]["release_once"];
  const auto& stat = release["statistic"];
  const auto& sd = release["noise_sd"];
  // The published release is the one PrivateData makes from the rows with the run's key, seed
  // and stream 0 at the reported noise multiplier (rebuilt here), and noise was added to it.
  const UserModel user = make_user_model(*nss_spec(dir, "linear", 1.0).user_model);
  const RegressionStatistic regression(user.glm);
  const auto glm = make_glm_model(user.glm);
  PrivateSamplerSetup setup;
  setup.per_iteration = noisy_statistics_template(release["noise_multiplier"].get<double>());
  EventLog log;
  PrivateData owner(*glm, user.design->data, make_noise_rng(test_noise_key(), 3, 0), log,
                    allowance_for(setup, 1));
  const Vec again = regression.to_units(
      owner.suff_stat(regression, release["noise_multiplier"].get<double>()).value);
  Mat per_row(user.design->data.rows(), regression.stat_dim());
  regression.stat_rows(user.design->data.x, per_row);
  const Vec exact = regression.to_units(per_row.colwise().sum().transpose());
  const auto names = regression.stat_names();
  double moved = 0.0;
  for (std::size_t j = 0; j < names.size(); ++j) {
    const auto c = static_cast<Eigen::Index>(j);
    EXPECT_EQ(stat[names[j]].get<double>(), again(c)) << names[j];
    moved = std::max(moved, std::abs(again(c) - exact(c)) / sd[names[j]].get<double>());
  }
  EXPECT_GT(moved, 0.05);  // some component moved by a twentieth of its noise sd at least
  // The exact posterior given the release, by quadrature: the model's log density (its formula
  // is checked in tests/models/noisy_statistics_test.cpp) on a 401 × 401 grid over ±8 sds of a
  // first pass, independent of NUTS.
  Vec released(static_cast<Eigen::Index>(names.size())), sds(released.size());
  for (std::size_t j = 0; j < names.size(); ++j) {
    released(static_cast<Eigen::Index>(j)) = stat[names[j]].get<double>();
    sds(static_cast<Eigen::Index>(j)) = sd[names[j]].get<double>();
  }
  const NoisyStatisticsModel model(make_glm_model(user.glm), regression, 2000.0, sds);
  const auto log_post = [&](double b0, double b1) {
    const Vec theta = (Vec(2) << b0, b1).finished();
    return model.log_prior(theta) + model.log_lik(theta, released);
  };
  Vec centre(2), scale(2);
  for (Eigen::Index j = 0; j < 2; ++j) {
    const auto& p = out.summary.parameters[static_cast<std::size_t>(
        std::find_if(
            out.summary.parameters.begin(), out.summary.parameters.end(),
            [&](const ParameterSummary& q) { return q.name == (j ? "dose" : "intercept"); }) -
        out.summary.parameters.begin())];
    centre(j) = p.mean;
    scale(j) = p.sd;
  }
  const int g = 401;
  Mat logp(g, g);
  for (int i = 0; i < g; ++i)
    for (int k = 0; k < g; ++k)
      logp(i, k) = log_post(centre(0) + scale(0) * (16.0 * i / (g - 1) - 8.0),
                            centre(1) + scale(1) * (16.0 * k / (g - 1) - 8.0));
  const Mat w = (logp.array() - logp.maxCoeff()).exp().matrix() /
                (logp.array() - logp.maxCoeff()).exp().sum();
  Vec mean = Vec::Zero(2), second = Vec::Zero(2);
  for (int i = 0; i < g; ++i) {
    for (int k = 0; k < g; ++k) {
      const double v0 = centre(0) + scale(0) * (16.0 * i / (g - 1) - 8.0);
      const double v1 = centre(1) + scale(1) * (16.0 * k / (g - 1) - 8.0);
      mean += w(i, k) * (Vec(2) << v0, v1).finished();
      second += w(i, k) * (Vec(2) << v0 * v0, v1 * v1).finished();
    }
  }
  const std::vector<std::string> params = {"intercept", "dose"};
  for (Eigen::Index j = 0; j < 2; ++j) {
    const auto it = std::find_if(out.summary.parameters.begin(), out.summary.parameters.end(),
                                 [&](const ParameterSummary& p) { return p.name == params[j]; });
    ASSERT_NE(it, out.summary.parameters.end());
    const double exact_sd = std::sqrt(second(j) - mean(j) * mean(j));
    EXPECT_LT(std::abs(it->mean - mean(j)), 5.0 * it->mcse_mean) << params[j];
    EXPECT_LT(std::abs(it->sd - exact_sd), 5.0 * it->mcse_sd) << params[j];
  }
}

TEST(ReleaseOnce, OneReleaseIsRecordedAndItsSpendIsThePlanned) {
  testing::TempDir dir;
  const SampleOutcome out = run_sample_job(nss_spec(dir, "linear", 1.0));
  ASSERT_TRUE(out.plan.has_value());
  EXPECT_EQ(out.recorded.releases(), 1u);
  const auto& privacy = out.report["privacy"];
  EXPECT_EQ(privacy["releases_recorded"], 1);
  EXPECT_TRUE(privacy.contains("release_once"));
  for (const auto& row : privacy["accountants"]) {
    // The Gaussian PLD is exact for the release: the others are listed, not run.
    if (row["accountant"] != "pld-gaussian") {
      EXPECT_NE(row.value("skipped", "").find("pld-gaussian is exact"), std::string::npos)
          << row.dump();
      continue;
    }
    ASSERT_TRUE(row["recorded_epsilon"].is_number()) << row.dump();
    EXPECT_NEAR(row["recorded_epsilon"].get<double>(), row["planned_epsilon"].get<double>(), 1e-9)
        << row["accountant"];
  }
  const auto tightest = privacy["planned_by"].get<std::string>();
  for (const auto& row : privacy["accountants"]) {
    if (row["accountant"] == tightest) {
      EXPECT_LE(row["recorded_epsilon"].get<double>(), 1.0);
    }
  }
  // The chains ran what was asked, not what a budget allowed.
  for (const auto& ch : out.run.chains) EXPECT_EQ(ch.samples_done, 1000u);
  EXPECT_EQ(out.report["sampler"]["name"], kReleaseOnceSampler);
  EXPECT_FALSE(out.report.contains("timings"));
  EXPECT_EQ(privacy["releases_planned"], 1);
  EXPECT_FALSE(privacy.contains("iterations_per_chain"));
  EXPECT_EQ(out.report["run"]["noise_key"], "given by the calling program, not published");

  // An accountant looser than the exact PLD alone: the noise grows until it certifies.
  auto zcdp = nss_spec(dir, "linear", 1.0);
  zcdp.accountants = {"zcdp"};
  zcdp.out_dir = dir / "zcdp";
  const auto z_out = run_sample_job(zcdp);
  EXPECT_EQ(z_out.report["privacy"]["planned_by"], "zcdp");
  double z_eps = 0.0;
  for (const auto& row : z_out.report["privacy"]["accountants"]) {
    if (row["accountant"] == "zcdp") z_eps = row["recorded_epsilon"].get<double>();
  }
  EXPECT_LE(z_eps, 1.0);
  EXPECT_GT(z_eps, 0.95);  // within the 2 % of noise the search leaves
  EXPECT_GT(z_out.report["privacy"]["release_once"]["noise_multiplier"].get<double>(),
            privacy["release_once"]["noise_multiplier"].get<double>());
}

TEST(ReleaseOnce, BadChainOptionsAreRefusedBeforeTheBudgetIsSpent) {
  testing::TempDir dir;
  auto spec = nss_spec(dir, "linear", 1.0);
  spec.run.init.points.push_back(Vec::Zero(5));  // the model has 2 parameters
  EXPECT_THROW(run_sample_job(spec), UsageError);
  EXPECT_FALSE(std::filesystem::exists(spec.out_dir.string() + ".curator"));
  spec = nss_spec(dir, "linear", 1.0);
  spec.overrides = {{"tau", 0.5}};  // not an option of its NUTS chains
  EXPECT_THROW(run_sample_job(spec), UsageError);
}

TEST(ReleaseOnce, SameSeedAndKeySameDrawsAndFamiliesWithoutAStatisticAreRefused) {
  testing::TempDir dir;
  auto spec = nss_spec(dir, "linear", 2.0);
  spec.run.samples = 50;
  spec.run.warmup = 50;
  const auto a = run_sample_job(spec);
  spec.out_dir = dir / "again";
  const auto b = run_sample_job(spec);
  for (std::size_t c = 0; c < a.run.chains.size(); ++c)
    EXPECT_EQ(a.run.chains[c].draws, b.run.chains[c].draws);
  auto poisson = nss_spec(dir, "poisson", 1.0);
  EXPECT_THROW(run_sample_job(poisson), UsageError);
  auto no_budget = nss_spec(dir, "linear", 1.0);
  no_budget.epsilon.reset();
  EXPECT_THROW(run_sample_job(no_budget), UsageError);
}

}  // namespace
}  // namespace dpmcmc
