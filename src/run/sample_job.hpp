// A complete sampling job, as `dpmcmc sample` runs it (Stan's "services" layer): resolve the
// model preset and its data, build one kernel per chain, run the chains with a Stan CSV file per
// chain, then summarise the draws (diagnostics, and MMD against exact posterior draws where the
// model has them) and write the JSON run report beside the draws.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/noise_key.hpp"
#include "diagnostics/convergence_warnings.hpp"
#include "diagnostics/mmd.hpp"
#include "diagnostics/summary.hpp"
#include "models/presets.hpp"
#include "models/reference_cache.hpp"
#include "models/user_model.hpp"
#include "run/private_plan.hpp"
#include "run/run_config.hpp"
#include "run/runner.hpp"

namespace dpmcmc {

struct SampleSpec {
  std::string preset;                              // model preset name
  std::optional<std::filesystem::path> data_file;  // CSV; empty: the preset's synthetic data
  // A regression family on the user's data_file and public schema (models/user_model.hpp),
  // instead of the preset named `preset`.
  std::optional<UserModelSpec> user_model;
  // A model defined by the caller (a library user's own Model subclass, its data and sampler
  // defaults, as a Preset: examples/custom-model), instead of the preset named `preset`.
  std::shared_ptr<const Preset> custom_model;
  std::optional<std::size_t> n;            // rows of the synthetic data
  std::optional<std::uint64_t> data_seed;  // synthetic data seed (default: the run seed)
  std::string sampler = "hmc";
  // Hyperparameters overriding the preset's defaults for the sampler (same keys as
  // Preset::samplers, see models/presets.hpp).
  nlohmann::json overrides = nlohmann::json::object();
  RunConfig run;            // chains, seed, warmup, samples, thin, threads, init, progress
  bool seed_given = false;  // false: run.seed came from OS entropy (reported)
  // Private samplers: the secret noise key (core/noise_key.hpp) — given by the caller (library
  // users, experiments), else read from or created in noise_key_file, else fresh from OS entropy.
  // The public seed never keys the noise.
  std::shared_ptr<const NoiseKey> noise_key;
  std::optional<std::filesystem::path> noise_key_file;
  // Memo of plans and composed ε shared with other runs that repeat them (an experiment's
  // cells); null: computed for this run alone.
  std::shared_ptr<PlanMemo> plan_memo;
  // Exact-posterior references shared with other runs on the same data (an experiment's cells;
  // models/reference_cache.hpp); null: the model's own.
  std::shared_ptr<ReferenceCache> reference_cache;
  bool init_given = false;  // run.init set by the user; else the preset's Section 5.2 rule
  // dp-nss (run/release_once_job.hpp): run the chains again, longer, while their draws warn
  // R-hat or ESS (the CLI: neither --iter nor --warmup given); false: exactly run's length.
  bool extend_until_converged = false;
  std::filesystem::path out_dir = "out";
  // false: no chain CSVs, only report.json (the diagnostics and metrics use the draws in memory,
  // so they are the same either way). An experiment's long stochastic-gradient cells would
  // otherwise write gigabytes per cell (docs/experiments.md).
  bool write_draws = true;
  // false: a run that was interrupted returns right after sampling, with no summary, no metrics
  // and no report.json. An experiment discards an interrupted cell and recomputes it on resume,
  // and the diagnostics of a long stochastic-gradient cell's millions of partial draws delayed
  // Ctrl-C by ~45 s (docs/experiments.md).
  bool diagnose_incomplete = true;
  // false: no timings in the chain CSVs and report.json (a non-private run on released
  // statistics, run/release_once_job.hpp, publishes what a private run publishes).
  bool publish_timings = true;
  // Called on the published report just before it is written (once): a job built on this one
  // (run/release_once_job.hpp) adds what it knows, so that report.json is never written without
  // it.
  std::function<void(nlohmann::json&)> amend_report;
  // Called on the run's warnings before they are reported: a job built on this one adds what its
  // release says about the answer (run/release_once_job.hpp: a posterior still near the prior, an
  // expansion centred far from it). Only published values may be used.
  std::function<void(const Summary&, std::vector<ConvergenceWarning>&)> amend_warnings;
  // Header fields of the chain CSVs ("# key = value") that replace the ones the job would write,
  // for the same reason: the chains on released statistics are dp-nss on the user's n rows, not
  // nuts on a one-row data set.
  std::vector<std::pair<std::string, std::string>> header_overrides;
  std::size_t reference_draws = 1000;  // exact draws for the MMD (thesis Section 5.2: 1000)
  // The accuracy against the model's exact reference (curator-only; issue #28): `on` always,
  // `off` never, `auto` unless the reference costs more than kAutoReferenceRowEvaluations
  // likelihood row evaluations (a grid posterior on many rows, Model::reference_row_evaluations:
  // the mixture preset's took 7 s of a 7.5 s run whose sampling took 0.02 s).
  enum class Accuracy { automatic, on, off } accuracy = Accuracy::automatic;
  static constexpr double kAutoReferenceRowEvaluations = 1e8;  // about a second here
  // Private samplers only: the budget shared by all chains (δ default: the preset's on its own
  // data, else 0.1/n, the papers' rule), the accountants to plan with (empty: every certified one;
  // the one allowing the most iterations wins), and the share of each chain's planned iterations
  // used as warmup (the thesis discards the first half). --iter/--warmup do not apply: the budget
  // sets the length.
  std::optional<double> epsilon, delta;
  std::vector<std::string> accountants;
  double warmup_fraction = 0.5;
  // dp-nss on a logistic or poisson regression (run/release_once_job.hpp): the releases of the
  // expansion's statistics made before the final one, each centred at the last one's estimate, and
  // the share of the budget (of zCDP's ρ) they take together; unset: the measured defaults.
  std::optional<std::size_t> pilot_releases;
  std::optional<double> pilot_share;
  // `--sampler auto` (cli/auto_sampler.hpp): the choice and why, reported as "sampler"."auto";
  // null otherwise.
  nlohmann::json sampler_choice;
  std::vector<std::string> command_line;  // for the report
  // The persistent budget ledger (ledger/ledger.hpp) a private run on the caller's rows reserves
  // its releases in when the dataset is registered there; none: default_ledger_path(), used only
  // when that file exists (an explicit path must exist).
  std::optional<std::filesystem::path> ledger;
  // Checkpoints (run/checkpoint.hpp; the directory is set by the job, job_checkpoint.hpp); none
  // when empty. With `resume`, the run saved there continues. A private run can be checkpointed
  // only with a key that outlives the process (noise_key or noise_key_file).
  std::optional<CheckpointConfig> checkpoint;
  // What the caller needs to rebuild this spec on resume (the CLI's arguments), kept in the
  // checkpoint's run.json.
  nlohmann::json resume_info = nlohmann::json::object();
};

struct SampleOutcome {
  RunResult run;
  // The columns of run's draws that the chain CSVs publish (lp__, accept_stat__, the sampler's
  // publishable columns, θ); a private run's other sampler columns are curator-only.
  std::vector<std::string> published_columns;
  // Diagnostics of the published columns (θ, lp__, accept_stat__, publishable sampler columns);
  // a private run's curator-only columns are summarised in curator_summary.
  Summary summary;
  Summary curator_summary;
  std::optional<MmdResult> mmd;        // against exact draws, when the model has them
  std::optional<double> mmd_baseline;  // the MMD of as many exact draws (the noise floor)
  std::optional<double> mean_error;    // against the exact (or known) posterior mean
  // Symmetric KL between 100 × 100 histograms of the kept draws and of the exact draws over the
  // box covering both (diagnostics/histogram_kl.hpp; [ZhangZhang2023] Section 6.1):
  // two-parameter models with exact posterior draws only.
  std::optional<double> sym_kl;
  std::optional<double> test_accuracy;            // posterior predictive on public held-out rows
  std::vector<std::filesystem::path> draw_files;  // empty unless SampleSpec::write_draws
  std::filesystem::path report_file;
  // The published report (report.json under --out). For a private run it holds only what may be
  // published; the curator's report (accuracy, timings, clip statistics: computed from the
  // private rows without noise) is `curator`, written to curator_file in DIR.curator/.
  nlohmann::json report;
  nlohmann::json curator;
  std::filesystem::path curator_file;
  // Accuracy against the exact posterior (or the public test rows), in whichever report holds it.
  nlohmann::json accuracy;
  std::optional<PrivateRunPlan> plan;  // private samplers: the plan the run followed
  // --noise-key-file named no file, so a new key was made and saved there (a mistyped path of an
  // existing key does the same: the CLI says so, since the rerun is then not bit for bit).
  bool noise_key_created = false;
  EventLog recorded;  // private samplers: every chain's releases, merged
  // What the diagnostics of the parameters say is wrong (convergence_warnings.hpp), also in
  // report.json's "warnings".
  std::vector<ConvergenceWarning> warnings;
  // Private runs: the run's entry in the budget ledger (run/ledger_entry.hpp: tracked or not and
  // why, the dataset, the run's id, its status), also in the curator's report.
  nlohmann::json ledger;
  // Where the run's checkpoints are while it can be resumed (removed once it completed).
  std::optional<std::filesystem::path> checkpoint_dir;
};

// Whether `sampler` is a private sampler (reaches the data only through PrivateData).
bool is_private_sampler(const std::string& sampler);
// Whether the run's rows are the caller's (--data, a user model, a custom model) rather than a
// preset's public synthetic or public data: then nothing computed from them without noise (an
// exact reference posterior, a starting spread) may shape what is published.
bool on_callers_rows(const SampleSpec& spec);

// The option that named the job's output directory, for messages: --resume for a resumed run (it
// continues in the directory it was started in), else --out.
std::string output_option(const SampleSpec& spec);

// Runs the job. Throws UsageError/ConfigError/DataError/NoInputError/OutputError for bad input
// before any chain starts.
SampleOutcome run_sample_job(const SampleSpec& spec);

}  // namespace dpmcmc
