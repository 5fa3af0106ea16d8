// Release once, sample forever (run/release_once_job.hpp) through the sample job:
//  - the published release is PrivateData's (rebuilt here with the key, seed and stream) and
//    carries noise, and NUTS on it recovers the exact posterior given the release of linear
//    regression with σ known and of poisson regression (by quadrature here): means and sds
//    within 5 MCSE, and poisson's posterior covers the coefficients that made the rows;
//  - at ε = 1 the run records exactly one release, whose composed ε equals the plan's for every
//    accountant and stays within the budget for the certified ones; --iter sets the chains'
//    length, not the budget;
//  - the same seed and key give the same draws;
//  - logistic at n = 20 000 with coefficients to 2.5: the default pilot releases and the
//    final one are PrivateData's (rebuilt here from the published centres), are all recorded
//    and spend the plan, and the posterior lands on the rows' posterior mode (computed here by
//    Newton's method), where the expansion at 0 alone (--pilot-releases 0) misses it by many sds;
//  - poisson at n = 60 000 with uniform covariates: two pilots and the final expansion land on
//    the rows' posterior mode, where the covariates' Gaussian model alone misses the slope.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "../data/temp_dir.hpp"
#include "core/error.hpp"
#include "core/poisson_variate.hpp"
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

constexpr const char* kBinarySchema = R"({"columns": [
    {"name": "dose", "role": "feature", "type": "real", "bounds": [0, 10]},
    {"name": "age", "role": "feature", "type": "real", "bounds": [0, 10]},
    {"name": "y", "role": "target", "type": "binary"}]})";

constexpr const char* kCountSchema = R"({"columns": [
    {"name": "dose", "role": "feature", "type": "real", "bounds": [0, 10], "outside": "clip"},
    {"name": "y", "role": "target", "type": "count", "bounds": [0, 30], "outside": "clip"}]})";

// linear: y = 1 + 1.5 x + N(0, 1) with x = (dose − 5)/5 uniform on [-1, 1]. poisson: y ~
// Poisson(e^{1 + 0.8 x}) with x ≈ N(0, 0.3²) (dose = 5 + 1.5 N(0, 1)), the covariate model of
// its noise-aware likelihood (models/noisy_statistics.hpp).
std::string rows_csv(const std::string& family, int n) {
  Rng rng = make_rng(17, 0);
  std::string csv = "dose,y\n";
  for (int i = 0; i < n; ++i) {
    if (family == "poisson") {
      const double dose = 5.0 + 1.5 * rng.normal();
      const double eta = 1.0 + 0.8 * (dose - 5.0) / 5.0;
      csv += fmt::format("{},{}\n", dose, poisson_variate(rng, std::exp(eta)));
      continue;
    }
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
  if (family == "linear") user.sigma = 1.0;
  user.schema_doc = nlohmann::json::parse(family == "poisson" ? kCountSchema : kSchema);
  user.data_text = rows_csv(family, 2000);
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
  spec.out_dir = dir / ("out-" + family + "-" + std::to_string(epsilon));
  return spec;
}

const ParameterSummary& summary_of(const SampleOutcome& out, const std::string& name) {
  const auto it = std::find_if(out.summary.parameters.begin(), out.summary.parameters.end(),
                               [&](const ParameterSummary& p) { return p.name == name; });
  EXPECT_NE(it, out.summary.parameters.end()) << name;
  return *it;
}

// Runs dp-nss for `family` at ε and checks:
//  - the published release is the one PrivateData makes from the rows with the run's key, seed
//    and stream 0 at the reported noise multiplier (rebuilt here), and noise was added to it;
//  - the chains sample the exact posterior given the release: the model's log density (its
//    formula is checked in tests/models/noisy_statistics_test.cpp) by quadrature on a 401 × 401
//    grid over ±8 sds of the chains' pass, independent of NUTS; means and sds within 5 MCSE.
// Returns the run for further checks.
SampleOutcome expect_chains_sample_the_posterior_given_the_release(const std::string& family,
                                                                   double epsilon) {
  testing::TempDir dir;
  const SampleSpec spec = nss_spec(dir, family, epsilon);
  SampleOutcome out = run_sample_job(spec);
  const auto& release = out.report["privacy"]["release_once"];
  const auto& stat = release["statistic"];
  const auto& sd = release["noise_sd"];
  const UserModel user = make_user_model(*spec.user_model);
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
  Vec released(static_cast<Eigen::Index>(names.size())), sds(released.size());
  for (std::size_t j = 0; j < names.size(); ++j) {
    released(static_cast<Eigen::Index>(j)) = stat[names[j]].get<double>();
    sds(static_cast<Eigen::Index>(j)) = sd[names[j]].get<double>();
  }
  const NoisyStatisticsModel model(make_glm_model(user.glm), regression, 2000.0, sds);
  const std::vector<std::string> params = {"intercept", "dose"};
  Vec centre(2), scale(2);
  for (Eigen::Index j = 0; j < 2; ++j) {
    centre(j) = summary_of(out, params[static_cast<std::size_t>(j)]).mean;
    scale(j) = summary_of(out, params[static_cast<std::size_t>(j)]).sd;
  }
  const int g = 401;
  const auto at = [&](int i, int k) {
    return (Vec(2) << centre(0) + scale(0) * (16.0 * i / (g - 1) - 8.0),
            centre(1) + scale(1) * (16.0 * k / (g - 1) - 8.0))
        .finished();
  };
  Mat logp(g, g);
  for (int i = 0; i < g; ++i) {
    for (int k = 0; k < g; ++k) {
      const Vec theta = at(i, k);
      logp(i, k) = model.log_prior(theta) + model.log_lik(theta, released);
    }
  }
  const Mat w = (logp.array() - logp.maxCoeff()).exp().matrix() /
                (logp.array() - logp.maxCoeff()).exp().sum();
  Vec mean = Vec::Zero(2), second = Vec::Zero(2);
  for (int i = 0; i < g; ++i) {
    for (int k = 0; k < g; ++k) {
      const Vec theta = at(i, k);
      mean += w(i, k) * theta;
      second += w(i, k) * theta.cwiseAbs2();
    }
  }
  for (Eigen::Index j = 0; j < 2; ++j) {
    const auto& p = summary_of(out, params[static_cast<std::size_t>(j)]);
    const double exact_sd = std::sqrt(second(j) - mean(j) * mean(j));
    EXPECT_LT(std::abs(p.mean - mean(j)), 5.0 * p.mcse_mean) << family << " " << p.name;
    EXPECT_LT(std::abs(p.sd - exact_sd), 5.0 * p.mcse_sd) << family << " " << p.name;
  }
  return out;
}

TEST(ReleaseOnce, TheChainsSampleTheExactPosteriorGivenTheRelease) {
  expect_chains_sample_the_posterior_given_the_release("linear", 1.0);
}

TEST(ReleaseOnce, PoissonChainsSampleThePosteriorGivenTheReleaseAndFindTheCoefficients) {
  // ε = 4 at n = 2000: the release's noise is a few percent of the statistic. With covariates
  // as the likelihood models them, the posterior must cover the coefficients that made the rows
  // (intercept 1, dose 0.8 per half-range): within 4 posterior sds (a deterministic check at
  // this seed and key; the miss probability of a calibrated posterior is < 10⁻⁴ per coefficient).
  const SampleOutcome out = expect_chains_sample_the_posterior_given_the_release("poisson", 4.0);
  const auto& intercept = summary_of(out, "intercept");
  const auto& dose = summary_of(out, "dose");
  EXPECT_LT(std::abs(intercept.mean - 1.0), 4.0 * intercept.sd) << intercept.mean;
  EXPECT_LT(std::abs(dose.mean - 0.8), 4.0 * dose.sd) << dose.mean;
  EXPECT_LT(dose.sd, 0.3);  // and it learnt something: the prior sd is 2.5
}

TEST(ReleaseOnce, OneReleaseIsRecordedAndItsSpendIsThePlanned) {
  testing::TempDir dir;
  auto spec = nss_spec(dir, "linear", 1.0);
  spec.write_draws = true;
  const SampleOutcome out = run_sample_job(spec);
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
  // The published files name the run as what it is: dp-nss on the 2000 rows of the data file,
  // not nuts on the one-row data set of released statistics that the chains read.
  EXPECT_EQ(out.report["data"]["rows"], 2000);
  EXPECT_NE(out.report["data"]["source"].get<std::string>().find("rows (test)"), std::string::npos);
  EXPECT_FALSE(out.report["data"]["released_statistics"].empty());
  std::ifstream chain(spec.out_dir / "chain-1.csv");
  std::string header, line;
  while (std::getline(chain, line) && line.rfind('#', 0) == 0) header += line + "\n";
  EXPECT_NE(header.find("# sampler = dp-nss\n"), std::string::npos) << header;
  EXPECT_NE(header.find("# n = 2000\n"), std::string::npos) << header;
  EXPECT_EQ(header.find("nuts"), std::string::npos) << header;

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

TEST(ReleaseOnce, SameSeedAndKeySameDrawsAndRunsWithoutWhatTheyNeedAreRefused) {
  testing::TempDir dir;
  auto spec = nss_spec(dir, "linear", 2.0);
  spec.run.samples = 50;
  spec.run.warmup = 50;
  const auto a = run_sample_job(spec);
  spec.out_dir = dir / "again";
  const auto b = run_sample_job(spec);
  for (std::size_t c = 0; c < a.run.chains.size(); ++c)
    EXPECT_EQ(a.run.chains[c].draws, b.run.chains[c].draws);
  auto no_budget = nss_spec(dir, "linear", 1.0);
  no_budget.epsilon.reset();
  EXPECT_THROW(run_sample_job(no_budget), UsageError);
  // poisson reads the covariates' mean from the intercept's column.
  auto no_intercept = nss_spec(dir, "poisson", 1.0);
  (*no_intercept.user_model->schema_doc)["intercept"] = false;
  try {
    run_sample_job(no_intercept);
    ADD_FAILURE() << "poisson without an intercept ran";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("needs the intercept"), std::string::npos) << e.what();
  }
}

// Without --iter/--warmup the chains (post-processing of the release) run again with 4× the
// draws and 2× the warmup while their draws warn R-hat or ESS: here 4 chains of 100 draws fall
// short of a bulk-ESS of 400 (100 per chain), so the run extends until no such warning is left,
// and its draws are those of a run given the final length. With the length given, the chains
// run exactly that long.
TEST(ReleaseOnce, ChainsRunUntilTheyAgreeUnlessTheirLengthIsGiven) {
  testing::TempDir dir;
  auto spec = nss_spec(dir, "linear", 2.0);
  spec.run.samples = 100;
  spec.run.warmup = 100;
  spec.extend_until_converged = true;  // as the CLI without --iter and --warmup
  spec.write_draws = true;
  const auto extended = run_sample_job(spec);
  ASSERT_TRUE(extended.report["sampler"].contains("earlier_passes")) << extended.report.dump();
  const auto& passes = extended.report["sampler"]["earlier_passes"];
  ASSERT_GE(passes.size(), 1u);
  EXPECT_EQ(passes[0]["samples"], 100);
  EXPECT_EQ(passes[0]["warmup"], 100);
  EXPECT_TRUE(passes[0]["why"].get<std::string>().find("ESS") != std::string::npos ||
              passes[0]["why"].get<std::string>().find("R-hat") != std::string::npos)
      << passes.dump();
  const std::size_t rounds = passes.size();
  std::size_t samples = 100, warmup = 100;
  for (std::size_t k = 0; k < rounds; ++k) samples *= 4, warmup *= 2;
  ASSERT_EQ(extended.run.chains.front().draws.rows(), static_cast<Eigen::Index>(samples));
  for (const auto& w : extended.warnings)
    EXPECT_FALSE(w.check == "rhat" || w.check.starts_with("ess_")) << w.problem;
  // On disk: the last pass's chain files and report, moved out of the staging directory.
  EXPECT_FALSE(std::filesystem::exists(spec.out_dir / ".longer"));
  const auto on_disk = nlohmann::json::parse(std::ifstream(spec.out_dir / "report.json"));
  EXPECT_EQ(on_disk["sampler"]["earlier_passes"], passes);
  EXPECT_EQ(on_disk["chains"][0]["file"], (spec.out_dir / "chain-1.csv").string());
  std::ifstream csv(spec.out_dir / "chain-1.csv");
  std::size_t rows = 0;
  for (std::string line; std::getline(csv, line);) rows += !line.empty() && line[0] != '#' ? 1 : 0;
  EXPECT_EQ(rows, samples + 1);  // the header and the kept draws

  auto given = spec;
  given.out_dir = dir / "given";
  given.run.samples = samples;
  given.run.warmup = warmup;
  given.extend_until_converged = false;
  const auto direct = run_sample_job(given);
  EXPECT_FALSE(direct.report["sampler"].contains("earlier_passes"));
  for (std::size_t c = 0; c < direct.run.chains.size(); ++c)
    EXPECT_EQ(direct.run.chains[c].draws, extended.run.chains[c].draws);

  auto short_given = spec;
  short_given.out_dir = dir / "short";
  short_given.extend_until_converged = false;
  const auto short_run = run_sample_job(short_given);
  EXPECT_FALSE(short_run.report["sampler"].contains("earlier_passes"));
  EXPECT_EQ(short_run.run.chains.front().draws.rows(), 100);
  EXPECT_TRUE(std::any_of(short_run.warnings.begin(), short_run.warnings.end(),
                          [](const ConvergenceWarning& w) { return w.check == "ess_bulk"; }));
}

// n logistic rows: y ~ Bernoulli(σ(−0.5 + 2.5 x₁ − 1.5 x₂)), x = (dose − 5)/5, (age − 5)/5
// uniform on [-1, 1].
std::string logistic_csv(int n) {
  Rng rng = make_rng(23, 0);
  std::string csv = "dose,age,y\n";
  for (int i = 0; i < n; ++i) {
    const double dose = 10.0 * rng.uniform(), age = 10.0 * rng.uniform();
    const double eta = -0.5 + 2.5 * (dose - 5.0) / 5.0 - 1.5 * (age - 5.0) / 5.0;
    csv +=
        fmt::format("{},{},{}\n", dose, age, rng.uniform() < 1.0 / (1.0 + std::exp(-eta)) ? 1 : 0);
  }
  return csv;
}

// The rows' posterior mode (priors N(0, 10²) on the intercept, N(0, 2.5²) on the slopes, the
// families' defaults) and the sds of its Laplace approximation, by Newton's method on the
// design's p columns and target: `mean(η)` is E y and its derivative, the per-row weight, is
// σ(η)(1 − σ(η)) for logistic and e^η for poisson.
enum class Link { logit, log };
std::pair<Vec, Vec> rows_mode(const Mat& rows, int p, Link link) {
  Vec precision = Vec::Constant(p, 1.0 / 6.25);
  precision(0) = 1.0 / 100.0;
  Vec beta = Vec::Zero(p);
  Mat h(p, p);
  for (int step = 0; step < 50; ++step) {
    Vec g = -precision.cwiseProduct(beta);
    h = Mat(precision.asDiagonal());
    for (Eigen::Index i = 0; i < rows.rows(); ++i) {
      const Vec x = rows.row(i).head(p).transpose();
      const double eta = x.dot(beta);
      const double m = link == Link::logit ? 1.0 / (1.0 + std::exp(-eta)) : std::exp(eta);
      g += (rows(i, p) - m) * x;
      h += (link == Link::logit ? m * (1.0 - m) : m) * x * x.transpose();
    }
    beta += h.ldlt().solve(g);
  }
  return {beta, h.inverse().diagonal().cwiseSqrt()};
}

TEST(ReleaseOnce, LogisticPilotsRecentreTheExpansionOnTheRowsPosterior) {
  testing::TempDir dir;
  auto spec = nss_spec(dir, "linear", 2.0);
  spec.preset = "logistic";
  spec.user_model->family = "logistic";
  spec.user_model->sigma.reset();
  spec.user_model->schema_doc = nlohmann::json::parse(kBinarySchema);
  spec.user_model->data_text = logistic_csv(20000);
  spec.out_dir = dir / "logistic";
  const SampleOutcome out = run_sample_job(spec);
  const auto& privacy = out.report["privacy"];
  const auto& release = privacy["release_once"];
  // The default pilots for this n and budget (two or three: the release resolves the
  // coefficients), then the final release: all recorded, the plan spent.
  const UserModel user = make_user_model(*spec.user_model);
  const std::uint64_t pilots =
      default_pilot_releases(user.glm, 20000, Budget{*spec.epsilon, *spec.delta});
  ASSERT_GE(pilots, 2u);
  ASSERT_EQ(release["pilots"].size(), pilots);
  EXPECT_EQ(privacy["releases_planned"], 1 + pilots);
  EXPECT_EQ(privacy["releases_recorded"], 1 + pilots);
  EXPECT_EQ(out.recorded.releases(), 1 + pilots);
  for (const auto& row : privacy["accountants"]) {
    if (row["accountant"] != "pld-gaussian") continue;
    EXPECT_NEAR(row["recorded_epsilon"].get<double>(), row["planned_epsilon"].get<double>(), 1e-9);
    EXPECT_LE(row["recorded_epsilon"].get<double>(), 2.0);
  }
  // The published releases are PrivateData's with the published centres: the pilots' and the
  // final one's noise from the run's key, in order.
  const auto glm = make_glm_model(user.glm);
  const double z_pilot = release["pilots"][0]["noise_multiplier"].get<double>();
  const double z_final = release["noise_multiplier"].get<double>();
  PrivateSamplerSetup setup;
  setup.per_iteration = noisy_statistics_template(z_pilot);  // slots: the pilots, the final
  setup.per_iteration.front().count = pilots;
  setup.per_iteration.push_back(noisy_statistics_template(z_final).front());
  EventLog log;
  PrivateData owner(*glm, user.design->data, make_noise_rng(test_noise_key(), 3, 0), log,
                    allowance_for(setup, 1));
  std::vector<std::unique_ptr<RegressionStatistic>> stats;
  stats.push_back(std::make_unique<RegressionStatistic>(user.glm));
  for (const auto& pilot : release["pilots"]) {
    owner.suff_stat(*stats.back(), z_pilot);
    Vec centre(3);
    for (std::size_t j = 0; j < 3; ++j)
      centre(static_cast<Eigen::Index>(j)) = pilot["estimate"][user.glm.coefficient_names[j]];
    stats.push_back(std::make_unique<RegressionStatistic>(user.glm, centre));
  }
  const Vec again = stats.back()->to_units(owner.suff_stat(*stats.back(), z_final).value);
  const auto names = stats.back()->stat_names();
  EXPECT_EQ(names.front(), "xx.intercept.intercept");  // Σ u is released once centred
  for (std::size_t j = 0; j < names.size(); ++j)
    EXPECT_EQ(release["statistic"][names[j]].get<double>(), again(static_cast<Eigen::Index>(j)))
        << names[j];
  // The answer: within 3 posterior sds of the rows' mode for every coefficient (a deterministic
  // check at this key; the expansion at 0 alone misses it by many, below).
  const auto [mode, mode_sd] = rows_mode(user.design->data.x, 3, Link::logit);
  for (std::size_t j = 0; j < 3; ++j) {
    const auto& p = summary_of(out, user.glm.coefficient_names[j]);
    EXPECT_LT(std::abs(p.mean - mode(static_cast<Eigen::Index>(j))), 3.0 * p.sd) << p.name;
    EXPECT_LT(p.sd, 3.0 * mode_sd(static_cast<Eigen::Index>(j))) << p.name;
  }
  EXPECT_TRUE(out.warnings.empty()) << warnings_json(out.warnings).dump();
  // Without pilots the expansion at 0 shrinks the slope of 2.5 by far more than its sd, and the
  // run says so.
  spec.pilot_releases = 0;
  spec.out_dir = dir / "no-pilots";
  const SampleOutcome at_zero = run_sample_job(spec);
  const auto& slope = summary_of(at_zero, "dose");
  EXPECT_GT(std::abs(slope.mean - mode(1)), 5.0 * slope.sd) << slope.mean;
  EXPECT_TRUE(std::any_of(at_zero.warnings.begin(), at_zero.warnings.end(),
                          [](const ConvergenceWarning& w) {
                            return w.check == "expansion_bias" &&
                                   w.advice.find("--pilot-releases 1") != std::string::npos;
                          }))
      << warnings_json(at_zero.warnings).dump();
  // Pilots are for the expansions (logistic, poisson) and linear's residuals only.
  GlmSpec normal;
  normal.family = GlmFamily::normal;
  normal.coefficient_names = {"intercept"};
  EXPECT_THROW(plan_release_once(normal, 1000, Budget{1.0, 1e-5}, 1, std::nullopt, {}, nullptr),
               UsageError);
}

// Linear with a pilot (models/noisy_statistics.hpp, residuals centred at a pilot's estimate):
// the final release clips y − xᵀβ₀ at the pilot's bound (about 3σ̂ at σ = 1 against the declared
// half-range 8), so its noise on Σ x t is smaller than that of one release of the whole budget
// even though the final release has only 70 % of it; the releases are recorded as planned, and
// the posterior lands on the rows' least squares within 3 of its sds.
TEST(ReleaseOnce, LinearPilotCentresTheResidualsAndNarrowsTheirRange) {
  testing::TempDir dir;
  auto spec = nss_spec(dir, "linear", 1.0);
  spec.user_model->sigma.reset();
  spec.user_model->data_text = rows_csv("linear", 20000);
  spec.pilot_releases = 1;
  spec.out_dir = dir / "pilot";
  const SampleOutcome out = run_sample_job(spec);
  const auto& privacy = out.report["privacy"];
  const auto& release = privacy["release_once"];
  ASSERT_EQ(release["pilots"].size(), 1u);
  EXPECT_EQ(privacy["releases_recorded"], 2);
  EXPECT_EQ(out.recorded.releases(), 2u);
  for (const auto& row : privacy["accountants"]) {
    if (row["accountant"] != "pld-gaussian") continue;
    EXPECT_NEAR(row["recorded_epsilon"].get<double>(), row["planned_epsilon"].get<double>(), 1e-9);
  }
  const double bound = release["pilots"][0]["residual_bound"].get<double>();
  EXPECT_GT(bound, 3.0);
  EXPECT_LT(bound, 5.0);
  spec.pilot_releases = 0;
  spec.out_dir = dir / "one";
  const SampleOutcome one = run_sample_job(spec);
  const double ratio = release["noise_sd"]["xt.dose"].get<double>() /
                       one.report["privacy"]["release_once"]["noise_sd"]["xt.dose"].get<double>();
  EXPECT_LT(ratio, 0.8) << ratio;
  // The rows' least squares (the priors' pull is negligible at 20 000 rows).
  const UserModel user = make_user_model(*spec.user_model);
  const Mat& rows = user.design->data.x;
  const Mat x = rows.leftCols(2);
  const Vec y = rows.col(2);
  const Vec ls = (x.transpose() * x).ldlt().solve(x.transpose() * y);
  for (std::size_t j = 0; j < 2; ++j) {
    const auto& p = summary_of(out, user.glm.coefficient_names[j]);
    EXPECT_LT(std::abs(p.mean - ls(static_cast<Eigen::Index>(j))), 3.0 * p.sd) << p.name;
  }
  const auto& log_sigma = summary_of(out, "log_sigma");
  const double rss = (y - x * ls).squaredNorm() / static_cast<double>(rows.rows());
  EXPECT_LT(std::abs(log_sigma.mean - 0.5 * std::log(rss)), 3.0 * log_sigma.sd);
  EXPECT_TRUE(std::none_of(out.warnings.begin(), out.warnings.end(),
                           [](const ConvergenceWarning& w) { return w.check == "residual_clip"; }))
      << warnings_json(out.warnings).dump();
  // The default (release_once_job.cpp, measured on the calibration grid): none below εn = 5000,
  // one below 10⁴, two from there.
  const auto pilots = [&](std::size_t n, double epsilon) {
    return default_pilot_releases(user.glm, n, Budget{epsilon, 1e-5});
  };
  EXPECT_EQ(pilots(1000, 4.0), 0u);
  EXPECT_EQ(pilots(10000, 0.5), 1u);
  EXPECT_EQ(pilots(9999, 1.0), 1u);
  EXPECT_EQ(pilots(10000, 1.0), 2u);
}

// Poisson's default pilots (release_once_job.cpp, measured on the calibration grid): two from
// 50 000 rows at every ε, and below where ε√n ≥ 300, else none.
TEST(ReleaseOnce, PoissonPilotsByDefaultWhereTheReleaseResolvesTheSlopes) {
  UserModelSpec spec;
  spec.family = "poisson";
  spec.schema_file = "schema (test)";
  spec.data_file = "rows (test)";
  spec.schema_doc = nlohmann::json::parse(kCountSchema);
  spec.data_text = "dose,y\n1,2\n3,4\n5,1\n";
  const GlmSpec glm = make_user_model(spec).glm;
  const auto pilots = [&](std::size_t n, double epsilon) {
    return default_pilot_releases(glm, n, Budget{epsilon, 1e-5});
  };
  EXPECT_EQ(pilots(50000, 0.1), 2u);
  EXPECT_EQ(pilots(10000, 4.0), 2u);  // ε√n = 400
  EXPECT_EQ(pilots(10000, 3.0), 2u);  // 300
  EXPECT_EQ(pilots(10000, 2.0), 0u);  // 200
  EXPECT_EQ(pilots(1000, 4.0), 0u);   // 126
  EXPECT_EQ(pilots(49999, 1.0), 0u);  // 224
}

// Poisson from 50 000 rows: two pilots (the covariates' model's mode, then one expansion at it)
// and the final expansion, all recorded and spent as planned; the posterior lands on the rows'
// own posterior mode (Newton's method here on Σ (y η − e^η) with the N(0, 10²) and N(0, 2.5²)
// priors), within 3 of its sds.
TEST(ReleaseOnce, PoissonPilotsLandOnTheRowsPosterior) {
  testing::TempDir dir;
  auto spec = nss_spec(dir, "poisson", 2.0);
  // Uniform covariates and a strong slope, where the covariates' Gaussian model shrinks it:
  // y ~ Poisson(e^{1 + 1.5x}), x = (dose − 5)/5 uniform on [-1, 1] (rates to 12; the declared
  // 30 clips almost nothing).
  Rng rng = make_rng(29, 0);
  std::string csv = "dose,y\n";
  for (int i = 0; i < 60000; ++i) {
    const double dose = 10.0 * rng.uniform();
    csv += fmt::format("{},{}\n", dose,
                       poisson_variate(rng, std::exp(1.0 + 1.5 * (dose - 5.0) / 5.0)));
  }
  spec.user_model->data_text = csv;
  spec.out_dir = dir / "poisson-pilots";
  const SampleOutcome out = run_sample_job(spec);
  const auto& privacy = out.report["privacy"];
  ASSERT_EQ(privacy["release_once"]["pilots"].size(), 2u);
  EXPECT_EQ(privacy["releases_recorded"], 3);
  EXPECT_EQ(out.recorded.releases(), 3u);
  for (const auto& row : privacy["accountants"]) {
    if (row["accountant"] != "pld-gaussian") continue;
    EXPECT_NEAR(row["recorded_epsilon"].get<double>(), row["planned_epsilon"].get<double>(), 1e-9);
  }
  const UserModel user = make_user_model(*spec.user_model);
  const Vec beta = rows_mode(user.design->data.x, 2, Link::log).first;
  for (std::size_t j = 0; j < 2; ++j) {
    const auto& p = summary_of(out, user.glm.coefficient_names[j]);
    EXPECT_LT(std::abs(p.mean - beta(static_cast<Eigen::Index>(j))), 3.0 * p.sd) << p.name;
  }
  EXPECT_TRUE(out.warnings.empty()) << warnings_json(out.warnings).dump();
  // Without pilots the covariates' Gaussian model misses the slope by many of its sds.
  spec.pilot_releases = 0;
  spec.out_dir = dir / "poisson-no-pilots";
  const SampleOutcome gaussian_x = run_sample_job(spec);
  const auto& slope = summary_of(gaussian_x, "dose");
  EXPECT_GT(std::abs(slope.mean - beta(1)), 5.0 * slope.sd) << slope.mean << " vs " << beta(1);
}

}  // namespace
}  // namespace dpmcmc

namespace dpmcmc {
namespace {

// Where no clip would be narrower than y's declared half-range (σ = 3 on ±8: 3σ̂ ≈ 9), the pilot
// publishes no residual bound and the final release is the uncentred statistic, still one pilot
// and one final release recorded as planned, and the mechanism says so.
TEST(ReleaseOnce, LinearPilotFallsBackToTheUncentredStatisticWhereNoClipHelps) {
  testing::TempDir dir;
  auto spec = nss_spec(dir, "linear", 2.0);
  spec.user_model->sigma.reset();
  Rng rng = make_rng(43, 0);
  std::string csv = "dose,y\n";
  for (int i = 0; i < 20000; ++i) {
    const double dose = 10.0 * rng.uniform();
    csv += fmt::format("{},{}\n", dose, 1.0 + 1.5 * (dose - 5.0) / 5.0 + rng.normal(0.0, 3.0));
  }
  spec.user_model->data_text = csv;
  spec.pilot_releases = 1;
  const SampleOutcome out = run_sample_job(spec);
  const auto& release = out.report["privacy"]["release_once"];
  ASSERT_EQ(release["pilots"].size(), 1u);
  EXPECT_TRUE(release["pilots"][0]["residual_bound"].is_null()) << release["pilots"].dump();
  EXPECT_EQ(out.recorded.releases(), 2u);
  EXPECT_NE(release["mechanism"].get<std::string>().find("uncentred"), std::string::npos);
  // Uncentred: t = y − 0 (y's declared middle), so Σ t ≈ n·1 (the intercept); centred, ≈ 0.
  EXPECT_GT(release["statistic"]["xt.intercept"].get<double>(), 0.5 * 20000);
}

// Student-t(3) errors scaled to sd 1 (heavier tails than the clip's Gaussian model): at 10⁵ rows
// and ε = 4 the clipped residuals make σ too small (experiments/results/linear-tails: 55 of its
// non-private sds), and the first pilot's log σ̂, clipped at y's declared range only, shows it:
// the run warns residual_clip on log_sigma with the advice that is true here (no pilots).
TEST(ReleaseOnce, HeavyTailedErrorsUnderTheResidualClipAreWarnedOf) {
  testing::TempDir dir;
  auto spec = nss_spec(dir, "linear", 4.0);
  spec.user_model->sigma.reset();
  Rng rng = make_rng(41, 0);
  std::string csv = "dose,y\n";
  for (int i = 0; i < 100000; ++i) {
    const double dose = 10.0 * rng.uniform();
    double chi2 = 0.0;
    for (int k = 0; k < 3; ++k) chi2 += std::pow(rng.normal(), 2);
    const double t3 = rng.normal() / std::sqrt(chi2 / 3.0) / std::sqrt(3.0);
    csv += fmt::format("{},{}\n", dose, 1.0 + 1.5 * (dose - 5.0) / 5.0 + t3);
  }
  spec.user_model->data_text = csv;
  spec.delta = 1e-5;
  const SampleOutcome out = run_sample_job(spec);
  ASSERT_EQ(out.report["privacy"]["release_once"]["pilots"].size(), 2u);
  const auto it =
      std::find_if(out.warnings.begin(), out.warnings.end(),
                   [](const ConvergenceWarning& w) { return w.check == "residual_clip"; });
  ASSERT_NE(it, out.warnings.end()) << warnings_json(out.warnings).dump();
  EXPECT_EQ(it->subject, "log_sigma");
  EXPECT_NE(it->advice.find("--pilot-releases 0"), std::string::npos);
}

}  // namespace
}  // namespace dpmcmc
