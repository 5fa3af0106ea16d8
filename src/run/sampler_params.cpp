#include "run/sampler_params.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "core/error.hpp"

namespace dpmcmc {

using nlohmann::json;

std::set<std::string> sampler_keys(const std::string& sampler) {
  const std::set<std::string> penalty = {"proposal_sd", "tau", "clip", "alpha"};
  if (sampler == "rwmh") return {"proposal_sd", "clip"};
  if (sampler == "hmc") return {"step_size", "steps", "mass", "randomized_step_size", "clip"};
  if (sampler == "tunamh") return {"proposal_sd", "lambda"};
  if (sampler == "dp-penalty" || sampler == "dp-penalty-ocu" || sampler == "dp-penalty-gwmh")
    return penalty;
  if (sampler == "dp-penalty-shared") return {"proposal_sd", "tau", "clip", "alpha", "owners"};
  if (sampler == "dp-penalty-expfam") return {"proposal_sd", "tau", "alpha"};
  if (sampler.starts_with("dp-penalty-minibatch"))
    return {"proposal_sd", "tau", "clip", "batch_size"};
  if (sampler == "dp-hmc")
    return {"tau_l",     "tau_g", "clip_l", "clip_g",
            "step_size", "steps", "mass",   "randomized_step_size"};
  if (sampler == "dp-barker") return {"proposal_sd", "batch_size", "noise_variance"};
  if (sampler == "dp-sgld") return {"batch_sampling", "batch_size", "step_size", "clip"};
  if (sampler == "dp-sgnht") return {"batch_sampling", "batch_size", "step_size", "clip", "A"};
  if (sampler == "dp-fast-mh")
    return {"proposal_sd", "epsilon", "delta", "lambda", "max_batch", "free_branch", "row_bound"};
  if (sampler == "dp-fast-mh-full")
    return {"proposal_sd", "epsilon", "delta", "free_branch", "row_bound"};
  return {};
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
  // OCU and GWMH share the thesis' "OCU+GWMH" defaults; the data-sharing penalty starts from
  // the plain penalty's (004_14fb110475802c51.txt: same σ per owner).
  std::string key = sampler;
  if (sampler == "dp-penalty-gwmh") key = "dp-penalty-ocu";
  if (sampler == "dp-penalty-minibatch-gwmh") key = "dp-penalty-minibatch-ocu";
  if (sampler == "dp-penalty-shared") key = "dp-penalty";
  if (sampler == "dp-fast-mh-full") key = "dp-fast-mh";
  // A shared entry may hold keys this sampler does not read (dp-fast-mh's λ and K for the
  // full-batch variant): only those it reads are its defaults.
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
