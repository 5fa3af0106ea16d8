// One cell of an experiment (experiment/experiment_runner.hpp): a sampling job or an accounting
// table, turned into result rows.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "audit/audit_run.hpp"
#include "audit/neighbours.hpp"
#include "audit/sampler_subject.hpp"
#include "core/error.hpp"
#include "experiment/experiment_runner.hpp"
#include "experiment/experiment_template.hpp"
#include "io/run_report.hpp"
#include "privacy/account_rows.hpp"
#include "run/sample_job.hpp"
#include "run/sampler_descriptors.hpp"
#include "run/sampler_params.hpp"

namespace dpmcmc {
namespace {

using nlohmann::json;

bool wants(const ExperimentSpec& spec, const std::string& metric) {
  return std::find(spec.metrics.begin(), spec.metrics.end(), metric) != spec.metrics.end();
}

ResultRow base_row(const ExperimentSpec& spec, const ExperimentCell& c, std::size_t n) {
  ResultRow row;
  row.set("kind", experiment_kind_name(spec.kind));
  row.set("model", c.model);
  row.set("sampler", c.sampler.label);
  if (c.sweep_param) {
    row.set("sweep_param", *c.sweep_param);
    row.set("sweep_value", c.sweep_value);
  }
  row.set("epsilon", c.epsilon);
  if (c.epsilon) row.set("delta", spec.delta.delta(n));
  if (c.repeat) row.set_integer("repeat", static_cast<std::uint64_t>(*c.repeat));
  row.set_integer("n", n);
  row.set("spec_hash", c.spec_hash);
  return row;
}

// Mean of a sampler column over the kept draws of every chain (NaN when absent or no draws).
double column_mean(const RunResult& run, const std::vector<std::string>& names) {
  for (const auto& name : names) {
    const auto it = std::find(run.columns.begin(), run.columns.end(), name);
    if (it == run.columns.end()) continue;
    const auto j = static_cast<Eigen::Index>(it - run.columns.begin());
    double sum = 0.0;
    std::size_t count = 0;
    for (const auto& ch : run.chains) {
      if (ch.draws.rows() == 0) continue;
      sum += ch.draws.col(j).sum();
      count += static_cast<std::size_t>(ch.draws.rows());
    }
    return count ? sum / static_cast<double>(count) : std::nan("");
  }
  return std::nan("");
}

std::optional<double> finite(double x) {
  return std::isfinite(x) ? std::optional<double>(x) : std::nullopt;
}

// The sampling job of a cell: the spec's settings, the cell's model, sampler, ε and seeds, one
// thread (the experiment runs cells in parallel instead), and what the cells share.
SampleSpec cell_sample_spec(const ExperimentSpec& spec, const ExperimentCell& c,
                            const std::filesystem::path& out_dir, const std::atomic<bool>* stop,
                            bool draw_files, const CellShared& shared, std::size_t n) {
  SampleSpec s;
  s.preset = c.model;
  s.n = spec.n;
  s.data_seed = c.data_seed;
  s.sampler = c.sampler.sampler;
  s.overrides = c.sampler.overrides;
  s.run.chains = spec.chains;
  s.run.seed = c.seed;
  s.seed_given = true;
  if (c.epsilon) {
    s.noise_key = shared.noise_key;
    // Named in the cell's curator report only; the key itself is the one read above.
    s.noise_key_file = spec.noise_key_file;
  }
  s.plan_memo = shared.plan_memo;
  s.reference_cache = shared.references;
  s.run.warmup = c.sampler.warmup.value_or(spec.warmup);
  s.run.samples = c.sampler.samples.value_or(spec.samples);
  s.run.threads = 1;
  s.run.adapt = c.sampler.adapt;
  s.run.target_accept = c.sampler.target_accept;
  s.run.progress = ProgressMode::never;
  s.run.stop = stop;
  if (spec.init.kind == InitRule::Kind::point) {
    s.init_given = true;
    s.run.init.points = {spec.init.centre};
  } else if (spec.init.kind == InitRule::Kind::centre) {
    s.init_given = true;
    s.run.init.centre = spec.init.centre;
    s.run.init.spread = spec.init.spread;
  }
  s.run.init.seed = c.start_seed;
  s.out_dir = cell_dir(out_dir, c);
  s.write_draws = draw_files;
  s.diagnose_incomplete = false;  // an interrupted cell is discarded by sample_cell
  s.reference_draws = spec.reference_draws;
  s.accuracy = SampleSpec::Accuracy::on;  // the spec's metrics ask for it
  if (c.epsilon) {
    s.epsilon = *c.epsilon;
    s.delta = spec.delta.delta(n);
  }
  s.accountants = spec.accountants;
  s.warmup_fraction = spec.warmup_fraction;
  s.command_line = {"dpmcmc", "experiment", spec.file.string(), "cell " + c.key};
  return s;
}

// The largest R̂ of the model's parameters (lp__ and the sampler columns are not targets); NA
// also when some parameter's R̂ is infinite (chains stuck each at its own point): the CSV holds
// finite numbers, and the largest finite R̂ would hide the infinite one.
std::optional<double> max_rhat(const SampleOutcome& out) {
  const std::set<std::string> params(out.run.columns.begin() + out.run.first_param_column,
                                     out.run.columns.end());
  double worst = std::nan("");
  bool infinite = false;
  for (const auto& p : out.summary.parameters) {
    if (!params.count(p.name)) continue;
    if (std::isinf(p.rhat)) infinite = true;
    if (std::isfinite(p.rhat) && !(p.rhat <= worst)) worst = p.rhat;
  }
  return infinite ? std::nullopt : finite(worst);
}

// The row's columns from a completed job: iterations, acceptance, clip fractions, the metrics the
// spec asks for, and the accountant that certified a private run with its recorded ε.
void record_outcome(const ExperimentSpec& spec, const SampleOutcome& out, ResultRow& row) {
  const auto& chains = out.run.chains;
  row.set_integer("iterations_per_chain",
                  chains.front().warmup_planned + chains.front().samples_planned);
  std::uint64_t total = 0, accepted = 0, kept = 0;
  for (const auto& ch : chains) {
    total += ch.iterations();
    accepted += ch.samples_accepted;
    kept += ch.samples_done;
  }
  row.set_integer("iterations_total", total);
  row.set("acceptance_rate",
          kept ? std::optional<double>(static_cast<double>(accepted) / static_cast<double>(kept))
               : std::nullopt);
  row.set("llr_clip_frac", finite(column_mean(out.run, {"clip_frac__", "llr_clip_frac__"})));
  row.set("grad_clip_frac", finite(column_mean(out.run, {"grad_clip_frac__"})));
  // Rows evaluated per iteration ([ZhangZhang2023] Figures 1(b), 3(b): "batch size"; 0 in an
  // iteration that released nothing, n in a full-batch one). Computed from the private rows without
  // noise: an experiment's results are the curator's evaluation record, as the clip fractions are.
  row.set("batch_size", finite(column_mean(out.run, {"batch_size__"})));
  if (wants(spec, "mmd") && out.mmd) row.set("mmd", finite(out.mmd->mmd));
  // The noise floor: as many exact draws against the same reference (the thesis' black lines,
  // [Raisa2021] Figures 6.3 and 6.4).
  if (wants(spec, "mmd") && out.mmd_baseline) row.set("mmd_exact", finite(*out.mmd_baseline));
  if (wants(spec, "mean_error") && out.mean_error) row.set("mean_error", finite(*out.mean_error));
  if (wants(spec, "sym_kl") && out.sym_kl) row.set("sym_kl", finite(*out.sym_kl));
  if (wants(spec, "test_accuracy") && out.test_accuracy)
    row.set("test_accuracy", finite(*out.test_accuracy));
  const json& accuracy = out.accuracy;
  if (wants(spec, "cov_error") && accuracy.contains("cov_error") &&
      accuracy["cov_error"].is_number())
    row.set("cov_error", finite(accuracy["cov_error"].get<double>()));
  if (wants(spec, "rhat")) row.set("max_rhat", max_rhat(out));
  const json& privacy = out.report["privacy"];
  if (privacy.value("private", false)) {
    const std::string by = privacy["planned_by"].get<std::string>();
    row.set("accountant", by);
    for (const auto& a : privacy["accountants"]) {
      if (a["accountant"] != by) continue;
      row.set("bound", a["bound"].get<std::string>());
      if (a.contains("recorded_epsilon") && a["recorded_epsilon"].is_number())
        row.set("certified_epsilon", a["recorded_epsilon"].get<double>());
    }
  }
}

std::optional<std::vector<ResultRow>> sample_cell(const ExperimentSpec& spec,
                                                  const ExperimentCell& c,
                                                  const std::filesystem::path& out_dir,
                                                  const std::atomic<bool>* stop, bool draw_files,
                                                  const CellShared& shared) {
  const Preset& preset = find_preset(c.model);
  const std::size_t n = spec.n.value_or(preset.n);
  ResultRow row = base_row(spec, c, n);
  row.set_integer("chains", static_cast<std::uint64_t>(spec.chains));
  row.set_integer("seed", c.seed);
  row.set_integer("data_seed", c.data_seed);
  const SampleSpec s = cell_sample_spec(spec, c, out_dir, stop, draw_files, shared, n);

  Stopwatch clock;
  // Constructed in place (the job's outcome is large; no default-construct-then-assign).
  std::optional<SampleOutcome> result;
  try {
    result.emplace(run_sample_job(s));
  } catch (const Error& e) {
    row.set("wall_seconds", clock.seconds());
    row.set("status", "error");
    row.set("message", e.what());
    return std::vector<ResultRow>{row};
  }
  if (!result->run.complete()) return std::nullopt;  // interrupted: recomputed on resume
  row.set("wall_seconds", clock.seconds());
  record_outcome(spec, *result, row);
  row.set("status", "completed");
  return std::vector<ResultRow>{row};
}

std::vector<ResultRow> account_cell(const ExperimentSpec& spec, const ExperimentCell& c) {
  const Preset& preset = find_preset(c.model);
  const std::size_t n = spec.n.value_or(preset.n);
  const auto tmpl = release_template(
      c.sampler.sampler, sampler_params(preset, c.sampler.sampler, c.sampler.overrides), preset, n);
  const Budget budget{*c.epsilon, spec.delta.delta(n)};
  std::vector<ResultRow> rows;
  for (const auto& r : plan_rows(budget, tmpl, spec.accountants)) {
    ResultRow row = base_row(spec, c, n);
    row.set("accountant", r.accountant);
    row.set("bound", to_string(r.bound));
    row.set("wall_seconds", r.seconds);
    if (r.ok) {
      row.set_integer("iterations_total", r.iterations);
      row.set("certified_epsilon", r.epsilon_spent);
      row.set("status", "completed");
      if (r.capped) row.set("message", "capped: the planner's iteration limit was reached");
    } else {
      row.set("status", "error");
      row.set("message", r.message);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

// One audit (src/audit/): the sampler calibrated so that k = the cell's sweep value iterations
// certify the cell's ε at the spec's δ for the audit's rows, on the preset's data simulated with
// the cell's data seed, proposals from the cell's seed, noise from the spec's key (or a fresh
// one).
std::optional<std::vector<ResultRow>> audit_cell(const ExperimentSpec& spec,
                                                 const ExperimentCell& c, const CellShared& shared,
                                                 const std::atomic<bool>* stop) {
  const Preset& preset = find_preset(c.model);
  const std::size_t rows = std::min(spec.audit.rows, preset.n);
  const auto k = static_cast<std::uint64_t>(c.sweep_value.value_or(1.0));
  const double delta = spec.delta.delta(rows);
  const SamplerDescriptor& entry = *find_private_sampler(c.sampler.sampler);
  const auto model = preset.make_model();
  const Dataset base = simulate_preset(preset, *model, c.data_seed, rows);
  json params = with_unset_counts(entry, sampler_params(preset, entry.name, c.sampler.overrides));
  params = calibrate_privacy_knobs(entry, params, *model, rows, k, *c.epsilon, delta);
  const SamplerSubject subject(entry, preset, params, base, k, c.seed);
  AuditOptions options;
  options.trials = k == 1 ? spec.audit.trials : spec.audit.chain_trials;
  options.pilot_trials = spec.audit.pilot_trials;
  options.delta = delta;
  options.beta = 1.0 - spec.audit.confidence;
  options.threads = 1;  // the runner spreads cells over the cores
  options.stop = stop;
  const NoiseKey key = shared.noise_key ? *shared.noise_key : NoiseKey::fresh();
  AuditOutcome out;
  try {
    out = run_audit(subject, canary_pairs(base, subject.relation()), options, key);
  } catch (const InterruptedRun&) {
    return std::nullopt;  // stopped: no row, the cell runs again on resume
  }
  ResultRow row = base_row(spec, c, rows);
  row.set("certified_epsilon", out.certified_epsilon);
  row.set("epsilon_lb", out.bound.epsilon);
  row.set("hockey_stick_epsilon", out.hockey_stick.epsilon);
  row.set("wall_seconds", out.seconds);
  row.set("status", "completed");
  row.set("message", sanitize_field(fmt::format(
                         "{}: test {} {} {:.6g}; canary {}",
                         out.violation() ? "VIOLATION" : "consistent", out.bound.statistic,
                         out.bound.test.above ? ">" : "<=", out.bound.test.threshold, out.canary)));
  return std::vector<ResultRow>{row};
}

}  // namespace

std::filesystem::path cell_dir(const std::filesystem::path& out_dir, const ExperimentCell& c) {
  std::filesystem::path dir = out_dir / "cells" / c.model / c.sampler.label;
  if (c.sweep_param) dir /= *c.sweep_param + "-" + format_number(*c.sweep_value);
  return dir / (c.epsilon ? "eps-" + format_number(*c.epsilon) : std::string("non-private")) /
         fmt::format("rep-{}", c.repeat.value_or(1));
}

std::optional<std::vector<ResultRow>> run_experiment_cell(
    const ExperimentSpec& spec, const ExperimentCell& cell, const std::filesystem::path& out_dir,
    const std::atomic<bool>* stop, bool draw_files, const CellShared& shared) {
  if (spec.kind == ExperimentKind::sample)
    return sample_cell(spec, cell, out_dir, stop, draw_files, shared);
  try {
    if (spec.kind == ExperimentKind::audit) return audit_cell(spec, cell, shared, stop);
    return account_cell(spec, cell);
  } catch (const Error& e) {
    const std::size_t preset_n = find_preset(cell.model).n;
    ResultRow row =
        base_row(spec, cell,
                 spec.kind == ExperimentKind::audit ? std::min(spec.audit.rows, preset_n)
                                                    : spec.n.value_or(preset_n));
    row.set("status", "error");
    row.set("message", e.what());
    return std::vector<ResultRow>{row};
  }
}

}  // namespace dpmcmc
