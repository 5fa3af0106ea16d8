// An experiment specification (experiments/*.json, or TOML; docs/experiments.md): which model
// presets, samplers, ε grid, δ rule, repeats, chains, starting points, burn-in, metrics, seed,
// and profiles (quick/full) that override some of them. The loader validates every key and
// value and names the file and key of the first problem; it also checks up front that every
// (model, sampler) pair can be built, so that a typo does not surface hours into a run.
//
// Two kinds:
//   sample   each cell (model, sampler, ε, repeat) is one sampling job (run/sample_job.hpp);
//            non-private samplers (rwmh, hmc) have no ε: one cell per (model, sampler, repeat).
//   account  each cell (model, sampler, ε) tabulates the iterations the budget allows for the
//            sampler's per-iteration release template under each accountant (no sampling).
//   audit    each cell (model, sampler, ε, k) is one empirical privacy audit (src/audit/): the
//            sampler calibrated so that k iterations certify ε, run on neighbouring datasets,
//            its lower bound on ε beside the certified ε. The iteration counts k are the cells'
//            sweep coordinate ("iterations"; an audit spec has no other sweep).
// A "sweep" adds one grid coordinate: each swept sampler label runs once per value of one
// hyperparameter (e.g. the clip bound of [Raisa2021] Section 6.2).
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/types.hpp"

namespace dpmcmc {

enum class ExperimentKind { sample, account, audit };

// "sample", "account" or "audit".
const char* experiment_kind_name(ExperimentKind kind);

// An audit experiment's settings ("audit": {"iterations": [1, 5], "trials": N,
// "chain_trials": M, "pilot_trials": P, "rows": R, "confidence": C}): N runs per dataset for
// the single-iteration audit (k = 1), M for the longer ones (each run costs k iterations).
struct AuditGrid {
  std::vector<std::uint64_t> iterations = {1};
  std::uint64_t trials = 100000;
  std::uint64_t chain_trials = 10000;
  std::uint64_t pilot_trials = 1000;
  std::size_t rows = 5000;  // of each preset's simulated data (at most its n)
  double confidence = 0.95;
};

// A sampler of the experiment under a label. The label names it in the results; it is the
// sampler's own name unless the spec's "params" entry for the label says "sampler": NAME, which
// lets one sampler appear twice with different hyperparameters.
struct SamplerChoice {
  std::string label;
  std::string sampler;
  nlohmann::json overrides = nlohmann::json::object();  // same keys as `dpmcmc sample` (presets)
  // Non-private samplers: iterations per chain for this label ("params": {LABEL: {"iterations":
  // {"warmup": W, "samples": S}}}), replacing the spec's; none: the spec's.
  std::optional<std::size_t> warmup, samples;
  // The models this label runs on ("params": {LABEL: {"models": [...]}}, a subset of the spec's
  // models, e.g. a sampler whose published hyperparameters exist for some models only); empty:
  // every model. A grid coordinate, not a setting: it is not part of the cell hash.
  std::vector<std::string> models;
  // Warmup adaptation ("params": {LABEL: {"adapt": true}}); off by default, so that the specs
  // reproduce the papers' hand-tuned runs. Part of the cell hash only when on.
  bool adapt = false;
  // The acceptance the adaptation aims at ("params": {LABEL: {"adapt": true, "target_accept":
  // X}}, Stan's adapt_delta); none: the kernel's own target. Part of the cell hash when set.
  std::optional<double> target_accept;
  bool runs_on(const std::string& model) const;
};

// A hyperparameter swept over values ("sweep": {"param": P, "values": [...], "samplers":
// [labels]}): each swept label runs once per value, with P = value added to its overrides. The
// other labels run once, as without a sweep.
struct SweepSpec {
  std::string param;
  std::vector<double> values;
  std::vector<std::string> labels;  // the swept labels (default: every label)
  bool sweeps(const std::string& label) const;
};

// δ = constant, or δ = c/n with n the rows of the cell's data ("0.1/n", the papers' rule).
struct DeltaRule {
  bool per_row = true;
  double value = 0.1;
  double delta(std::size_t n) const;
  std::string text() const;
};

// Starting points: the preset's Section 5.2 rule, or a given centre and spread, or one point.
struct InitRule {
  enum class Kind { preset, centre, point } kind = Kind::preset;
  Vec centre;  // centre or point
  double spread = 1.0;
};

struct ExperimentSpec {
  std::filesystem::path file;
  std::string name;
  std::string description;
  ExperimentKind kind = ExperimentKind::sample;
  std::string profile;  // the profile applied ("full" or "quick")
  std::vector<std::string> models;
  std::vector<SamplerChoice> samplers;
  std::optional<SweepSpec> sweep;
  std::vector<double> epsilons;
  DeltaRule delta;
  int repeats = 1;
  int chains = 1;
  std::optional<std::size_t> n;  // rows of the synthetic data (default: the preset's n)
  // Non-private samplers: iterations per chain (private ones: the budget decides).
  std::size_t warmup = 500;
  std::size_t samples = 500;
  InitRule init;
  // "paired_starts": true gives every sampler, ε and sweep value of one repeat the same starting
  // points (the papers' design: [RaisaKoskelaHonkela2021] Section 4.1, [Raisa2021] Section 5.2);
  // false: each cell draws its own.
  bool paired_starts = false;
  // "fixed_data": true gives every repeat the same synthetic data (the papers' design: their
  // repeats vary only the starting points, [RaisaKoskelaHonkela2021] Section 4.1, [Raisa2021]
  // Section 5.2); false: each repeat draws its own data set.
  bool fixed_data = false;
  double warmup_fraction = 0.5;
  // Accuracy metrics written to the results (the others are NA): mmd, mean_error, cov_error,
  // test_accuracy, rhat, sym_kl (the last only when listed). The report's headline metric is the
  // MMD where there is one.
  std::vector<std::string> metrics = {"mmd", "mean_error", "cov_error", "rhat"};
  std::size_t reference_draws = 1000;
  // sample: accountants to plan with (empty: every certified one, the tightest wins);
  // account: the accountants tabulated (empty: every registered one).
  std::vector<std::string> accountants;
  std::uint64_t seed = 0;
  // The noise key of the private cells (core/noise_key.hpp): a key file beside the spec (its path
  // relative to the spec's folder), read even when others can read it — an experiment on public
  // synthetic data publishes no private data — or, without one, a fresh key per cell. The key is
  // not part of the spec's hash: rows drawn under different keys are draws of the same
  // experiment; the key file only makes a rerun identical bit for bit.
  std::optional<std::filesystem::path> noise_key_file;
  AuditGrid audit;  // kind audit only
  // The spec after the profile, as canonical JSON (written to OUT/spec.json, shown in the report).
  nlohmann::json resolved;
};

// Loads the JSON file `file` and applies `profile` ("full" or "quick"; a profile the file does
// not define leaves the spec as it is). Throws NoInputError for a missing file, ConfigError
// naming the file and key for anything invalid, UsageError for another profile name. (TOML
// specs are converted to the same JSON document by the CLI, which owns the TOML reader.)
ExperimentSpec load_experiment_spec(const std::filesystem::path& file, const std::string& profile);

// The same from an already parsed document (`file` only names it in messages).
ExperimentSpec parse_experiment_spec(const nlohmann::json& doc, const std::filesystem::path& file,
                                     const std::string& profile);

// Whether `sampler` takes a privacy budget (ε grid applies).
bool experiment_sampler_is_private(const std::string& sampler);

}  // namespace dpmcmc
