// Sampler hyperparameters as the job receives them: a JSON object of the preset's defaults for
// the sampler (models/presets.hpp) overridden key by key by the user's options. These helpers
// read one key each and throw UsageError naming the sampler and the key when it is missing or of
// the wrong shape; range checks stay with the kernels (ConfigError).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "core/types.hpp"
#include "models/presets.hpp"

namespace dpmcmc {

// Preset defaults for `sampler` (the OCU+GWMH variants share the "dp-penalty-ocu" entry, as the
// thesis ran them together), overridden by `overrides`; the "source" note is dropped.
nlohmann::json sampler_params(const Preset& preset, const std::string& sampler,
                              const nlohmann::json& overrides);

// A vector hyperparameter given as a number (returned as size 1, to be broadcast) or `dim` numbers.
Vec vector_param(const nlohmann::json& params, const std::string& sampler, const std::string& key,
                 int dim);
// A required number.
double number_param(const nlohmann::json& params, const std::string& sampler,
                    const std::string& key);
// A number with a default when absent.
double number_param(const nlohmann::json& params, const std::string& sampler,
                    const std::string& key, double fallback);
// A required whole number ≥ 1.
std::uint64_t count_param(const nlohmann::json& params, const std::string& sampler,
                          const std::string& key);

}  // namespace dpmcmc
