// The sampler hyperparameter options shared by `dpmcmc sample` and `dpmcmc account --sampler`:
// one table of keys (their option is option_of(key), run/sampler_params.hpp) so that both
// commands accept the same spelling, help and checks, and turn them into the JSON overrides of
// the preset's defaults (run/sampler_params.hpp).
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace dpmcmc::cli {

struct SamplerOptionValues {
  std::vector<double> proposal_sd, mass;
  std::optional<bool> randomize;
  std::optional<std::string> batch_sampling;
  // The numeric hyperparameters, one per entry of the table in sampler_options.cpp.
  std::vector<std::optional<double>> hyper;
  SamplerOptionValues();
};

// Adds the options to `cmd`, bound to `values` (which must outlive the parse).
void add_sampler_options(CLI::App& cmd, SamplerOptionValues& values);

// The overrides the user gave, as JSON keyed like the preset's sampler defaults. UsageError for a
// key `sampler` does not read (naming its option and the keys it reads), a value ≤ 0, or a
// fractional count.
nlohmann::json sampler_overrides(const SamplerOptionValues& values, const std::string& sampler);

}  // namespace dpmcmc::cli
