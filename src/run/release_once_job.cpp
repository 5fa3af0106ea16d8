#include "run/release_once_job.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/error.hpp"
#include "io/run_report.hpp"
#include "models/noisy_statistics.hpp"
#include "privacy/gaussian_pld.hpp"
#include "privacy/iteration_templates.hpp"
#include "privacy/private_data.hpp"
#include "run/curator_files.hpp"
#include "run/private_job.hpp"
#include "run/private_samplers.hpp"

namespace dpmcmc {
namespace {

using json = nlohmann::json;

// The plan of one release of `coordinates` values with the smallest noise the budget allows.
PrivateRunPlan plan_one_release(const SampleSpec& spec, const Budget& budget,
                                std::size_t coordinates) {
  const double mu_max = gaussian_pld_max_mu(budget.epsilon, budget.delta * (1.0 - 0x1p-10));
  double z = 1.0 / std::sqrt(2.0 * mu_max);
  for (int attempt = 0;; ++attempt, z *= 1.01) {
    try {
      return plan_private_run(budget, noisy_statistics_template(z), 1, spec.accountants, {},
                              coordinates, spec.plan_memo.get());
    } catch (const ConfigError&) {
      // The discrete noise's share of δ may want a little more noise; beyond that the budget
      // fits no noise level (ε so large that e^ε swamps it): the planner's own message.
      if (attempt == 5) throw;
    }
  }
}

}  // namespace

SampleOutcome run_release_once_job(const SampleSpec& spec) {
  if (!spec.user_model)
    throw UsageError(fmt::format(
        "--sampler {}: releases a regression family's sufficient statistics once; give --model "
        "linear, normal or logistic with --schema and --data",
        kReleaseOnceSampler));
  if (!spec.epsilon)
    throw UsageError(fmt::format("--epsilon: sampler '{}' is private and needs a privacy budget",
                                 kReleaseOnceSampler));
  const UserModel user = make_user_model(*spec.user_model);
  const GlmFamily family = user.glm.family;
  if (family != GlmFamily::linear && family != GlmFamily::normal && family != GlmFamily::logistic)
    throw UsageError(fmt::format(
        "--sampler {}: model '{}' has no released statistic; the families with one are linear, "
        "normal and logistic",
        kReleaseOnceSampler, spec.user_model->family));
  const Dataset& rows = user.design->data;
  const Budget budget{*spec.epsilon, spec.delta.value_or(0.1 / static_cast<double>(rows.rows()))};
  check_epsilon(budget.epsilon, "--epsilon");
  check_delta(budget.delta, "--delta");

  const std::shared_ptr<const GlmModel> glm = make_glm_model(user.glm);
  const RegressionStatistic stat(user.glm);
  PrivateRunPlan plan = plan_one_release(spec, budget, static_cast<std::size_t>(stat.stat_dim()));
  const double z = plan.per_iteration.front().noise_multiplier();
  PrivateSamplerSetup setup;
  setup.per_iteration = plan.per_iteration;
  EventLog log;
  const NoiseKey key = job_noise_key(spec);
  PrivateData owner(*glm, rows, make_noise_rng(key, spec.run.seed, 0), log,
                    allowance_for(setup, 1));
  const VectorRelease release = owner.suff_stat(stat, z);

  // From here on only the release is used, in the statistic's units.
  const Vec value = release.value.cwiseProduct(stat.widths());
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
  SampleSpec chains = spec;
  chains.sampler = "nuts";
  chains.user_model.reset();
  chains.data_file.reset();
  chains.custom_model = preset;
  chains.checkpoint.reset();
  chains.publish_timings = false;  // as every private run: timings are not released
  SampleOutcome out = run_sample_job(chains);

  json privacy = privacy_report(plan, log, spec.plan_memo.get());
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
  out.report["privacy"] = privacy;
  out.report.erase("accuracy");  // none without an exact reference; never published here
  out.report["sampler"]["name"] = kReleaseOnceSampler;
  out.report["sampler"]["chains"] = "nuts on the posterior given the released statistics";
  out.report["curator"] = {
      {"directory", curator_dir(spec.out_dir).string()},
      {"note",
       "clip and impute counts are in the curator directory: computed from the private "
       "data without noise"}};
  write_json(out.report, out.report_file);
  out.plan = std::move(plan);
  out.recorded = log;
  // Counted on the private rows without noise: the curator's.
  const auto curator = curator_dir(spec.out_dir);
  prepare_curator_dir(curator);
  out.curator = {{"run_report", out.report_file.string()},
                 {"data_preparation", user.design->report.to_json()}};
  out.curator_file = curator / "report.json";
  write_curator_json(out.curator, out.curator_file);
  return out;
}

}  // namespace dpmcmc
