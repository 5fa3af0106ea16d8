// `dpmcmc audit`: the empirical privacy auditor (issue #27, src/audit/). Runs a private sampler
// many times on neighbouring synthetic datasets with fresh secret noise and reports the lower
// bound on ε its published outputs show, beside the ε its accountant certifies:
//   dpmcmc audit --sampler dp-penalty --epsilon 1 --iterations 1 --trials 100000
// --epsilon calibrates the sampler's privacy knobs so that --iterations iterations certify ε;
// without it the preset's hyperparameters (and any given on the command line) are audited as
// they are. The data are the preset's simulated rows (public), so every number is printable.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "audit/audit_plot.hpp"
#include "audit/audit_run.hpp"
#include "audit/neighbours.hpp"
#include "audit/sampler_subject.hpp"
#include "cli/commands.hpp"
#include "cli/sampler_options.hpp"
#include "core/error.hpp"
#include "data/atomic_file.hpp"
#include "models/presets.hpp"
#include "run/sampler_descriptors.hpp"
#include "run/sampler_params.hpp"

namespace dpmcmc::cli {
namespace {

struct AuditArgs {
  std::string sampler, model, out, plot, noise_key_file;
  std::optional<double> epsilon;
  double delta = 1e-5;
  double confidence = 0.95;
  std::uint64_t iterations = 1;
  std::uint64_t trials = 10000;
  std::uint64_t pilot_trials = 1000;
  std::optional<std::size_t> rows;
  std::uint64_t seed = 1;
  int threads = 0;
  bool json = false;
  SamplerOptionValues sampler_options;
};

// The rows audited by default: the preset's n, at most 5000 (each run reads every row once per
// full-data release; 5000 keeps 10⁵ runs in seconds), and at least what a batch needs.
std::size_t default_rows(const Preset& preset, const nlohmann::json& params) {
  std::size_t rows = std::min<std::size_t>(preset.n, 5000);
  for (const char* key : {"batch_size", "lambda"}) {
    if (params.contains(key) && params[key].is_number()) {
      rows = std::max(rows, static_cast<std::size_t>(2.0 * params[key].get<double>()));
    }
  }
  return std::min(rows, preset.n);
}

void print_text(const AuditOutcome& o, const std::string& calibration) {
  const auto& t = o.bound;
  fmt::print("audit: {}\n", o.subject);
  if (!calibration.empty()) fmt::print("  calibration: {}\n", calibration);
  std::size_t ran = 0;
  for (const auto& p : o.pilot) ran += p.refused.empty() ? 1 : 0;
  fmt::print("  relation: {}; canary: {} (best of {} candidate pairs run in the pilot)\n",
             o.relation == Neighbouring::substitute ? "substitute one row" : "add/remove one row",
             o.canary, ran);
  fmt::print(
      "  test: {} {} {:.6g} as evidence for {}; FPR {:.4g} (upper {:.4g}), FNR {:.4g} "
      "(upper {:.4g}) on {} judged runs per dataset\n",
      t.statistic, t.test.above ? ">" : "<=", t.test.threshold, t.test.swapped ? "D" : "D'", t.fpr,
      t.fpr_upper, t.fnr, t.fnr_upper, t.judged_trials);
  fmt::print("  epsilon lower bound: {:.4g} at {:.3g}% confidence (delta {:.3g})\n", t.epsilon,
             100.0 * (1.0 - o.beta), o.delta);
  fmt::print("  epsilon certified:   {:.4g} (ratio {:.3g})\n", o.certified_epsilon,
             o.certified_epsilon > 0.0 ? t.epsilon / o.certified_epsilon : 0.0);
  fmt::print("  hockey-stick estimate: {:.4g} ({} bins; a plug-in estimate, no confidence)\n",
             o.hockey_stick.epsilon, o.hockey_stick.bins);
  fmt::print("  verdict: {}\n", o.violation() ? "VIOLATION" : "consistent");
  fmt::print("  {} runs per dataset in {:.1f} s\n", o.trials, o.seconds);
}

void run_audit_command(const AuditArgs& a) {
  const SamplerDescriptor* entry = &iterated_private_sampler(a.sampler, "audit");
  const Preset& preset = a.model.empty() ? defaults_preset(*entry) : find_preset(a.model);
  if (preset.load_data) {
    throw UsageError(
        fmt::format("--model: '{}' holds real data; the auditor runs on a preset's simulated rows",
                    preset.name));
  }
  if (!(a.confidence > 0.0 && a.confidence < 1.0)) {
    throw UsageError(
        fmt::format("--confidence: expected a number in (0, 1), got {}", a.confidence));
  }
  if (!(a.delta > 0.0 && a.delta < 1.0)) {
    throw UsageError(fmt::format("--delta: expected a number in (0, 1), got {}", a.delta));
  }
  if (a.epsilon && !(*a.epsilon > 0.0 && std::isfinite(*a.epsilon))) {
    throw UsageError(fmt::format("--epsilon: expected a finite number > 0, got {}", *a.epsilon));
  }
  if (a.iterations < 1) throw UsageError("--iterations: expected >= 1, got 0");
  const auto overrides = sampler_overrides(a.sampler_options, entry->name);
  nlohmann::json params = with_unset_counts(*entry, sampler_params(preset, entry->name, overrides));
  const auto model = preset.make_model();
  const std::size_t rows = a.rows.value_or(default_rows(preset, params));
  if (rows < 2) throw UsageError(fmt::format("--rows: expected >= 2, got {}", rows));
  const Dataset base = simulate_preset(preset, *model, a.seed, rows);
  std::string calibration;
  if (a.epsilon) {
    params =
        calibrate_privacy_knobs(*entry, params, *model, rows, a.iterations, *a.epsilon, a.delta);
    std::vector<std::string> knobs;
    for (const auto& k : entry->privacy_knobs) {
      knobs.push_back(fmt::format("{} = {:.6g}", k, params[k].get<double>()));
    }
    calibration = fmt::format("{}, so that {} iteration{} certif{} epsilon {} at delta {}",
                              fmt::join(knobs, ", "), a.iterations, a.iterations == 1 ? "" : "s",
                              a.iterations == 1 ? "ies" : "y", *a.epsilon, a.delta);
  }
  const SamplerSubject subject(*entry, preset, params, base, a.iterations, a.seed);
  AuditOptions options;
  options.trials = a.trials;
  options.pilot_trials = a.pilot_trials;
  options.delta = a.delta;
  options.beta = 1.0 - a.confidence;
  options.threads = a.threads;
  const NoiseKey key =
      a.noise_key_file.empty()
          ? NoiseKey::fresh()
          : NoiseKey::from_file(a.noise_key_file, NoiseKey::FilePolicy::public_allowed);
  const AuditOutcome outcome =
      run_audit(subject, canary_pairs(base, subject.relation()), options, key);
  nlohmann::json j = outcome.to_json();
  j["sampler"] = {{"name", entry->name}, {"params", params}};
  j["model"] = preset.name;
  j["rows"] = rows;
  j["iterations"] = a.iterations;
  j["seed"] = a.seed;
  if (!calibration.empty()) j["calibration"] = calibration;
  if (!a.out.empty()) write_file_atomic(a.out, j.dump(2) + "\n");
  std::filesystem::path svg;
  if (!a.plot.empty()) svg = write_audit_plot(outcome, a.plot);
  if (a.json) {
    fmt::print("{}\n", j.dump(2));
  } else {
    print_text(outcome, calibration);
    if (!svg.empty()) fmt::print("  plot: {}\n", svg.string());
  }
  // A violation is the audit's finding, not a failure of the command: the verdict is printed
  // and in the JSON, and the exit status stays 0.
}

}  // namespace

void add_audit_command(CLI::App& app) {
  auto a = std::make_shared<AuditArgs>();
  auto* cmd = app.add_subcommand(
      "audit",
      "Empirical privacy audit: a lower bound on epsilon from a private sampler's outputs on "
      "neighbouring data, beside the certified epsilon");
  cmd->add_option("--sampler", a->sampler, "Private sampler to audit (see `dpmcmc samplers`)")
      ->required();
  cmd->add_option("--model", a->model,
                  "Preset whose simulated rows and defaults are used (default: the first "
                  "preset with the sampler's defaults)");
  cmd->add_option("--epsilon", a->epsilon,
                  "Calibrate the sampler's privacy knobs so that --iterations iterations certify "
                  "this epsilon (default: audit the preset's settings as they are)");
  cmd->add_option("--delta", a->delta, "delta of the certificate and of the bound")
      ->capture_default_str();
  cmd->add_option("--iterations", a->iterations, "Iterations per run (1: the single release)")
      ->capture_default_str();
  cmd->add_option("--trials", a->trials, "Runs on each of D and D' for the bound")
      ->capture_default_str();
  cmd->add_option("--pilot-trials", a->pilot_trials,
                  "Runs on each of D and D' per candidate canary in the pilot")
      ->capture_default_str();
  cmd->add_option("--rows", a->rows,
                  "Rows of the simulated data (default: the preset's n, at most 5000, at least "
                  "twice a batch)");
  cmd->add_option("--confidence", a->confidence, "Confidence of the lower bound (1 - beta)")
      ->capture_default_str();
  cmd->add_option("--seed", a->seed, "Public seed: data, proposals and the start (same every run)")
      ->capture_default_str();
  cmd->add_option("--noise-key-file", a->noise_key_file,
                  "Key of the runs' noise (created when missing; default: a fresh key)");
  cmd->add_option("--threads", a->threads,
                  "Threads (0: all cores; the result does not depend on it)")
      ->capture_default_str();
  cmd->add_option("--out", a->out, "Write the result as JSON to this file");
  cmd->add_flag("--json", a->json, "Print the result as JSON");
  cmd->add_option("--plot", a->plot,
                  "Draw the chosen test's trade-off curve against the certified one into this "
                  "directory (tradeoff.svg; needs gnuplot)");
  add_sampler_options(*cmd, a->sampler_options);
  cmd->callback([a] { run_audit_command(*a); });
}

}  // namespace dpmcmc::cli
