#include "cli/sampler_options.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

#include "cli/options.hpp"
#include "core/error.hpp"
#include "run/private_samplers.hpp"
#include "run/release_once_job.hpp"
#include "run/sampler_descriptors.hpp"
#include "run/sampler_params.hpp"

namespace dpmcmc::cli {

// One slot per entry of the hyperparameter table (run/sampler_params.hpp), whatever its kind.
SamplerOptionValues::SamplerOptionValues() : given(param_table().size()) {}

void add_sampler_options(CLI::App& cmd, SamplerOptionValues& v) {
  const auto& table = param_table();
  for (std::size_t i = 0; i < table.size(); ++i) {
    const ParamInfo& p = table[i];
    const std::string option = option_of(p.key);
    if (option.empty()) continue;  // set in experiment specs only
    // The help names the samplers that read the key, from their descriptors.
    const std::string help = fmt::format("{}: {}", readers_of(p.key), p.help);
    SamplerOptionValues::Given& g = v.given[i];
    switch (p.kind) {
      case ParamKind::number:
        cmd.add_option(option, g.number, help)->type_name("FLOAT");
        break;
      case ParamKind::count:
        cmd.add_option(option, g.number, help)->type_name("INT");
        break;
      case ParamKind::vector:
        cmd.add_option(option, g.values, help)->delimiter(',');
        break;
      case ParamKind::flag:
        cmd.add_option(option, g.flag, help);
        break;
      case ParamKind::choice:
        cmd.add_option(option, g.choice, help)->check(CLI::IsMember(p.choices));
        break;
    }
  }
}

nlohmann::json sampler_overrides(const SamplerOptionValues& v, const std::string& sampler) {
  const auto& table = param_table();
  nlohmann::json o = nlohmann::json::object();
  for (std::size_t i = 0; i < table.size(); ++i) {
    const auto& g = v.given[i];
    const std::string& key = table[i].key;
    if (g.number) o[key] = *g.number;
    if (!g.values.empty())
      o[key] = g.values.size() == 1 ? nlohmann::json(g.values[0]) : nlohmann::json(g.values);
    if (g.flag) o[key] = *g.flag;
    if (g.choice) o[key] = *g.choice;
  }
  // An option the sampler does not read is refused as such before its value is judged.
  check_sampler_keys(sampler, o);
  for (std::size_t i = 0; i < table.size(); ++i) {
    // The vectors (proposal sd, mass) are scales whose squares the kernels use (a proposal
    // variance, a metric): each square finite and > 0. 1e300 and 1e-200 once passed here and
    // failed in every chain as "chain 1: adaptation: the initial metric must be finite and > 0".
    const auto& values = v.given[i].values;
    for (std::size_t j = 0; j < values.size(); ++j) {
      if (!(values[j] >= 1e-150 && values[j] <= 1e150)) {
        throw UsageError(fmt::format(
            "{}: value {} is {}, expected a number in [1e-150, 1e150] (its square must be finite "
            "and > 0)",
            option_of(table[i].key), j + 1, values[j]));
      }
    }
  }
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (!v.given[i].number) continue;
    const std::string option = option_of(table[i].key);
    const double x = positive_option(option, *v.given[i].number);
    if (table[i].kind == ParamKind::count && x != std::floor(x))
      throw UsageError(fmt::format("{}: expected a whole number >= 1, got {}", option, x));
  }
  return o;
}

const SamplerDescriptor& iterated_private_sampler(const std::string& name,
                                                  const std::string& what) {
  if (name == kReleaseOnceSampler) {
    throw UsageError(fmt::format(
        "--sampler {}: `dpmcmc {}` works on samplers that release at every iteration; {} makes "
        "Gaussian releases of a regression family's sufficient statistics (pilots, then the "
        "final one), their noise set by the budget: `dpmcmc advise --model FAMILY --schema FILE "
        "--n N --epsilon E` gives their count, noise multiplier and expected width from public "
        "inputs, and `sample --sampler {}` reports them in report.json, privacy.release_once",
        name, what, name, name));
  }
  const SamplerDescriptor* entry = find_private_sampler(name);
  if (entry == nullptr) {
    throw UsageError(fmt::format(
        "--sampler: '{}' is not a private sampler that releases at every iteration; expected one "
        "of {} ({} releases once and is planned by `dpmcmc sample`)",
        name, fmt::join(private_sampler_names(), ", "), kReleaseOnceSampler));
  }
  return *entry;
}

}  // namespace dpmcmc::cli
