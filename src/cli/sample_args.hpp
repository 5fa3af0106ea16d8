// The options of `dpmcmc sample` and the SampleSpec they make (run/sample_job.hpp). Kept apart
// from the command so that a resumed run (sample_command.cpp) can parse the arguments it was
// started with again.
#pragma once

#include <CLI/CLI.hpp>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/sampler_options.hpp"
#include "run/sample_job.hpp"

namespace dpmcmc::cli {

struct SampleArgs {
  std::string model = "banana-tempered-2d";
  std::string sampler = "nuts";
  std::string data, out, noise_key_file, ledger;
  std::string schema;               // --schema: a user model on --data
  std::vector<std::string> priors;  // --prior
  std::optional<double> sigma;      // --sigma
  std::size_t n = 0;
  std::optional<std::uint64_t> seed, data_seed;
  int chains = 4, threads = 0;
  // Unset: the preset's run default for the sampler (Preset::run_defaults), else 1000.
  std::optional<std::size_t> iter, warmup;
  std::size_t thin = 1, reference_draws = 1000;
  std::string accuracy = "auto";
  bool save_warmup = false, quiet = false;
  bool adapt = true;
  std::optional<double> target_accept;  // unset: the preset's run default, else the sampler's
  std::optional<std::string> metric;    // unset: the preset's run default, else "diag"
  std::vector<double> init, init_centre;
  std::optional<double> init_spread;
  SamplerOptionValues sampler_options;
  std::optional<double> epsilon, delta;
  std::vector<std::string> accountants;
  double warmup_fraction = 0.5;
  // dp-nss (logistic): pilot releases before the final one, and their share of the budget.
  std::optional<std::size_t> pilot_releases;
  std::optional<double> pilot_share;
  // Checkpoints: iterations per chain between two (0: none); default every few seconds of work.
  std::optional<std::size_t> checkpoint_every;
  std::string resume;  // DIR of a stopped run to continue
};

// What the preset of `a.model` recommends for `a.sampler` (Preset::run_defaults); empty for a
// regression family, an unknown name (refused later) or a sampler without recommendations.
struct PresetRunDefaults {
  std::optional<std::size_t> iter, warmup;
  std::optional<double> target_accept;
  bool dense_metric = false;
};
PresetRunDefaults preset_run_defaults(const SampleArgs& a);

// Adds every option of `sample` to `cmd`, bound to `a` (which must outlive the parse).
void add_sample_options(CLI::App& cmd, SampleArgs& a);

// The job's spec. UsageError naming the option for a value out of range.
SampleSpec to_spec(const SampleArgs& a);

// An option the run would not use is refused, not ignored (UsageError naming it).
void refuse_unused_options(const CLI::App& cmd, const std::string& sampler);

}  // namespace dpmcmc::cli
