// The private part of a sampling job (docs/architecture.md): check the budget, plan the run's
// iterations with the certified accountants, give each chain its allowance and its noise stream
// from the secret key, and build kernels that reach the data only through their chain's PrivateData
// (or an OwnerGroup of one PrivateData per data owner). The job (sample_job.cpp) runs the chains
// and reports; the releases are in `logs`.
#pragma once

#include <functional>

#include <cstddef>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "core/noise_key.hpp"
#include "data/dataset.hpp"
#include "models/presets.hpp"
#include "privacy/event_log.hpp"
#include "run/ledger_entry.hpp"
#include "run/private_plan.hpp"
#include "run/private_samplers.hpp"
#include "run/run_config.hpp"
#include "run/runner.hpp"
#include "run/sample_job.hpp"
#include "run/sampler_descriptors.hpp"

namespace dpmcmc {

class NewOutputDirs;

struct PrivateJob {
  explicit PrivateJob(NoiseKey key) : noise_key(std::move(key)) {}

  NoiseKey noise_key;  // the secret key of the chains' noise streams (never written)
  PrivateSamplerSetup setup;
  PrivateRunPlan plan;
  std::vector<std::vector<EventLog>> logs;   // per chain, per data owner
  std::vector<Dataset> shards;               // the owners' rows (empty: a single owner)
  std::vector<ReleaseAllowance> allowances;  // per chain

  // The releases of every chain merged per owner (owner 1 first; the only one unless shared).
  std::vector<EventLog> per_owner() const;
};

// The run's secret noise key: spec.noise_key, else read from (or created in) spec.noise_key_file,
// else fresh from OS entropy.
NoiseKey job_noise_key(const SampleSpec& spec);

// A private run refused before its first release (the budget ledger: exit 77) leaves no output:
// the noise key file it created (nothing was released under that key) and, when empty, the output
// directories it created.
void undo_refused_run(const SampleSpec& spec, const NoiseKey& key, const NewOutputDirs& dirs);

// The run's entry in the budget ledger (LedgerEntry::open): its releases reserved before the
// first one. A refusal (BudgetRefusal, rethrown) undoes the run first (undo_refused_run).
LedgerEntry reserve_budget(const SampleSpec& spec, const PrivateRunPlan& plan,
                           const std::optional<std::filesystem::path>& checkpoints,
                           const NoiseKey& key, const NewOutputDirs& dirs);

// Checks --epsilon, --delta and --warmup-fraction (UsageError naming the option), builds the
// sampler's setup, plans, sets run.per_chain (warmup, samples) from the plan and reads the noise
// key (spec.noise_key, else spec.noise_key_file, else a fresh one). Releases nothing.
// `before_key`, when given, runs once the run is known to be possible and before the key file is
// read or created: the job claims its output directory there (data/directory_lock.hpp), so that a
// run refused as busy leaves no key file behind.
PrivateJob prepare_private_job(const SampleSpec& spec, const SamplerDescriptor& entry,
                               const Preset& preset, const Model& model, const Dataset& data,
                               const nlohmann::json& params, RunConfig& run,
                               const std::function<void()>& before_key = {});

// Chain c's kernel: its PrivateData (or owner group) keyed by (key, seed, chain[, owner]), with
// its allowance and event logs in `job`, and eps_spent__ metered on owner 1's log at the plan's
// accountant δ. `job`, `model` and `data` must outlive the factory and its kernels.
KernelFactory private_kernel_factory(PrivateJob& job, const Model& model, const Dataset& data,
                                     const RunConfig& run);

// The privacy section of the report: planned vs recorded for owner 1, and with several owners
// one entry per owner — its rows and its recorded spend by the accountant that certified the
// plan (each owner's guarantee is about its own rows).
nlohmann::json owners_privacy_report(const PrivateJob& job, PlanMemo* memo);

}  // namespace dpmcmc
