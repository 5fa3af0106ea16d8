#include "run/release_once_job.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <optional>

#include "core/error.hpp"
#include "data/directory_lock.hpp"
#include "io/run_report.hpp"
#include "models/noisy_statistics.hpp"
#include "models/user_model.hpp"
#include "privacy/gaussian_pld.hpp"
#include "privacy/iteration_templates.hpp"
#include "privacy/private_data.hpp"
#include "run/curator_files.hpp"
#include "run/ledger_entry.hpp"
#include "run/private_job.hpp"
#include "run/private_samplers.hpp"
#include "run/runner.hpp"
#include "run/sampler_params.hpp"

namespace dpmcmc {
namespace {

using json = nlohmann::json;

// The plan of one release of `coordinates` values with the smallest noise multiplier z that the
// certified planner accepts within the budget: from the exact Gaussian PLD's z (enough when it
// plans) up by factors of 1.25 until a plan exists (zCDP or RDP alone need ~10–30 % more), then
// bisected down to within 2 % of the smallest.
PrivateRunPlan plan_one_release(const SampleSpec& spec, const Budget& budget,
                                std::size_t coordinates) {
  const auto plan_at = [&](double z) -> std::optional<PrivateRunPlan> {
    if (!(z > 0.0) || !std::isfinite(z)) return std::nullopt;
    try {
      return plan_private_run(budget, noisy_statistics_template(z), 1, spec.accountants, {},
                              coordinates, spec.plan_memo.get());
    } catch (const ConfigError&) {
      return std::nullopt;
    }
  };
  const double mu_max = gaussian_pld_max_mu(budget.epsilon, budget.delta * (1.0 - 0x1p-10));
  double lo = 1.0 / std::sqrt(2.0 * mu_max);
  if (auto plan = plan_at(lo)) return *plan;
  double hi = lo;
  std::optional<PrivateRunPlan> best;
  for (int i = 0; i < 40 && !best; ++i) best = plan_at(hi *= 1.25);
  if (!best)
    throw ConfigError(fmt::format(
        "--sampler {}: no noise level lets the accountants ({}) certify one release of the "
        "sufficient statistics within epsilon {:g}, delta {:g}",
        kReleaseOnceSampler,
        spec.accountants.empty() ? std::string("every certified one")
                                 : fmt::format("{}", fmt::join(spec.accountants, ", ")),
        budget.epsilon, budget.delta));
  while (hi / lo > 1.02) {
    const double mid = std::sqrt(lo * hi);
    if (auto plan = plan_at(mid)) {
      best = std::move(plan);
      hi = mid;
    } else {
      lo = mid;
    }
  }
  return *best;
}

// What the chains are given must be valid before the budget is spent on the release.
void check_chain_options(const SampleSpec& spec, int dim) {
  check_sampler_keys("nuts", spec.overrides);
  // Before the release: the runner checks again with the chains' exact columns.
  check_kept_draws_fit(spec.run.chains, {spec.run.warmup, spec.run.samples}, spec.run.thin,
                       spec.run.save_warmup, static_cast<std::size_t>(dim) + 2);
  if (spec.n)
    throw UsageError("--n: the rows come from --data; --n applies to a preset's synthetic data");
  for (const auto& point : spec.run.init.points) {
    if (point.size() != dim)
      throw UsageError(
          fmt::format("--init: expected {} values (one per parameter), got {}", dim, point.size()));
  }
  if (spec.run.init.centre.size() != 0 && spec.run.init.centre.size() != dim)
    throw UsageError(fmt::format("--init-centre: expected {} values (one per parameter), got {}",
                                 dim, spec.run.init.centre.size()));
}

}  // namespace

SampleOutcome run_release_once_job(const SampleSpec& spec) {
  if (!spec.user_model)
    throw UsageError(fmt::format(
        "--sampler {}: releases a regression family's sufficient statistics once; give --model "
        "linear, normal, logistic or poisson with --schema and --data",
        kReleaseOnceSampler));
  if (!spec.epsilon)
    throw UsageError(fmt::format("--epsilon: sampler '{}' is private and needs a privacy budget",
                                 kReleaseOnceSampler));
  const UserModel user = make_user_model(*spec.user_model);
  const GlmFamily family = user.glm.family;
  if (!has_released_statistic(family, user.design->intercept)) {
    throw UsageError(
        family == GlmFamily::poisson
            ? fmt::format("--sampler {}: model 'poisson' needs the intercept (its column releases "
                          "the covariates' mean); remove \"intercept\": false from schema {}",
                          kReleaseOnceSampler, spec.user_model->schema_file.string())
            : fmt::format("--sampler {}: model '{}' has no released statistic; the families with "
                          "one are linear, normal, logistic and poisson",
                          kReleaseOnceSampler, spec.user_model->family));
  }
  const Dataset& rows = user.design->data;
  const Budget budget{*spec.epsilon, spec.delta.value_or(0.1 / static_cast<double>(rows.rows()))};
  check_epsilon_option(budget.epsilon, "--epsilon");
  check_delta_option(budget.delta, "--delta");

  const std::shared_ptr<const GlmModel> glm = make_glm_model(user.glm);
  check_chain_options(spec, glm->dim());
  const RegressionStatistic stat(user.glm);
  PrivateRunPlan plan = plan_one_release(spec, budget, static_cast<std::size_t>(stat.stat_dim()));
  const double z = plan.per_iteration.front().noise_multiplier();
  // The run is possible: its directory is claimed before anything is written, the key file
  // included (data/directory_lock.hpp; the chains' job below, in this thread, shares the lock).
  const NewOutputDirs new_dirs(spec.out_dir);
  const DirectoryLock out_lock(spec.out_dir, output_option(spec));
  const NoiseKey key = job_noise_key(spec);
  // Counted on the private rows without noise: the curator's, written before anything else.
  const auto curator = curator_dir(spec.out_dir);
  prepare_curator_dir(curator);
  LedgerEntry ledger = [&] {
    try {
      return LedgerEntry::open(spec, plan, std::nullopt);
    } catch (const BudgetRefusal&) {
      undo_refused_run(spec, key, new_dirs);
      throw;
    }
  }();
  json curator_report = {
      {"run_report", (spec.out_dir / "report.json").string()},
      {"noise_key_file", spec.noise_key_file ? json(spec.noise_key_file->string()) : json(nullptr)},
      {"data_preparation", user.design->report.to_json()}};
  write_curator_json(curator_report, curator / "report.json");

  PrivateSamplerSetup setup;
  setup.per_iteration = plan.per_iteration;
  EventLog log;
  PrivateData owner(*glm, rows, make_noise_rng(key, spec.run.seed, 0), log,
                    allowance_for(setup, 1));
  std::optional<VectorRelease> made;
  try {
    made = owner.suff_stat(stat, z);
  } catch (...) {
    ledger.settle(false, false, log);  // what was released, if anything
    throw;
  }
  const VectorRelease& release = *made;
  ledger.settle(true, false, log);
  curator_report["budget_across_runs"] = ledger.json();
  write_curator_json(curator_report, curator / "report.json");

  // From here on only the release is used, in the statistic's units.
  const Vec value = stat.to_units(release.value);
  const Vec noise_sd = release.noise_sd * stat.widths();
  Dataset released;
  released.x = value.transpose();
  released.columns = stat.stat_names();
  released.source = fmt::format("noisy sufficient statistics of {}", rows.source);
  auto preset = std::make_shared<Preset>(user.preset);
  preset->n = 1;
  preset->make_model = [glm, stat, n = static_cast<double>(rows.rows()), sd = noise_sd, released] {
    return std::unique_ptr<Model>(
        std::make_unique<NoisyStatisticsModel>(glm, stat, n, sd, released.x.row(0).transpose()));
  };
  preset->load_data = [released] { return released; };

  // The published report is written once, by the chains' job, with the release's privacy
  // section in it.
  json privacy = privacy_report(plan, log, spec.plan_memo.get());
  for (const char* key_name : {"iterations_allowed", "iterations_per_chain", "iterations_scheduled",
                               "iterations_unused", "epsilon_of_iterations_allowed"})
    privacy.erase(key_name);
  privacy["releases_planned"] = 1;
  json statistic = json::object();
  json sds = json::object();
  for (std::size_t j = 0; j < released.columns.size(); ++j) {
    statistic[released.columns[j]] = value(static_cast<Eigen::Index>(j));
    sds[released.columns[j]] = noise_sd(static_cast<Eigen::Index>(j));
  }
  privacy["release_once"] = {
      {"mechanism",
       "one Gaussian release of the sufficient statistics, each component in units of its "
       "declared range; the chains are post-processing"},
      {"noise_multiplier", z},
      {"sensitivity", release.sensitivity},
      {"statistic", statistic},
      {"noise_sd", sds}};
  SampleSpec chains = spec;
  chains.sampler = "nuts";
  chains.user_model.reset();
  chains.data_file.reset();
  chains.custom_model = preset;
  chains.checkpoint.reset();
  chains.publish_timings = false;  // as every private run: timings are not released
  const std::string data_source =
      fmt::format("{} (chains on one noisy release of its sufficient statistics)", rows.source);
  chains.header_overrides = {
      {"sampler", kReleaseOnceSampler}, {"data", data_source}, {"n", std::to_string(rows.rows())}};
  chains.amend_report = [&](json& report) {
    report["privacy"] = privacy;
    // The rows the statistics were released from (n is public under the substitute relation, as
    // in every private run's report), not the one-row data set the chains read.
    report["data"] = {{"source", data_source},
                      {"rows", rows.rows()},
                      {"columns", rows.columns},
                      {"released_statistics", released.columns}};
    report.erase("accuracy");  // none without an exact reference; never published here
    report["sampler"]["name"] = kReleaseOnceSampler;
    report["sampler"]["chains"] = "nuts on the posterior given the released statistics";
    report["run"]["noise_key"] = key.describe();
    report["curator"] = {
        {"directory", curator.string()},
        {"note",
         "clip and impute counts are in the curator directory: computed from the private "
         "data without noise"}};
  };
  SampleOutcome out = run_sample_job(chains);
  out.plan = std::move(plan);
  out.noise_key_created = key.source() == NoiseKey::Source::file_created;
  out.recorded = log;
  out.ledger = ledger.json();
  out.curator = curator_report;
  out.curator_file = curator / "report.json";
  return out;
}

}  // namespace dpmcmc
