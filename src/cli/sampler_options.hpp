// The sampler hyperparameter options shared by `dpmcmc sample` and `dpmcmc account --sampler`,
// generated from the hyperparameter table and the sampler descriptors (run/sampler_params.hpp,
// run/sampler_descriptors.hpp): both commands accept the same spelling, help and checks, and turn
// them into the JSON overrides of the preset's defaults.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace dpmcmc {
struct SamplerDescriptor;
}

namespace dpmcmc::cli {

struct SamplerOptionValues {
  // What the user gave for each entry of the hyperparameter table (run/sampler_params.hpp), in
  // the member its kind uses.
  struct Given {
    std::optional<double> number;  // number, count
    std::vector<double> values;    // vector
    std::optional<bool> flag;
    std::optional<std::string> choice;
  };
  std::vector<Given> given;
  SamplerOptionValues();
};

// Adds the options to `cmd`, bound to `values` (which must outlive the parse).
void add_sampler_options(CLI::App& cmd, SamplerOptionValues& values);

// The overrides the user gave, as JSON keyed like the preset's sampler defaults. UsageError for a
// key `sampler` does not read (naming its option and the keys it reads), a value ≤ 0, or a
// fractional count.
nlohmann::json sampler_overrides(const SamplerOptionValues& values, const std::string& sampler);

// The private sampler `--sampler NAME` names, for a command that plans or audits its iterations
// (`what`: "account", "audit"). UsageError listing them otherwise; for dp-nss, which is private
// but has no iterations (one release of a regression family's statistics), saying so.
const SamplerDescriptor& iterated_private_sampler(const std::string& name, const std::string& what);

}  // namespace dpmcmc::cli
