#include "run/sample_job.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "core/error.hpp"
#include "core/version.hpp"
#include "data/csv_loader.hpp"
#include "data/directory_lock.hpp"
#include "data/npy_reader.hpp"
#include "io/run_report.hpp"
#include "models/expfam_model.hpp"
#include "models/original_units.hpp"
#include "models/user_model.hpp"
#include "privacy/event_json.hpp"
#include "run/csv_draw_sink.hpp"
#include "run/curator_files.hpp"
#include "run/job_checkpoint.hpp"
#include "run/kept_draws.hpp"
#include "run/known_limits.hpp"
#include "run/ledger_entry.hpp"
#include "run/noise_from_budget.hpp"
#include "run/open_files.hpp"
#include "run/penalty_reach.hpp"
#include "run/private_job.hpp"
#include "run/private_samplers.hpp"
#include "run/release_once_job.hpp"
#include "run/sample_accuracy.hpp"
#include "run/sampler_descriptors.hpp"
#include "run/sampler_params.hpp"

namespace dpmcmc {
namespace {

using nlohmann::json;

// The kernel's sampler columns, and where each goes: every column of a non-private kernel is
// published (it keeps no boundary); a private kernel publishes only its publishable_columns(),
// the others are the curator's (docs/architecture.md).
struct ColumnSplit {
  std::vector<std::string> all, published, curator;
  std::vector<std::size_t> published_at, curator_at;
};

ColumnSplit split_columns(const KernelFactory& factory, bool private_run) {
  const auto kernel = factory(0);
  ColumnSplit c;
  c.all = kernel->extra_columns();
  const auto pub = kernel->publishable_columns();
  for (std::size_t i = 0; i < c.all.size(); ++i) {
    const bool ok = !private_run || std::find(pub.begin(), pub.end(), c.all[i]) != pub.end();
    (ok ? c.published : c.curator).push_back(c.all[i]);
    (ok ? c.published_at : c.curator_at).push_back(i);
  }
  return c;
}

// The summary rows of `names` only.
Summary summary_of(const Summary& all, const std::vector<std::string>& names, bool keep) {
  Summary out = all;
  out.parameters.clear();
  for (const auto& p : all.parameters) {
    if ((std::find(names.begin(), names.end(), p.name) != names.end()) == keep)
      out.parameters.push_back(p);
  }
  return out;
}

// The job's data: the user's file, or the preset's (simulated with the data seed, or loaded),
// and how the report names it.
struct JobData {
  Dataset data;
  std::string source;
  // A user model's data preparation (clipped and imputed cells): counted on the private rows
  // without noise, so curator-only for a private run; null for the presets.
  json preparation = nullptr;
  // The report's names of the data columns: a user model's design columns are x.1 … x.p, y, which
  // say nothing; the report names them by their coefficients (intercept, age, region_south, …).
  std::vector<std::string> column_names = {};
};

JobData job_data(const SampleSpec& spec, const Preset& preset, const Model& model,
                 std::uint64_t data_seed, const UserModel* user) {
  if (user != nullptr) {
    std::vector<std::string> names = user->design->coefficient_names;
    names.emplace_back("target");
    return {user->design->data,
            fmt::format("{} (schema {})", user->design->data.source,
                        spec.user_model->schema_file.string()),
            user->design->report.to_json(), std::move(names)};
  }
  if (spec.data_file) {
    CsvOptions options;
    options.expected_columns = preset.data_columns();
    options.model_name = preset.name;
    return {is_npy_file(*spec.data_file) ? load_npy(*spec.data_file, options)
                                         : load_csv(*spec.data_file, options),
            spec.data_file->string()};
  }
  JobData d;
  d.data = simulate_preset(preset, model, data_seed, spec.n);
  d.source = preset.load_data ? fmt::format("preset '{}' data set ({})", preset.name, d.data.source)
                              : fmt::format("simulated from preset '{}' with data seed {}",
                                            preset.name, data_seed);
  return d;
}

// The preset's starting rule unless the user gave the starting points. The Section 5.2 rule uses
// exact posterior draws given the data. For a private sampler on the user's data that would be an
// unaccounted release, so the spread is then computed from the preset's public synthetic data
// instead (the same when the data are synthetic).
void apply_start_rule(const SampleSpec& spec, const Preset& preset, const Model& model,
                      const Dataset& data, std::uint64_t data_seed, RunConfig& run) {
  if (spec.init_given) return;
  run.init.centre = preset.start_centre;
  const bool private_user_data = is_private_sampler(spec.sampler) && on_callers_rows(spec);
  if (preset.start_sd) {  // a fixed public spread needs no data (the user models have one)
    run.init.spread = *preset.start_sd;
    return;
  }
  // A caller's model has no public synthetic data to take the spread from.
  if (private_user_data && spec.custom_model)
    throw UsageError(
        fmt::format("model '{}': a private run needs a public starting spread "
                    "(Preset::start_sd) or explicit starting points",
                    preset.name));
  run.init.spread =
      private_user_data
          ? start_deviation(preset, model, simulate_preset(preset, model, data_seed), data_seed)
          : start_deviation(preset, model, data, data_seed);
}

// The Stan CSV layout of every chain file (the chain id is added per file).
StanCsvLayout draw_layout(const SampleSpec& spec, const Preset& preset, const Model& model,
                          const json& params, const JobData& data, const RunConfig& run,
                          const ColumnSplit& columns, bool private_run) {
  StanCsvLayout layout;
  layout.num_samples = run.samples;
  layout.num_warmup = run.warmup;
  layout.save_warmup = run.save_warmup;
  layout.thin = run.thin;
  layout.sampler_columns = columns.published;
  layout.param_names = model.param_names();
  layout.write_timing = !private_run && spec.publish_timings;
  layout.config = {{"model", preset.name},
                   {"sampler", spec.sampler},
                   {"sampler_params", params.dump()},
                   {"data", data.source},
                   {"n", std::to_string(data.data.rows())},
                   {"seed", std::to_string(run.seed)},
                   {"seed_source", spec.seed_given ? "user" : "os-entropy"},
                   {"chains", std::to_string(run.chains)}};
  for (const auto& [key, value] : spec.header_overrides) {
    auto field = std::find_if(layout.config.begin(), layout.config.end(),
                              [&key](const auto& kv) { return kv.first == key; });
    if (field == layout.config.end())
      throw SoftwareError("header override of an unknown field '" + key + "'");
    field->second = value;
  }
  return layout;
}

// Each chain's sink: its published columns to its Stan CSV under --out and, for a private run,
// its curator columns to the same file name in the curator directory. The references must
// outlive the run.
RunCallbacks draw_sinks(const StanCsvLayout& layout,
                        const std::vector<std::filesystem::path>& files, const ColumnSplit& columns,
                        const std::filesystem::path& curator, int first_chain, bool private_run) {
  RunCallbacks callbacks;
  callbacks.make_sink = [&layout, &files, &columns, &curator, first_chain,
                         private_run](int chain_id) -> std::unique_ptr<DrawSink> {
    auto l = layout;
    l.config.emplace_back("chain_id", std::to_string(chain_id + 1));
    const auto& file = files[static_cast<std::size_t>(chain_id - first_chain)];
    auto draws = std::make_unique<CsvDrawSink>(file, l, columns.published_at, columns.all.size());
    if (!private_run) return draws;
    std::vector<std::unique_ptr<DrawSink>> both;
    both.push_back(std::move(draws));
    both.push_back(std::make_unique<CuratorColumnsSink>(curator / file.filename(),
                                                        columns.curator_at, columns.curator));
    return std::make_unique<TeeSink>(std::move(both));
  };
  return callbacks;
}

// The report's chain entries (published) and their wall times (curator-only for a private run:
// they depend on the data).
struct ChainEntries {
  json chains = json::array(), times = json::array();
};

ChainEntries chain_entries(const SampleSpec& spec, const RunResult& result,
                           const std::vector<std::filesystem::path>& files) {
  ChainEntries e;
  for (std::size_t c = 0; c < result.chains.size(); ++c) {
    const auto& ch = result.chains[c];
    e.chains.push_back({{"chain", ch.chain + 1},
                        {"file", spec.write_draws ? json(files[c].string()) : json(nullptr)},
                        {"status", to_string(ch.status)},
                        {"warmup_done", ch.warmup_done},
                        {"samples_done", ch.samples_done},
                        {"acceptance_rate", json_number(ch.acceptance_rate())},
                        {"warmup_acceptance_rate", json_number(ch.warmup_acceptance_rate())},
                        {"start", json_array(ch.start)}});
    // The tuning the chain sampled with: a function of its warmup draws and acceptance
    // statistics (samplers/warmup_adapter.hpp), so publishable.
    if (ch.tuning) {
      e.chains.back()["adaptation"] = {{"step", json_number(ch.tuning->step)},
                                       {"metric", json_array(ch.tuning->metric)}};
      if (ch.tuning->dense.size() != 0) {
        json rows = json::array();
        for (Eigen::Index i = 0; i < ch.tuning->dense.rows(); ++i)
          rows.push_back(json_array(Vec(ch.tuning->dense.row(i).transpose())));
        e.chains.back()["adaptation"]["dense_metric"] = rows;
      }
    }
    e.times.push_back({{"chain", ch.chain + 1}, {"wall_seconds", ch.wall_seconds}});
  }
  return e;
}

// The report's "run" section: what the run did and from which seeds (never the noise key itself,
// only where it came from).
json run_section(const SampleSpec& spec, const RunConfig& run, int threads, const NoiseKey* key,
                 std::uint64_t data_seed) {
  return {{"chains", run.chains},
          {"warmup", run.warmup},
          {"samples", run.samples},
          {"thin", run.thin},
          {"adapt", run.adapt},
          {"metric", run.dense_metric ? "dense" : "diag"},
          // null: each sampler's own target (`dpmcmc samplers`).
          {"target_accept", run.target_accept ? json(*run.target_accept) : json(nullptr)},
          {"threads", threads},
          {"seed", run.seed},
          {"seed_source", spec.seed_given ? "user" : "os-entropy"},
          {"noise_key", key != nullptr ? key->describe() : "none (non-private sampler)"},
          {"data_seed", data_seed},
          {"init", spec.init_given ? "user" : "preset rule: centre + N(0, I) * spread"},
          {"init_spread", json_number(run.init.spread)},
          // null: the starting points come from the run seed.
          {"init_seed", run.init.seed ? json(*run.init.seed) : json(nullptr)}};
}

// What the reports of a job are made from.
struct JobView {
  const SampleSpec& spec;
  const Preset& preset;
  const Model& model;
  const JobData& data;
  const json& params;
  const RunConfig& run;
  const PrivateJob* priv;  // null for a non-private sampler
  const ColumnSplit& columns;
  const std::filesystem::path& curator;
  const std::vector<std::filesystem::path>& files;
  std::uint64_t data_seed;
  // A user regression with a released statistic: dp-nss could spend the budget on one release.
  bool release_once_fits;
  // A private run whose noise was scaled to its budget (run/noise_from_budget.hpp): a larger ε
  // buys less noise per iteration, not more iterations.
  bool noise_follows_budget;
  const GlmSpec* glm;  // a user regression's, else null
};

// The sampler's hyperparameters: the preset's, overridden by the user's; on a user model a
// private sampler's default noise follows its budget (run/noise_from_budget.hpp: then
// `follows_budget`), while the presets keep the papers' settings.
struct JobParams {
  json params;
  bool follows_budget = false;
};
JobParams job_params(const SampleSpec& spec, const Preset& preset, const Model& model,
                     const Dataset& data, bool user_model, const SamplerDescriptor* private_entry) {
  JobParams out{sampler_params(preset, spec.sampler, spec.overrides)};
  if (!user_model || !private_entry || !spec.epsilon) return out;
  const Budget budget{*spec.epsilon,
                      spec.delta.value_or(default_delta(preset, data.rows(), false))};
  check_epsilon_option(budget.epsilon, "--epsilon");
  check_delta_option(budget.delta, "--delta");
  const json given = out.params;
  out.params =
      noise_from_budget(*private_entry, spec.sampler, std::move(out.params), spec.overrides, model,
                        data.rows(), budget, spec.run.chains, kBudgetTargetIterations);
  out.follows_budget = out.params != given;
  return out;
}

// The chains' kernels. A private sampler's reach the rows only through each chain's PrivateData:
// prepare_private_job checks the budget, plans the run (setting run's length) and reads the
// noise key after claim_output (the output directory's lock), and out gets the plan.
KernelFactory job_kernels(const SampleSpec& spec, const SamplerDescriptor* private_entry,
                          const Preset& preset, const Model& model, const Dataset& data,
                          const json& params, const std::function<void()>& claim_output,
                          RunConfig& run, std::optional<PrivateJob>& priv, SampleOutcome& out) {
  if (private_entry == nullptr) return kernel_factory(spec.sampler, params, model, data);
  priv = prepare_private_job(spec, *private_entry, preset, model, data, params, run, claim_output);
  out.plan = priv->plan;
  out.noise_key_created = priv->noise_key.source() == NoiseKey::Source::file_created;
  return private_kernel_factory(*priv, model, data, run);
}

// A completed run's checkpoint, and a non-private run's curator directory, which held only the
// checkpoint (removed only if empty).
void remove_finished_checkpoint(SampleOutcome& out, bool private_run) {
  const auto dir = *out.checkpoint_dir;
  remove_checkpoint(dir);
  out.checkpoint_dir.reset();
  std::error_code ignored;
  if (!private_run) std::filesystem::remove(dir.parent_path(), ignored);  // the curator's
}

// The columns the chain CSVs publish: lp__, accept_stat__, the sampler's publishable columns and
// the parameters.
std::vector<std::string> published_columns(const ColumnSplit& columns, const Model& model) {
  std::vector<std::string> out = {"lp__", "accept_stat__"};
  out.insert(out.end(), columns.published.begin(), columns.published.end());
  for (const auto& name : model.param_names()) out.push_back(name);
  return out;
}

// One Stan CSV per chain: DIR/chain-1.csv, … (1-based like CmdStan's output files).
std::vector<std::filesystem::path> chain_files(const std::filesystem::path& dir,
                                               const RunConfig& run) {
  std::vector<std::filesystem::path> files;
  for (int c = 0; c < run.chains; ++c)
    files.push_back(dir / fmt::format("chain-{}.csv", run.first_chain + c + 1));
  return files;
}

// Called once every refusal is behind the run: only then does it replace what an earlier one
// left under the same --out (an earlier run's checkpoint must never be resumed over this one;
// its extra chain files would be read with these as one run).
void replace_earlier_outputs(const SampleSpec& spec,
                             const std::vector<std::filesystem::path>& files, bool private_run) {
  if (!spec.checkpoint) remove_checkpoint(checkpoint_dir(spec.out_dir));
  if (!spec.write_draws || (spec.checkpoint && spec.checkpoint->resume)) return;
  remove_other_chain_files(spec.out_dir, files);
  if (private_run) remove_other_chain_files(curator_dir(spec.out_dir), files);
}

// A checkpointed run's identity (run/job_checkpoint.hpp), checked against the saved one when it
// resumes, with run.checkpoint set to save in DIR's checkpoint directory; null without
// --checkpoint-every. UsageError for a private run without a key that outlives the process.
json checkpoint_identity(const SampleSpec& spec, const Preset& preset, const json& params,
                         const Dataset& data, const PrivateJob* priv, RunConfig& run) {
  if (!spec.checkpoint) return nullptr;
  if (priv && !spec.noise_key && !spec.noise_key_file) {
    throw UsageError(
        "--checkpoint-every: a private run can be resumed only with its noise key; give "
        "--noise-key-file");
  }
  prepare_curator_dir(curator_dir(spec.out_dir));
  const auto checkpoints = checkpoint_dir(spec.out_dir);
  run.checkpoint = *spec.checkpoint;
  run.checkpoint->dir = checkpoints;
  const json calibration = priv ? events_to_json(priv->setup.per_iteration) : json(nullptr);
  json identity = run_identity(preset.name, spec.sampler, params, run, data,
                               priv ? &priv->noise_key : nullptr, calibration);
  if (spec.checkpoint->resume) check_resumable_run(checkpoints, identity);
  return identity;
}

// The chains, with the budget's reservation (if any) settled to what was released: to the
// recorded spend once they end, and after a failure (an output that cannot be written, …), which
// this process survives knowing exactly what was released.
void run_and_settle(const SampleSpec& spec, const KernelFactory& factory,
                    const std::vector<std::string>& names, const RunConfig& run,
                    const RunCallbacks& callbacks, const json& identity, const PrivateJob* priv,
                    LedgerEntry* ledger, SampleOutcome& out) {
  const auto checkpoints = checkpoint_dir(spec.out_dir);
  try {
    if (spec.checkpoint && !spec.checkpoint->resume) {
      clear_checkpoint_dir(checkpoints);
      if (ledger) ledger->save_reservation(checkpoints);
      start_checkpointed_run(checkpoints, identity, spec.resume_info);
    }
    out.run = run_chains(factory, names, run, callbacks);
  } catch (...) {
    if (ledger) ledger->settle(false, false, priv->per_owner().front());
    throw;
  }
  // The spend of the run as owner 1 sees it (the only owner unless the data are shared).
  if (priv) out.recorded = priv->per_owner().front();
  if (ledger) {
    ledger->settle(out.run.complete(), spec.checkpoint.has_value(), out.recorded);
    out.ledger = ledger->json();
  }
}

// report.json's sections but the warnings and what only one side of the boundary gets.
json published_report(const JobView& job, const SampleOutcome& out, const json& chains,
                      const json& privacy, const Mat& pooled) {
  const SampleSpec& spec = job.spec;
  json report = {
      {"dpmcmc_version", kVersion},
      {"status", out.run.complete() ? "completed" : "interrupted"},
      {"command_line", spec.command_line},
      {"model",
       {{"preset", job.preset.name}, {"dim", job.model.dim()}, {"source", job.preset.source}}},
      {"data",
       {{"source", job.data.source},
        {"rows", job.data.data.rows()},
        {"columns",
         job.data.column_names.empty() ? job.data.data.columns : job.data.column_names}}},
      {"sampler", {{"name", spec.sampler}, {"params", job.params}}},
      {"run", run_section(spec, job.run, out.run.threads, job.priv ? &job.priv->noise_key : nullptr,
                          job.data_seed)},
      {"privacy", privacy},
      {"chains", chains},
      {"summary", out.summary.parameters.empty() ? json(nullptr) : summary_json(out.summary)}};
  if (!job.preset.details.is_null()) report["model"]["details"] = job.preset.details;
  // A user regression's coefficients per unit of its features too (models/original_units.hpp):
  // functions of the published draws.
  if (job.preset.details.contains("original_units") && report["summary"].is_object())
    report["summary"]["original_units"] = original_units_summary(
        OriginalUnits::from_json(job.preset.details["original_units"]), pooled);
  if (!spec.sampler_choice.is_null()) report["sampler"]["auto"] = spec.sampler_choice;
  return report;
}

// What the budget bought and what more of it would buy (public: the plan is a function of ε, δ,
// n and the hyperparameters), as the advice of a private run too short for its posterior; empty
// for a non-private run.
std::string budget_advice(const JobView& job) {
  if (!job.priv || !job.spec.epsilon || job.run.per_chain.empty()) return {};
  const ChainPlan& plan = job.run.per_chain.front();
  const std::string bought =
      fmt::format("epsilon = {:g} allows {} iterations per chain ({} warmup)", *job.spec.epsilon,
                  plan.warmup + plan.samples, plan.warmup);
  return job.noise_follows_budget
             ? fmt::format(
                   "{}, with the noise scaled so that any budget buys about {}: a larger "
                   "--epsilon buys less noise per iteration, not more iterations, and "
                   "--iter does not apply",
                   bought, kBudgetTargetIterations)
             : fmt::format(
                   "{}, too few for this posterior: a larger --epsilon buys more "
                   "iterations, as do more rows (--iter does not apply)",
                   bought);
}

// The run's warnings: what is known to go wrong before the draws show it first
// (run/known_limits.hpp; its reach goes to report.json), then the diagnostics of the published
// draws, with advice that is true for the sampler. θ's diagnostics and the acceptance rates are
// functions of the published draws and accept decisions: the warnings are published too.
std::vector<ConvergenceWarning> job_warnings(const JobView& job, const SampleOutcome& out,
                                             json& report) {
  const SampleSpec& spec = job.spec;
  const bool private_run = job.priv != nullptr;
  std::vector<double> rates;
  for (const auto& ch : out.run.chains) rates.push_back(ch.acceptance_rate());
  const std::string budget = budget_advice(job);
  // The shortest warmup a chain adapted over and finished (a chain stopped during warmup says
  // so in its status, not here).
  std::optional<std::size_t> adapted_warmup;
  for (const auto& ch : out.run.chains) {
    if (!ch.tuning || ch.status != ChainStatus::completed) continue;
    adapted_warmup = std::min(adapted_warmup.value_or(ch.warmup_done), ch.warmup_done);
  }
  std::vector<ConvergenceWarning> warnings = convergence_warnings(
      out.summary, job.model.param_names(), rates, find_sampler(spec.sampler)->acceptance,
      private_run, budget, adapted_warmup);
  // Too few kept draws for R-hat and ESS (kept_draws summarises from 4 per chain): nothing was
  // checked, and a run that exits 0 with an empty summary must say so. The count is the plan's,
  // public for a private run.
  if (out.summary.parameters.empty() && out.run.complete()) {
    std::size_t kept = 0;
    for (const auto& ch : out.run.chains)
      kept = std::max(kept, static_cast<std::size_t>(ch.draws.rows()));
    warnings.push_back(
        {"draws", "sampler", static_cast<double>(kept), 4.0,
         fmt::format(
             "{} kept draw{} per chain, too few to summarise or to check convergence (R-hat "
             "and ESS need 4 or more): the draws are not a posterior sample to rely on",
             kept, kept == 1 ? "" : "s"),
         private_run && !budget.empty() ? budget : "more iterations (--iter, --warmup)"});
  }
  // Where more iterations are asked for, a private regression that dp-nss fits is told that it
  // need not buy them (user guide, "Release once, sample forever").
  if (private_run && job.release_once_fits) {
    for (auto& w : warnings) {
      if (w.check == "rhat" || w.check.starts_with("ess_") || w.check == "draws")
        w.advice += fmt::format(
            "; or --sampler {}, which spends the budget on one release of the sufficient "
            "statistics, then samples as long as you like",
            kReleaseOnceSampler);
    }
  }
  if (private_run && job.glm && !job.run.per_chain.empty()) {
    const ChainPlan& plan = job.run.per_chain.front();
    KnownLimits known =
        known_limits({spec.sampler, *job.glm, job.params, job.data.data.rows(),
                      plan.warmup + plan.samples, job.run.chains, job.release_once_fits});
    if (known.reach) report["reach"] = reach_json(*known.reach);
    warnings.insert(warnings.begin(), known.warnings.begin(), known.warnings.end());
  }
  if (spec.amend_warnings) spec.amend_warnings(out.summary, warnings);
  return warnings;
}

// What a private run's curator alone gets (docs/architecture.md, the boundary): accuracy against
// the exact posterior, timings and clip statistics, computed from the private rows without
// noise; report.json points there.
void write_curator_report(const JobView& job, const Timings& timings, const ChainEntries& chains,
                          const json& accuracy, SampleOutcome& out) {
  const SampleSpec& spec = job.spec;
  out.report["curator"] = {{"directory", job.curator.string()},
                           {"note",
                            "accuracy, timings and clip statistics are in the curator "
                            "directory: computed from the private data without noise"}};
  out.curator = {
      {"run_report", (spec.out_dir / "report.json").string()},
      {"noise_key_file", spec.noise_key_file ? json(spec.noise_key_file->string()) : json(nullptr)},
      {"chains", chains.times},
      {"columns",
       out.curator_summary.parameters.empty() ? json(nullptr) : summary_json(out.curator_summary)},
      {"accuracy", accuracy},
      {"timings", timings.to_json()}};
  if (!job.data.preparation.is_null()) out.curator["data_preparation"] = job.data.preparation;
  if (!out.ledger.is_null()) out.curator["budget_across_runs"] = out.ledger;
  out.curator_file = job.curator / "report.json";
  write_curator_json(out.curator, out.curator_file);
}

// The summary and accuracy of the kept draws, and the reports: report.json under --out (what may
// be published) and, for a private run, the curator's report.json.
void report_job(const JobView& job, Timings& timings, SampleOutcome& out) {
  const SampleSpec& spec = job.spec;
  // Diagnostics over the kept draws of every chain that kept any.
  Stopwatch clock;
  std::vector<std::string> labels;
  for (std::size_t c = 0; c < job.files.size(); ++c) {
    labels.push_back(
        spec.write_draws
            ? job.files[c].string()
            : fmt::format("chain {}", static_cast<std::size_t>(job.run.first_chain) + c + 1));
  }
  KeptDraws kept = kept_draws(out.run, labels);
  out.summary = std::move(kept.summary);
  timings.add("diagnostics", clock.seconds());
  clock.restart();
  const json accuracy = sample_accuracy(spec, job.preset, job.model, job.data.data, kept.pooled,
                                        job.data_seed, job.run.seed, out);
  timings.add("accuracy", clock.seconds());
  clock.restart();
  // Non-private baselines release nothing under a privacy guarantee: the report says so rather
  // than leaving the field out.
  const json privacy = job.priv
                           ? owners_privacy_report(*job.priv, spec.plan_memo.get())
                           : json{{"private", false},
                                  {"note", "non-private sampler: no (epsilon, delta) guarantee"}};
  timings.add("accounting", clock.seconds());

  ChainEntries chains = chain_entries(spec, out.run, job.files);
  out.accuracy = accuracy;
  // A private run's summary is published for its published columns only; the curator's columns
  // (clip fractions, batch sizes) are summarised in the curator's report.
  out.curator_summary = summary_of(out.summary, job.columns.curator, true);
  out.summary = summary_of(out.summary, job.columns.curator, false);
  out.report = published_report(job, out, chains.chains, privacy, kept.pooled);
  out.warnings = job_warnings(job, out, out.report);
  out.report["warnings"] = warnings_json(out.warnings);
  if (job.priv) {
    write_curator_report(job, timings, chains, accuracy, out);
  } else {
    if (spec.publish_timings) {
      for (std::size_t c = 0; c < chains.chains.size(); ++c)
        chains.chains[c]["wall_seconds"] = chains.times[c]["wall_seconds"];
      out.report["timings"] = timings.to_json();
    }
    out.report["chains"] = chains.chains;
    out.report["accuracy"] = accuracy;
    if (!job.data.preparation.is_null()) out.report["data_preparation"] = job.data.preparation;
  }
  if (spec.amend_report) spec.amend_report(out.report);
  out.report_file = spec.out_dir / "report.json";
  write_json(out.report, out.report_file);
}

}  // namespace

bool on_callers_rows(const SampleSpec& spec) {
  return spec.data_file || spec.user_model || spec.custom_model;
}

std::string output_option(const SampleSpec& spec) {
  return spec.checkpoint && spec.checkpoint->resume ? "--resume" : "--out";
}

bool is_private_sampler(const std::string& sampler) {
  return find_private_sampler(sampler) != nullptr;
}

namespace {

// A sampler's chains on the spec's model and rows (run_sample_job, past its memo and dp-nss).
SampleOutcome run_chains_job(const SampleSpec& spec) {
  const NewOutputDirs new_dirs(spec.out_dir);
  // A user model (--schema) reads its schema and rows here and is a preset from then on.
  const std::optional<UserModel> user =
      spec.user_model ? std::optional<UserModel>(make_user_model(*spec.user_model)) : std::nullopt;
  const Preset& preset = user                ? user->preset
                         : spec.custom_model ? *spec.custom_model
                                             : find_preset(spec.preset);
  Stopwatch phase;
  const auto model = preset.make_model();
  model->share_reference_cache(spec.reference_cache);
  const std::uint64_t data_seed = spec.data_seed.value_or(spec.run.seed);
  const JobData data = job_data(spec, preset, *model, data_seed, user ? &*user : nullptr);
  const SamplerDescriptor* private_entry = find_private_sampler(spec.sampler);
  // Every phase is timed (curator-only for a private run: the times depend on the data), so the
  // cost outside sampling is visible (docs/benchmarks.md, "Whole process against sampling").
  Timings timings;
  timings.add("data", phase.seconds());
  const auto [params, noise_follows_budget] =
      job_params(spec, preset, *model, data.data, user.has_value(), private_entry);

  phase.restart();
  RunConfig run = spec.run;
  SampleOutcome out;
  std::optional<PrivateJob> priv;
  // Taken once the run is known to be possible, before anything is written (the noise key file,
  // the curator directory, the draws): one run at a time per directory (data/directory_lock.hpp).
  std::optional<DirectoryLock> out_lock;
  const auto claim_output = [&] {
    if (!out_lock) out_lock.emplace(spec.out_dir, output_option(spec));
  };
  const KernelFactory factory = job_kernels(spec, private_entry, preset, *model, data.data, params,
                                            claim_output, run, priv, out);
  const bool private_run = priv.has_value();
  const ColumnSplit columns = split_columns(factory, private_run);
  out.published_columns = published_columns(columns, *model);
  // split_columns built chain 0's kernel once; its PrivateData made no release.
  claim_output();
  const std::filesystem::path curator = curator_dir(spec.out_dir);
  if (private_run) prepare_curator_dir(curator);
  timings.add("planning", phase.seconds());
  phase.restart();
  apply_start_rule(spec, preset, *model, data.data, data_seed, run);
  timings.add("start", phase.seconds());

  // The sinks keep a reference to the layout: it lives as long as the run.
  const StanCsvLayout layout =
      draw_layout(spec, preset, *model, params, data, run, columns, private_run);
  const std::vector<std::filesystem::path> files = chain_files(spec.out_dir, run);
  const RunCallbacks callbacks =
      spec.write_draws ? draw_sinks(layout, files, columns, curator, run.first_chain, private_run)
                       : RunCallbacks{};

  const json identity =
      checkpoint_identity(spec, preset, params, data.data, priv ? &*priv : nullptr, run);
  if (spec.checkpoint) out.checkpoint_dir = checkpoint_dir(spec.out_dir);

  // The budget across runs: reserved (or refused) before the first release, settled after.
  std::optional<LedgerEntry> ledger;
  if (private_run)
    ledger.emplace(reserve_budget(spec, priv->plan, out.checkpoint_dir, priv->noise_key, new_dirs));
  replace_earlier_outputs(spec, files, private_run);
  phase.restart();
  run_and_settle(spec, factory, model->param_names(), run, callbacks, identity,
                 priv ? &*priv : nullptr, ledger ? &*ledger : nullptr, out);
  if (spec.write_draws) out.draw_files = files;
  timings.add("sampling", phase.seconds());
  if (!out.run.complete() && !spec.diagnose_incomplete) return out;

  report_job(
      {spec, preset, *model, data, params, run, priv ? &*priv : nullptr, columns, curator, files,
       data_seed, user && has_released_statistic(user->glm.family, user->design->intercept),
       noise_follows_budget, user ? &user->glm : nullptr},
      timings, out);
  // Outputs written: a completed run has nothing left to resume.
  if (out.checkpoint_dir && out.run.complete()) remove_finished_checkpoint(out, private_run);
  return out;
}

}  // namespace

SampleOutcome run_sample_job(const SampleSpec& spec) {
  if (!spec.plan_memo) {
    // One memo per job at least: the report's planned and recorded spends are usually the same
    // composition, and the plan's accountants (with their caches) serve the report.
    SampleSpec with_memo = spec;
    with_memo.plan_memo = std::make_shared<PlanMemo>();
    return run_sample_job(with_memo);
  }
  // Before anything is written or released, dp-nss's release included.
  reserve_open_files(spec.run.chains);
  if (spec.sampler == kReleaseOnceSampler) return run_release_once_job(spec);
  // A hyperparameter the sampler does not read would be ignored: refused instead, before the data
  // are loaded.
  check_sampler_keys(spec.sampler, spec.overrides);
  return run_chains_job(spec);
}

}  // namespace dpmcmc
