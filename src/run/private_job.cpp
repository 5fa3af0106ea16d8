#include "run/private_job.hpp"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>

#include "core/error.hpp"
#include "io/run_report.hpp"
#include "privacy/owner_group.hpp"
#include "privacy/private_data.hpp"
#include "privacy/spend_meter.hpp"
#include "run/curator_files.hpp"

namespace dpmcmc {

using nlohmann::json;

std::vector<EventLog> PrivateJob::per_owner() const {
  std::vector<EventLog> merged(logs.empty() ? 0 : logs.front().size());
  for (const auto& chain_logs : logs) {
    for (std::size_t i = 0; i < chain_logs.size(); ++i) merged[i].merge(chain_logs[i]);
  }
  return merged;
}

NoiseKey job_noise_key(const SampleSpec& spec) {
  return spec.noise_key        ? *spec.noise_key
         : spec.noise_key_file ? NoiseKey::from_file(*spec.noise_key_file)
                               : NoiseKey::fresh();
}

void undo_refused_run(const SampleSpec& spec, const NoiseKey& key, const NewOutputDirs& dirs) {
  if (spec.noise_key_file && key.source() == NoiseKey::Source::file_created)
    std::filesystem::remove(*spec.noise_key_file);
  dirs.remove_if_empty();
}

LedgerEntry reserve_budget(const SampleSpec& spec, const PrivateRunPlan& plan,
                           const std::optional<std::filesystem::path>& checkpoints,
                           const NoiseKey& key, const NewOutputDirs& dirs) {
  try {
    return LedgerEntry::open(spec, plan, checkpoints);
  } catch (const BudgetRefusal&) {
    undo_refused_run(spec, key, dirs);
    throw;
  }
}

PrivateJob prepare_private_job(const SampleSpec& spec, const SamplerDescriptor& entry,
                               const Preset& preset, const Model& model, const Dataset& data,
                               const json& params, RunConfig& run,
                               const std::function<void()>& before_key) {
  if (!spec.epsilon) {
    throw UsageError(
        fmt::format("--epsilon: sampler '{}' is private and needs a privacy budget", spec.sampler));
  }
  const Budget budget{*spec.epsilon, spec.delta.value_or(default_delta(
                                         preset, data.rows(), !spec.data_file.has_value()))};
  check_epsilon_option(budget.epsilon, "--epsilon");
  check_delta_option(budget.delta, "--delta");
  if (!(spec.warmup_fraction >= 0.0 && spec.warmup_fraction < 1.0)) {
    throw UsageError(fmt::format("--warmup-fraction: expected a number in [0, 1), got {}",
                                 spec.warmup_fraction));
  }
  PrivateSamplerSetup setup = entry.build_private(spec.sampler, params, model, data.rows());
  // The owners' shares are checked before planning (an impossible split is an input error).
  std::vector<Dataset> shards;
  if (setup.owners > 1) shards = owner_shards(data, setup.owners);
  PrivateRunPlan plan =
      plan_private_run(budget, setup.per_iteration, run.chains, spec.accountants, {},
                       release_coordinates(model, setup), spec.plan_memo.get());
  // The key is read (or its file created) only once the run is known to be possible.
  if (before_key) before_key();
  PrivateJob job(job_noise_key(spec));
  job.setup = std::move(setup);
  job.shards = std::move(shards);
  job.plan = std::move(plan);
  run.per_chain.clear();
  for (const auto k : job.plan.split.per_chain) {
    const auto warm =
        static_cast<std::size_t>(std::floor(spec.warmup_fraction * static_cast<double>(k)));
    run.per_chain.push_back({warm, static_cast<std::size_t>(k) - warm});
    job.allowances.push_back(allowance_for(job.setup, k));
  }
  run.warmup = run.per_chain.front().warmup;
  run.samples = run.per_chain.front().samples;
  job.logs.assign(static_cast<std::size_t>(run.chains), std::vector<EventLog>(job.setup.owners));
  return job;
}

KernelFactory private_kernel_factory(PrivateJob& job, const Model& model, const Dataset& data,
                                     const RunConfig& run) {
  return [&job, &model, &data, seed = run.seed,
          first = run.first_chain](int chain) -> std::unique_ptr<Kernel> {
    const auto index = static_cast<std::size_t>(chain - first);
    const auto stream = static_cast<std::uint64_t>(chain);
    std::vector<EventLog>& logs = job.logs[index];
    std::unique_ptr<PrivateKernel> kernel;
    if (job.shards.empty()) {
      kernel = job.setup.make_kernel(
          std::make_unique<PrivateData>(model, data, make_noise_rng(job.noise_key, seed, stream),
                                        logs[0], job.allowances[index]));
    } else {
      // Owner i's noise stream is that of (key, seed, chain, owner i): no two parties of a run
      // share a stream (owner 0's is the single-owner stream).
      std::vector<std::unique_ptr<DataOwner>> parties;
      for (std::size_t i = 0; i < job.shards.size(); ++i) {
        parties.push_back(std::make_unique<PrivateData>(
            model, job.shards[i], make_noise_rng(job.noise_key, seed, stream, i), logs[i],
            job.allowances[index]));
      }
      kernel = job.setup.make_group_kernel(std::make_unique<OwnerGroup>(std::move(parties)));
    }
    // eps_spent__: ε(δ) of this chain's own releases so far (privacy/spend_meter.hpp), as seen by
    // owner 1 (every owner makes the same releases); the run's total is in the report.
    auto meter = std::make_shared<SpendMeter>(job.plan.accountant_delta);
    const EventLog* log = &logs[0];
    kernel->set_spend_callback([meter, log](std::uint64_t) { return meter->epsilon(*log); });
    return kernel;
  };
}

json owners_privacy_report(const PrivateJob& job, PlanMemo* memo) {
  const std::vector<EventLog> per_owner = job.per_owner();
  json report = privacy_report(job.plan, per_owner.empty() ? EventLog{} : per_owner.front(), memo);
  if (job.shards.empty()) return report;
  json owners = json::array();
  for (std::size_t i = 0; i < per_owner.size(); ++i) {
    owners.push_back(
        {{"owner", i + 1},
         {"rows", job.shards[i].rows()},
         {"releases", per_owner[i].releases()},
         {"recorded_epsilon",
          json_number(composed_epsilon(job.plan.tightest.best.accountant, per_owner[i].events(),
                                       job.plan.accountant_delta, job.plan.options))}});
  }
  report["owners"] = owners;
  report["note_owners"] =
      "data sharing ([Yildirim2020] Algorithm 2): each owner adds its own noise with the "
      "single-owner sigma, so each owner's rows have the planned guarantee against all other "
      "parties";
  return report;
}

}  // namespace dpmcmc
