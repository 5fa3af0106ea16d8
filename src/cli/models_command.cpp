// `dpmcmc models [NAME] [--json]`: the built-in presets, their sizes and per-sampler defaults.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "models/presets.hpp"
#include "models/user_model.hpp"
#include "run/sampler_descriptors.hpp"

namespace dpmcmc::cli {
namespace {

nlohmann::json preset_json(const Preset& p) {
  nlohmann::json j;
  j["name"] = p.name;
  j["description"] = p.description;
  j["dim"] = p.dim;
  j["n"] = p.n;
  j["delta"] = p.delta;
  j["true_theta"] = std::vector<double>(p.true_theta.data(), p.true_theta.data() + p.dim);
  j["data_columns"] = p.data_columns();
  j["source"] = p.source;
  j["samplers"] = p.samplers;
  j["run_defaults"] = p.run_defaults;
  j["experiment"] = p.experiment;
  return j;
}

void print_preset(const Preset& p) {
  fmt::print("{}: {}\n  dimension {}, n = {}, delta = {:g}\n  source: {}\n", p.name, p.description,
             p.dim, p.n, p.delta, p.source);
  fmt::print("  data columns: {}\n", fmt::join(p.data_columns(), ", "));
  fmt::print("  sampler defaults:\n");
  for (const auto& s : p.sampler_names()) {
    fmt::print("    {:<22} {}\n", s, p.samplers.at(s).dump());
  }
  if (!p.run_defaults.empty()) {
    fmt::print("  sample options recommended (used unless given on the command line):\n");
    for (const auto& [s, e] : p.run_defaults.items()) fmt::print("    {:<22} {}\n", s, e.dump());
  }
}

void print_family(GlmFamily family, bool as_json) {
  const auto samplers = user_model_samplers(family);
  if (as_json) {
    fmt::print("{}\n", nlohmann::json{{"family", to_string(family)},
                                      {"description", glm_family_description(family)},
                                      {"samplers", samplers}}
                           .dump(2));
    return;
  }
  fmt::print("{}: {}\n", to_string(family), glm_family_description(family));
  fmt::print(
      "  usage: dpmcmc sample --model {} --schema SCHEMA.json --data DATA.csv [--prior ...]"
      "{}\n",
      to_string(family),
      family == GlmFamily::linear || family == GlmFamily::normal ? " [--sigma S]" : "");
  fmt::print("  samplers with defaults derived from the schema's bounds: {}\n",
             fmt::join(samplers, ", "));
  fmt::print(
      "  (the penalty entries serve their -gwmh and -shared variants too; docs/user-guide.md)\n");
}

}  // namespace

void add_models_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("models", "List the built-in model presets and their defaults");
  auto name = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  cmd->add_option("name", *name, "Show one preset or regression family in full");
  cmd->add_flag("--json", *json, "Machine-readable output");
  cmd->callback([name, json] {
    const auto& families = glm_family_names();
    if (!name->empty() && std::find(families.begin(), families.end(), *name) != families.end()) {
      print_family(parse_glm_family(*name), *json);
      return;
    }
    if (!name->empty()) {
      const Preset& p = find_preset(*name);
      if (*json) {
        fmt::print("{}\n", preset_json(p).dump(2));
      } else {
        print_preset(p);
      }
      return;
    }
    if (*json) {
      nlohmann::json all = nlohmann::json::array();
      for (const auto& p : presets()) all.push_back(preset_json(p));
      fmt::print("{}\n", all.dump(2));
      return;
    }
    fmt::print("{:<22} {:>3} {:>8}  {}\n", "preset", "d", "n", "description");
    for (const auto& p : presets()) {
      fmt::print("{:<22} {:>3} {:>8}  {}\n", p.name, p.dim, p.n, p.description);
    }
    fmt::print("\n`dpmcmc models NAME` shows a preset's sampler defaults and their sources.\n");
    fmt::print(
        "\nRegression families on your own CSV (--model FAMILY --schema FILE --data FILE):\n");
    for (const auto& f : glm_family_names()) {
      fmt::print("{:<22} {}\n", f, glm_family_description(parse_glm_family(f)));
    }
    fmt::print(
        "`dpmcmc models FAMILY` lists its samplers; docs/user-guide.md, \"Your data, your model\", "
        "the schema.\n");
  });
}

void add_samplers_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "samplers", "List the samplers: what each is, its hyperparameters and its defaults' entry");
  auto markdown = std::make_shared<bool>(false);
  cmd->add_flag("--markdown", *markdown, "Print the table as Markdown (docs/samplers.md)");
  cmd->callback([markdown] {
    fmt::print("{}", sampler_table(*markdown));
    if (!*markdown)
      fmt::print(
          "\nDefaults come from the preset's entry (`dpmcmc models NAME`); private samplers "
          "need --epsilon.\n");
  });
}

}  // namespace dpmcmc::cli
