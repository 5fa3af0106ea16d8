// `dpmcmc experiment SPEC`: run an experiment spec (docs/experiments.md) cell by cell into
// OUT/results.csv, in parallel, resuming a previous run in the same OUT.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "experiment/experiment_runner.hpp"
#include "experiment/experiment_spec.hpp"

namespace dpmcmc::cli {
namespace {

using nlohmann::json;

struct ExperimentArgs {
  std::string spec, out, profile = "full";
  int threads = 0;
  std::vector<std::string> cells;  // key patterns; empty: every cell
  bool no_draw_files = false;
};

// Keys that are lists even when the TOML array has one element (CLI11 flattens arrays into
// strings, so [2] and 2 read the same).
bool list_key(const std::vector<std::string>& parents, const std::string& name) {
  if (parents.empty())
    return name == "models" || name == "samplers" || name == "epsilons" || name == "metrics" ||
           name == "accountants";
  if (parents.size() == 2 && parents[0] == "profiles") return list_key({}, name);
  // params.LABEL.models, also inside a profile (profiles.P.params.LABEL.models).
  if (parents.size() >= 2 && parents[parents.size() - 2] == "params") return name == "models";
  if (parents.back() == "sweep") return name == "values" || name == "samplers";
  return parents.back() == "init" && (name == "centre" || name == "point");
}

json scalar(const std::string& text) {
  // Numbers and booleans as such; everything else (names, "0.1/n") as a string.
  try {
    json v = json::parse(text);
    if (v.is_number() || v.is_boolean()) return v;
  } catch (const json::parse_error&) {
  }
  return text;
}

// The TOML spec as the JSON document the loader validates (CLI11's TOML reader, as for
// `--config`; sections [a.b] become nested objects).
json toml_document(const std::string& text, const std::string& file) {
  std::istringstream in(text);
  std::vector<CLI::ConfigItem> items;
  try {
    items = CLI::ConfigTOML().from_config(in);
  } catch (const CLI::Error& e) {
    throw ConfigError(fmt::format("{}: invalid TOML: {}", file, e.what()));
  }
  json doc = json::object();
  for (const auto& item : items) {
    if (item.name == "++" || item.name == "--") continue;  // CLI11's section markers
    json* node = &doc;
    for (const auto& p : item.parents) {
      if (!node->contains(p)) (*node)[p] = json::object();
      node = &(*node)[p];
      if (!node->is_object())
        throw ConfigError(fmt::format("{}: key '{}' is both a value and a section", file, p));
    }
    if (item.inputs.size() == 1 && !list_key(item.parents, item.name)) {
      (*node)[item.name] = scalar(item.inputs.front());
    } else {
      json list = json::array();
      for (const auto& v : item.inputs) list.push_back(scalar(v));
      (*node)[item.name] = list;
    }
  }
  return doc;
}

ExperimentSpec load_spec(const std::string& file, const std::string& profile) {
  std::ifstream in(file);
  if (!in) throw NoInputError(fmt::format("{}: no such experiment spec (or not readable)", file));
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{') return load_experiment_spec(file, profile);
  return parse_experiment_spec(toml_document(text, file), file, profile);
}

// A cell's number for the progress line (4 significant digits).
std::string short_number(const std::string& text) {
  try {
    return fmt::format("{:.4g}", std::stod(text));
  } catch (const std::exception&) {
    return text;  // NA
  }
}

std::string row_note(const ResultRow& r) {
  if (r.text("status") != "completed") return "error: " + r.text("message");
  if (r.text("kind") == "account")
    return fmt::format("{} iterations ({})", r.text("iterations_total"), r.text("accountant"));
  if (r.text("kind") == "audit")
    return fmt::format("epsilon_lb {} of certified {} ({})", short_number(r.text("epsilon_lb")),
                       short_number(r.text("certified_epsilon")),
                       r.text("message").substr(0, r.text("message").find(':')));
  const std::string metric = r.text("mmd") != "NA"
                                 ? "mmd " + short_number(r.text("mmd"))
                                 : "mean error " + short_number(r.text("mean_error"));
  return fmt::format("{}, {} iterations, acceptance {}", metric, r.text("iterations_total"),
                     short_number(r.text("acceptance_rate")));
}

}  // namespace

// Defined in report_command.cpp; both commands are registered by add_experiment_commands.
void add_report_command(CLI::App& app);

namespace {

void add_experiment_command(CLI::App& app) {
  auto a = std::make_shared<ExperimentArgs>();
  auto* cmd = app.add_subcommand(
      "experiment",
      "Run an experiment spec (models x samplers [x sweep values] x epsilon x repeats) into a CSV");
  cmd->add_option("SPEC", a->spec, "Experiment spec, JSON or TOML (see experiments/)")->required();
  cmd->add_option("--out", a->out,
                  "Output directory (default: out/experiments/NAME-PROFILE); an existing "
                  "results.csv there is resumed. One process at a time: a second run on the "
                  "same directory is refused (exit 75); split a grid with --cells into "
                  "separate directories");
  cmd->add_option("--threads", a->threads, "Cells run at once (0: all cores)")
      ->capture_default_str();
  cmd->add_option("--profile", a->profile, "quick or full (the spec's profiles)")
      ->capture_default_str();
  cmd->add_option("--cells", a->cells,
                  "Run only the cells whose key KIND/MODEL/LABEL/EPS/REPEAT matches this shell "
                  "pattern (repeat the option for several), e.g. 'sample/banana-*/*/*/[1-3]': a "
                  "staged run of a long profile; the same command without --cells later adds "
                  "the other cells")
      ->type_name("PATTERN")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_flag("--no-draw-files", a->no_draw_files,
                "Write no chain CSVs into OUT/cells (each cell keeps its report.json); the "
                "results are the same, computed from the draws in memory. A long "
                "stochastic-gradient cell otherwise writes gigabytes of draws");
  cmd->footer(
      "Output: OUT/results.csv (one row per cell), OUT/spec.json, OUT/cells/... (each job's draws "
      "unless --no-draw-files, and its report). Then: dpmcmc report OUT/results.csv");
  cmd->callback([a] {
    if (a->threads < 0)
      throw UsageError(fmt::format("--threads: expected ≥ 0, got {}", a->threads));
    if (a->profile != "quick" && a->profile != "full")
      throw UsageError(fmt::format("--profile: expected quick or full, got '{}'", a->profile));
    const ExperimentSpec spec = load_spec(a->spec, a->profile);
    ExperimentOptions options;
    options.out_dir = a->out.empty() ? std::filesystem::path("out") / "experiments" /
                                           (spec.name + "-" + spec.profile)
                                     : std::filesystem::path(a->out);
    options.threads = a->threads;
    options.cell_patterns = a->cells;
    options.draw_files = !a->no_draw_files;
    options.on_cell = [](const ExperimentCell& cell, const std::vector<ResultRow>& rows,
                         std::size_t done, std::size_t todo) {
      std::string note = rows.empty() ? std::string("no rows") : row_note(rows.front());
      if (rows.size() > 1) note += fmt::format(" (+{} rows)", rows.size() - 1);
      fmt::print("[{}/{}] {}: {}, {} s\n", done, todo, cell.key, note,
                 rows.empty() ? "NA" : short_number(rows.front().text("wall_seconds")));
      std::fflush(stdout);
    };
    fmt::print("dpmcmc experiment {} (profile {}): output {}\n", spec.name, spec.profile,
               options.out_dir.string());
    std::fflush(stdout);
    const ExperimentOutcome out = run_experiment(spec, options);
    if (out.dropped_partial_row)
      fmt::print(
          "note: the results file ended in an incomplete row (an interrupted write); it "
          "was dropped and its cell run again\n");
    if (out.outside_grid > 0)
      fmt::print(
          "note: {} {} of {} outside this grid (e.g. cell {}) but computed with its settings "
          "are kept at the end of the file; `dpmcmc report` includes them\n",
          out.outside_grid, out.outside_grid == 1 ? "row" : "rows", out.results_file.string(),
          out.outside_example);
    const std::string selected =
        a->cells.empty() ? "" : fmt::format(" ({} selected by --cells)", out.selected);
    fmt::print("{} cells{}: {} already done, {} run now ({} failed), {:.1f} s\nresults: {}\n",
               out.cells, selected, out.skipped, out.ran, out.errors, out.wall_seconds,
               out.results_file.string());
    if (!out.noise_key.empty()) fmt::print("noise key of the private cells: {}\n", out.noise_key);
    if (out.interrupted) {
      fmt::print("INTERRUPTED: rerun the same command to compute the missing cells\n");
      throw InterruptedRun();
    }
    if (!out.complete)
      fmt::print("{} of {} cells have rows; rerun without --cells to add the others\n",
                 out.with_rows, out.cells);
    fmt::print("next: dpmcmc report {}\n", out.results_file.string());
  });
}

}  // namespace

void add_experiment_commands(CLI::App& app) {
  add_experiment_command(app);
  add_report_command(app);
}

}  // namespace dpmcmc::cli
