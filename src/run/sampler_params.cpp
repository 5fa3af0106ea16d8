#include "run/sampler_params.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/error.hpp"

namespace dpmcmc {

using nlohmann::json;

namespace {

// The command-line spelling of a key: proposal_sd → --proposal-sd.
std::string option_of(std::string key) {
  for (char& c : key) {
    if (c == '_') c = '-';
  }
  return "--" + key;
}

}  // namespace

json sampler_params(const Preset& preset, const std::string& sampler, const json& overrides) {
  // OCU and GWMH share the thesis' "OCU+GWMH" defaults; the data-sharing penalty starts from
  // the plain penalty's (004_14fb110475802c51.txt: same σ per owner).
  std::string key = sampler;
  if (sampler == "dp-penalty-gwmh") key = "dp-penalty-ocu";
  if (sampler == "dp-penalty-minibatch-gwmh") key = "dp-penalty-minibatch-ocu";
  if (sampler == "dp-penalty-shared") key = "dp-penalty";
  if (sampler == "dp-fast-mh-full") key = "dp-fast-mh";
  json params = preset.samplers.contains(key) ? preset.samplers.at(key) : json::object();
  for (const auto& [k, v] : overrides.items()) params[k] = v;
  params.erase("source");
  return params;
}

Vec vector_param(const json& params, const std::string& sampler, const std::string& key, int dim) {
  if (!params.contains(key)) {
    throw UsageError(
        fmt::format("sampler '{}' needs {} (the preset has no default)", sampler, option_of(key)));
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
      fmt::format("sampler '{}': {} must be a number or {} numbers", sampler, option_of(key), dim));
}

double number_param(const json& params, const std::string& sampler, const std::string& key) {
  if (!params.contains(key) || !params.at(key).is_number()) {
    throw UsageError(fmt::format("sampler '{}' needs a number for {} (the preset has no default)",
                                 sampler, option_of(key)));
  }
  return params.at(key).get<double>();
}

double number_param(const json& params, const std::string& sampler, const std::string& key,
                    double fallback) {
  return params.contains(key) ? number_param(params, sampler, key) : fallback;
}

std::uint64_t count_param(const json& params, const std::string& sampler, const std::string& key) {
  const double v = number_param(params, sampler, key);
  if (!(v >= 1.0) || v != std::floor(v) || v > 9.007199254740992e15) {
    throw UsageError(fmt::format("sampler '{}': {} must be a whole number >= 1, got {}", sampler,
                                 option_of(key), v));
  }
  return static_cast<std::uint64_t>(v);
}

}  // namespace dpmcmc
