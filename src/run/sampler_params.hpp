// Sampler hyperparameters as the job receives them: a JSON object of the preset's defaults for
// the sampler (models/presets.hpp) overridden key by key by the user's options. These helpers
// read one key each and throw UsageError naming the sampler and the key when it is missing or of
// the wrong shape; range checks stay with the kernels (ConfigError).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "models/presets.hpp"

namespace dpmcmc {

// Preset defaults for `sampler` (the OCU+GWMH variants share the "dp-penalty-ocu" entry, as the
// thesis ran them together), restricted to the keys it reads (sampler_keys) and overridden by
// `overrides`; the "source" note is dropped.
nlohmann::json sampler_params(const Preset& preset, const std::string& sampler,
                              const nlohmann::json& overrides);

// The hyperparameter keys `sampler` reads (run/*_setup.cpp and kernel_factory in
// run/sample_job.cpp); empty for an unknown sampler. A key outside this set would be ignored
// silently, so `dpmcmc sample` and experiment specs refuse it.
std::set<std::string> sampler_keys(const std::string& sampler);

// What a hyperparameter is: a positive number, a whole number ≥ 1, one number or one per model
// parameter, true/false, or one of a few names.
enum class ParamKind { number, count, vector, flag, choice };

struct ParamInfo {
  std::string key;
  ParamKind kind;
  std::string help;                       // its meaning (per sampler where meanings differ)
  std::vector<std::string> choices = {};  // ParamKind::choice
};

// Every key a sampler descriptor may list (sampler_descriptors.hpp), once: the source of the
// options of `sample` and `account` and of their help.
const std::vector<ParamInfo>& param_table();
// The samplers whose descriptors list `key`, comma-separated (for help texts).
std::string readers_of(const std::string& key);

// The `dpmcmc sample` option that sets `key` (proposal_sd → --proposal-sd, A → --thermostat), or
// an empty string for the keys only an experiment spec can set (dp-fast-mh's row_bound, ...).
std::string option_of(const std::string& key);

// How messages name a key: its option, with the spec key when the two are spelled differently
// ("--thermostat (key 'A')"), or "key 'row_bound'" when it has no option.
std::string key_name(const std::string& key);

// Throws UsageError when `overrides` holds a key `sampler` does not read, naming the key and the
// ones it reads. An unknown sampler passes (it is refused by name where it is looked up).
void check_sampler_keys(const std::string& sampler, const nlohmann::json& overrides);

// A vector hyperparameter given as a number (returned as size 1, to be broadcast) or `dim` numbers.
Vec vector_param(const nlohmann::json& params, const std::string& sampler, const std::string& key,
                 int dim);
// A required number.
double number_param(const nlohmann::json& params, const std::string& sampler,
                    const std::string& key);
// A number with a default when absent.
double number_param(const nlohmann::json& params, const std::string& sampler,
                    const std::string& key, double fallback);
// true or false, with a default when absent.
bool bool_param(const nlohmann::json& params, const std::string& sampler, const std::string& key,
                bool fallback);
// A required whole number ≥ 1.
std::uint64_t count_param(const nlohmann::json& params, const std::string& sampler,
                          const std::string& key);

}  // namespace dpmcmc
