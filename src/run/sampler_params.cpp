#include "run/sampler_params.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "core/error.hpp"
#include "run/sampler_descriptors.hpp"

namespace dpmcmc {

using nlohmann::json;

std::set<std::string> sampler_keys(const std::string& sampler) {
  const SamplerDescriptor* d = find_sampler(sampler);
  if (d == nullptr) return {};
  return {d->params.begin(), d->params.end()};
}

const std::vector<ParamInfo>& param_table() {
  using K = ParamKind;
  static const std::vector<ParamInfo> table = {
      {"proposal_sd", K::vector, "proposal sd (one value or one per parameter)"},
      {"mass", K::vector, "diagonal mass matrix (one value or one per parameter)"},
      {"randomized_step_size", K::flag, "randomised Halton step size (true/false)"},
      {"batch_sampling",
       K::choice,
       "how each batch is drawn: poisson (default; each row with probability b/n; add/remove "
       "neighbours) or without_replacement (exactly b rows; substitute neighbours)",
       {"poisson", "without_replacement"}},
      {"step_size", K::number,
       "leapfrog step size eta (hmc, dp-hmc); the DP HMC paper's per-row step, the update using "
       "eta/n (dp-sgld, dp-sgnht)"},
      {"steps", K::count, "leapfrog steps L"},
      {"max_depth", K::count, "maximum tree depth of NUTS (at most 2^depth - 1 steps; 10)"},
      {"tau", K::number,
       "noise multiplier tau (noise sd tau n^alpha times the sensitivity; minibatch: noise "
       "variance tau times the squared sensitivity)"},
      {"clip", K::number,
       "clip bound b: each row's log-likelihood ratio to +-b|theta'-theta| (dp-penalty*; rwmh, "
       "hmc: the same clipping without noise, thesis Section 6.2, off by default); per-row "
       "gradient norm bound (dp-sgld, dp-sgnht)"},
      {"alpha", K::number, "exponent alpha of n in the noise"},
      {"batch_size", K::count, "batch size b (1 <= b <= n)"},
      {"owners", K::count, "number of data owners N (1 <= N <= n)"},
      {"tau_l", K::number, "noise multiplier of the log-likelihood-ratio release"},
      {"tau_g", K::number, "noise multiplier of the gradient releases"},
      {"clip_l", K::number, "clip bound of the log-likelihood ratios (per unit step)"},
      {"clip_g", K::number, "L2 clip bound of the per-row gradients"},
      {"noise_variance", K::number, "total noise variance sigma^2 < pi^2/3"},
      {"A", K::number, "thermostat diffusion A"},
      {"epsilon", K::number, "epsilon certified per iteration"},
      {"delta", K::number, "delta certified per iteration"},
      {"lambda", K::number, "expected batch size lambda (plus C M)"},
      {"max_batch", K::count, "batch-size cap K before the full-batch fallback"},
      {"free_branch", K::flag, "the 'privacy for free' branch (docs/dp-fast-mh.md; off)"},
      {"row_bound", K::number, "the public per-row bound c-bar (default: the model's)"},
  };
  return table;
}

std::string readers_of(const std::string& key) {
  std::vector<std::string> names;
  for (const auto& d : sampler_descriptors()) {
    if (std::find(d.params.begin(), d.params.end(), key) != d.params.end()) names.push_back(d.name);
  }
  return fmt::format("{}", fmt::join(names, ", "));
}

std::string option_of(const std::string& key) {
  // Options named for the command line's reader rather than after the paper's symbol.
  static const std::map<std::string, std::string> renamed = {
      {"A", "--thermostat"},
      {"batch_size", "--batch"},
      {"randomized_step_size", "--randomize-step"},
      {"epsilon", "--iteration-epsilon"},
      {"delta", "--iteration-delta"},
      {"free_branch", ""},
      {"row_bound", ""}};
  if (const auto it = renamed.find(key); it != renamed.end()) return it->second;
  std::string option = "--" + key;
  std::replace(option.begin(), option.end(), '_', '-');
  return option;
}

std::string key_name(const std::string& key) {
  const std::string option = option_of(key);
  if (option.empty()) return fmt::format("key '{}'", key);
  std::string spelled = "--" + key;
  std::replace(spelled.begin(), spelled.end(), '_', '-');
  return option == spelled ? option : fmt::format("{} (key '{}')", option, key);
}

void check_sampler_keys(const std::string& sampler, const json& overrides) {
  const std::set<std::string> keys = sampler_keys(sampler);
  // Every sampler reads some key: none means an unknown name, refused as such where it is looked
  // up (with the list of names), not here as "reads nothing".
  if (keys.empty()) return;
  for (const auto& [k, v] : overrides.items()) {
    if (keys.count(k)) continue;
    // Keys without a command-line option (dp-fast-mh's free_branch, row_bound) come last and
    // say so, so that a command-line user is not pointed at an option that does not exist.
    std::vector<std::string> options;
    std::vector<std::string> spec_only;
    for (const auto& key : keys) {
      if (option_of(key).empty()) {
        spec_only.push_back(fmt::format("'{}'", key));
      } else {
        options.push_back(key_name(key));
      }
    }
    std::string reads = fmt::format("{}", fmt::join(options, ", "));
    if (!spec_only.empty())
      reads += fmt::format("; in an experiment spec also {}", fmt::join(spec_only, ", "));
    throw UsageError(
        fmt::format("{}: sampler '{}' does not read it; it reads {}", key_name(k), sampler, reads));
  }
}

json sampler_params(const Preset& preset, const std::string& sampler, const json& overrides) {
  // The descriptor names the preset entry of the defaults: OCU and GWMH share the thesis'
  // "OCU+GWMH" defaults, the data-sharing penalty starts from the plain penalty's
  // ([Yildirim2020]: same σ per owner). A shared entry may hold keys this sampler does
  // not read (dp-fast-mh's λ and K for the full-batch variant): only those it reads are its
  // defaults.
  const SamplerDescriptor* d = find_sampler(sampler);
  const std::string key = d != nullptr ? d->defaults_entry() : sampler;
  const std::set<std::string> reads = sampler_keys(sampler);
  json params = json::object();
  if (preset.samplers.contains(key)) {
    for (const auto& [k, v] : preset.samplers.at(key).items()) {
      if (reads.count(k)) params[k] = v;
    }
  }
  for (const auto& [k, v] : overrides.items()) params[k] = v;
  return params;
}

Vec vector_param(const json& params, const std::string& sampler, const std::string& key, int dim) {
  if (!params.contains(key)) {
    throw UsageError(
        fmt::format("sampler '{}' needs {} (the preset has no default)", sampler, key_name(key)));
  }
  const json& value = params.at(key);
  if (value.is_number()) return Vec::Constant(1, value.get<double>());
  if (value.is_array() && static_cast<int>(value.size()) == dim) {
    Vec v(dim);
    for (int i = 0; i < dim; ++i) {
      if (!value[static_cast<std::size_t>(i)].is_number()) break;
      v(i) = value[static_cast<std::size_t>(i)].get<double>();
      if (i == dim - 1) return v;
    }
  }
  throw UsageError(
      fmt::format("sampler '{}': {} must be a number or {} numbers", sampler, key_name(key), dim));
}

double number_param(const json& params, const std::string& sampler, const std::string& key) {
  if (!params.contains(key) || !params.at(key).is_number()) {
    throw UsageError(fmt::format("sampler '{}' needs a number for {} (the preset has no default)",
                                 sampler, key_name(key)));
  }
  return params.at(key).get<double>();
}

double number_param(const json& params, const std::string& sampler, const std::string& key,
                    double fallback) {
  return params.contains(key) ? number_param(params, sampler, key) : fallback;
}

bool bool_param(const nlohmann::json& params, const std::string& sampler, const std::string& key,
                bool fallback) {
  if (!params.contains(key)) return fallback;
  if (!params.at(key).is_boolean()) {
    throw UsageError(fmt::format("sampler '{}': {} must be true or false", sampler, key_name(key)));
  }
  return params.at(key).get<bool>();
}

std::uint64_t count_param(const json& params, const std::string& sampler, const std::string& key) {
  const double v = number_param(params, sampler, key);
  if (!(v >= 1.0) || v != std::floor(v) || v > 9.007199254740992e15) {
    throw UsageError(fmt::format("sampler '{}': {} must be a whole number >= 1, got {}", sampler,
                                 key_name(key), v));
  }
  return static_cast<std::uint64_t>(v);
}

}  // namespace dpmcmc
