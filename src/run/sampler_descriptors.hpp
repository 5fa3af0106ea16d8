// One descriptor per sampler (issue #24). Everything the program says or decides about a sampler
// by its name is read from its descriptor: its one-line summary and source, the hyperparameters it
// reads (sampler_params.hpp holds their table: kind, option, help), the preset entry holding its
// defaults, and how to build it — a private sampler's setup (release template of one iteration +
// kernel factory, private_samplers.hpp), or a non-private sampler's kernel factory. `sample`'s
// options and checks, `account --sampler`, experiment specs, `dpmcmc samplers` and the generated
// table of docs/samplers.md all come from these entries, so they cannot disagree.
//
// Adding a sampler: its kernel (src/samplers/), its setup function, one entry in
// sampler_descriptors.cpp, and its tests (docs/extending.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "data/dataset.hpp"
#include "diagnostics/convergence_warnings.hpp"
#include "models/model.hpp"
#include "models/presets.hpp"
#include "run/private_samplers.hpp"
#include "run/runner.hpp"

namespace dpmcmc {

// A non-private sampler's kernels from its parameters; every parameter is read here, before any
// kernel is built. `model` and `data` must outlive the factory.
using KernelFactoryBuilder = KernelFactory (*)(const std::string& sampler,
                                               const nlohmann::json& params, const Model& model,
                                               const Dataset& data);

struct SamplerDescriptor {
  std::string name;
  std::string summary;  // one line: what it is and where it comes from
  // The hyperparameter keys it reads (sampler_params.hpp's table): its options, and the keys an
  // experiment spec may set for it.
  std::vector<std::string> params;
  // The preset entry (models/presets.hpp) holding its defaults; empty: its own name.
  std::string defaults;
  // Exactly one of the two is set.
  PrivateSamplerBuilder build_private = nullptr;
  KernelFactoryBuilder build = nullptr;
  // What its acceptance rate can say (diagnostics/convergence_warnings.hpp).
  AcceptanceCheck acceptance = AcceptanceCheck::random_walk;
  // A private sampler's privacy knobs: the parameters whose common scaling by s > 0 moves the
  // certified ε of its iterations monotonically (noise multipliers τ; DP-SGLD's clip bound, to
  // which its noise multiplier is inversely proportional; DP-Fast MH's per-iteration ε; DP
  // Barker's batch size, whose test noise is fixed by V_corr). The auditor calibrates them to a
  // target ε (src/audit/); a count is rounded to a whole number.
  std::vector<std::string> privacy_knobs = {};

  bool is_private() const { return build_private != nullptr; }
  const std::string& defaults_entry() const { return defaults.empty() ? name : defaults; }
};

// Every sampler: the non-private baselines first, then the private ones.
const std::vector<SamplerDescriptor>& sampler_descriptors();
// nullptr when there is no sampler of that name.
const SamplerDescriptor* find_sampler(std::string_view name);
// The names of every sampler, or of the private (non-private) ones only.
std::vector<std::string> sampler_names();
std::vector<std::string> private_sampler_names();
std::vector<std::string> baseline_sampler_names();

// The kernels of a non-private sampler (rwmh, hmc, tunamh) from its parameters. UsageError naming
// --sampler and the names for an unknown or private sampler.
KernelFactory kernel_factory(const std::string& sampler, const nlohmann::json& params,
                             const Model& model, const Dataset& data);

// Non-private setups (baseline_setups.cpp).
KernelFactory setup_rwmh(const std::string& sampler, const nlohmann::json& params,
                         const Model& model, const Dataset& data);
KernelFactory setup_hmc(const std::string& sampler, const nlohmann::json& params,
                        const Model& model, const Dataset& data);
KernelFactory setup_nuts(const std::string& sampler, const nlohmann::json& params,
                         const Model& model, const Dataset& data);
KernelFactory setup_tunamh(const std::string& sampler, const nlohmann::json& params,
                           const Model& model, const Dataset& data);

// The first preset on synthetic data holding the sampler's defaults; ConfigError when none does.
const Preset& defaults_preset(const SamplerDescriptor& d);
// `params` with every count the sampler reads and no preset sets (the data owners N) at 2.
nlohmann::json with_unset_counts(const SamplerDescriptor& d, nlohmann::json params);

// What a sampler's kernel and setup say about it, read from a kernel built with the defaults of
// the first preset that has them, on that preset's synthetic data.
struct SamplerFacts {
  // The draw columns after lp__ and accept_stat__, each with whether a private run publishes it
  // (Kernel::publishable_columns; every column of a non-private sampler is published).
  std::vector<std::pair<std::string, bool>> columns;
  // Private samplers: the accountants that certify an upper bound on its releases (those that
  // interpret every event of its iteration's template); empty for a non-private sampler.
  std::vector<std::string> accountants;
  // What --adapt true tunes (Kernel::adaptation()), e.g. "step and metric, target 0.8"; "no".
  std::string adapts;
};
// ConfigError when no preset has defaults for the sampler.
SamplerFacts sampler_facts(const SamplerDescriptor& d);

// The sampler table as `dpmcmc samplers` prints it: plain text, or Markdown (docs/samplers.md).
std::string sampler_table(bool markdown);

}  // namespace dpmcmc
