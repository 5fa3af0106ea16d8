// `dpmcmc ledger`: the persistent privacy-budget ledger (ledger/ledger.hpp, issue #30).
//   ledger init --data FILE --epsilon E --delta D [--label TEXT]  registers a dataset's budget
//   ledger show [--data FILE] [--json]                              its runs and what is left
//   ledger export                                                   everything as JSON
// Each takes --ledger PATH (default: ledger/ledger.hpp's default_ledger_path()). A dataset is
// identified by the canonical hash of its records (data/canonical_rows.hpp), so the same rows
// shuffled or rewritten are the same dataset.
#include <fmt/format.h>

#include <cmath>
#include <memory>

#include "cli/commands.hpp"
#include "cli/in_process.hpp"
#include "core/error.hpp"
#include "data/canonical_rows.hpp"
#include "data/file_bytes.hpp"
#include "ledger/cross_run_spend.hpp"
#include "ledger/ledger.hpp"
#include "models/presets.hpp"
#include "privacy/budget.hpp"

namespace dpmcmc::cli {
namespace {

struct LedgerArgs {
  std::string action;  // init, show or export
  std::string ledger, data, label, composition = "gaussian", model;
  std::optional<double> epsilon, delta;
  bool json = false;
  // In-process callers (the Python module): the CSV text standing in for --data, and where the
  // JSON answer goes instead of stdout.
  const std::string* data_text = nullptr;
  nlohmann::json* result = nullptr;
};

std::filesystem::path ledger_path(const LedgerArgs& a) {
  return a.ledger.empty() ? default_ledger_path() : std::filesystem::path(a.ledger);
}

CanonicalRows records_of(const LedgerArgs& a) {
  if (a.data.empty() && a.data_text == nullptr) {
    throw UsageError(fmt::format("ledger {}: --data: expected the dataset's CSV file", a.action));
  }
  if (a.data_text != nullptr)
    return canonical_rows_hash(*a.data_text, a.data.empty() ? std::string("data") : a.data);
  return canonical_file_hash(
      a.data, a.model.empty() ? std::vector<std::string>{} : find_preset(a.model).data_columns());
}

std::string number(const nlohmann::json& x) {
  return x.is_number() ? fmt::format("{:.6g}", x.get<double>()) : std::string("inf");
}

void print_dataset(const nlohmann::json& d) {
  fmt::print("dataset '{}' ({}), {} rows x {} columns, registered {}\n",
             d["label"].get<std::string>(), d["hash"].get<std::string>().substr(0, 16),
             d["rows"].get<std::uint64_t>(), d["columns"].get<std::uint64_t>(),
             d["registered"].get<std::string>());
  const auto& b = d["budget"];
  const auto& s = d["spent"];
  fmt::print("  budget across runs: epsilon = {}, delta = {} ({} composition)\n",
             number(b["epsilon"]), number(b["delta"]), d["composition"].get<std::string>());
  if (s.contains("error")) {
    fmt::print("  spent: {}\n", s["error"].get<std::string>());
  } else if (d["runs"].empty()) {
    fmt::print("  spent: nothing yet\n");
  } else if (d["composition"] == "gaussian") {
    fmt::print(
        "  spent: epsilon = {} at delta {}, all runs' Gaussian releases composed (Gaussian DP); "
        "the runs' own epsilons add to {} (delta {})\n",
        number(s["epsilon"]), number(s["delta"]), number(s["sum_of_run_epsilons"]),
        number(s["sum_of_run_deltas"]));
  } else {
    fmt::print("  spent: epsilon = {}, delta = {}: the runs' own certificates added (basic)\n",
               number(s["sum_of_run_epsilons"]), number(s["sum_of_run_deltas"]));
  }
  for (const auto& r : d["runs"]) {
    fmt::print("  run {:>3}  {:<9}  {:<22} epsilon {:<6} delta {:<8} counts its {:<11} {}\n",
               r["id"].get<std::int64_t>(), r["status"].get<std::string>(),
               r["sampler"].get<std::string>(), number(r["budget"]["epsilon"]),
               number(r["budget"]["delta"]), r["counted"].get<std::string>(),
               r["started"].get<std::string>());
    fmt::print("           {}\n", r["command"].get<std::string>());
    if (r.contains("note")) fmt::print("           NOTE: {}\n", r["note"].get<std::string>());
  }
}

void run_ledger(LedgerArgs& a) {
  const auto path = ledger_path(a);
  if (a.action == "init") {
    if (!a.epsilon) throw UsageError("ledger init: --epsilon: expected the total budget's ε");
    if (!a.delta) throw UsageError("ledger init: --delta: expected the total budget's δ");
    check_epsilon_option(*a.epsilon, "--epsilon");
    check_delta_option(*a.delta, "--delta");
    const CanonicalRows rows = records_of(a);
    if (rows.rows == 0) {
      // `sample` refuses a file without rows; a budget registered for one would never be used.
      throw DataError(fmt::format("{}: no data rows (a header only): nothing to register",
                                  a.data.empty() ? std::string("data") : a.data));
    }
    LedgerDataset d;
    d.hash = rows.hash;
    d.label = a.label.empty() ? std::filesystem::path(a.data).filename().string() : a.label;
    d.rows = rows.rows;
    d.columns = rows.columns;
    d.budget = {*a.epsilon, *a.delta};
    d.rule = parse_composition_rule(a.composition, "--composition");
    Ledger ledger(path, true);
    ledger.register_dataset(d);
    const auto answer = ledger.to_json(d.hash);
    if (a.result != nullptr) {
      *a.result = answer;
    } else {
      fmt::print("registered in ledger {}:\n", path.string());
      print_dataset(answer["datasets"][0]);
    }
    return;
  }
  Ledger ledger(path, false);
  std::optional<std::string> hash;
  if (a.action == "show" && (!a.data.empty() || a.data_text != nullptr)) {
    hash = records_of(a).hash;
  }
  const auto answer = ledger.to_json(hash);
  if (hash && answer["datasets"].empty()) {
    throw ConfigError(fmt::format("ledger {}: {} is not registered (`dpmcmc ledger init`)",
                                  path.string(), a.data.empty() ? "the data" : a.data));
  }
  if (a.result != nullptr) {
    *a.result = answer;
  } else if (a.json || a.action == "export") {
    fmt::print("{}\n", answer.dump(2));
  } else {
    fmt::print("ledger: {}\n", path.string());
    if (answer["datasets"].empty()) fmt::print("no dataset registered\n");
    for (const auto& d : answer["datasets"]) print_dataset(d);
  }
}

// An option the action would ignore is refused instead.
void refuse_unused_options(const CLI::App& cmd, const std::string& action) {
  const auto refuse = [&](const char* option, const char* why) {
    if (cmd.count(option) > 0)
      throw UsageError(fmt::format("ledger {}: {} {}", action, option, why));
  };
  if (action != "init") {
    for (const char* option : {"--epsilon", "--delta", "--label", "--composition"})
      refuse(option, "applies to init only (a dataset's budget is set once)");
  }
  if (action == "export") refuse("--data", "does not apply: export writes every dataset");
  if (action == "export") refuse("--model", "does not apply: export writes every dataset");
  if (action != "show") refuse("--json", "applies to show only (export always writes JSON)");
}

void add_ledger_options(CLI::App* cmd, LedgerArgs* a) {
  cmd->description(
      "The persistent privacy-budget ledger: register a private dataset with its total budget "
      "(init); every private `sample` on it then reserves its planned releases before the first "
      "and is refused when the composition of all runs would exceed the budget; show lists the "
      "runs and the spend, export gives all of it as JSON");
  cmd->add_option("ACTION", a->action, "init, show or export")
      ->required()
      ->check(CLI::IsMember({"init", "show", "export"}));
  cmd->add_option("--ledger", a->ledger,
                  "The ledger file (created by init, mode 0600; default: $DPMCMC_LEDGER, else "
                  "$XDG_DATA_HOME/dpmcmc/ledger.sqlite, else ~/.local/share/dpmcmc/ledger.sqlite)")
      ->type_name("PATH");
  cmd->add_option("--data", a->data,
                  "init: the private dataset's CSV or .npy file; show: only this dataset. It is "
                  "known by a hash of its records in canonical order, so shuffled rows, reordered "
                  "columns or numbers written differently are the same dataset (a .npy array's "
                  "columns are named by --model's data columns)")
      ->type_name("FILE");
  cmd->add_option("--model", a->model,
                  "With a .npy --data: the preset whose data columns name the array's columns "
                  "(as `sample --model PRESET --data FILE.npy` reads it)")
      ->type_name("PRESET");
  cmd->add_option("--epsilon", a->epsilon, "init: the total ε of every run on the dataset");
  cmd->add_option("--delta", a->delta, "init: the total δ of every run on the dataset");
  cmd->add_option("--label", a->label, "init: a name for the dataset (default: the file's name)");
  cmd->add_option("--composition", a->composition,
                  "init: how the runs' spends add up, fixed for the dataset: gaussian (default: "
                  "all runs' releases composed exactly as Gaussian DP, which admits only plain "
                  "Gaussian releases: dp-penalty and its variants, dp-hmc, dp-penalty-expfam, "
                  "dp-nss) or basic (any sampler; each run's own epsilon and delta added)")
      ->check(CLI::IsMember({"gaussian", "basic"}));
  cmd->add_flag("--json", a->json, "show: JSON instead of text (export always writes JSON)");
}

}  // namespace

void add_ledger_command(CLI::App& app) {
  auto a = std::make_shared<LedgerArgs>();
  auto* cmd = app.add_subcommand("ledger");
  add_ledger_options(cmd, a.get());
  cmd->callback([a, cmd] {
    refuse_unused_options(*cmd, a->action);
    run_ledger(*a);
  });
}

nlohmann::json ledger_in_process(const std::vector<std::string>& args,
                                 const std::optional<std::string>& data_text) {
  LedgerArgs a;
  CLI::App app;
  add_ledger_options(app.add_subcommand("ledger"), &a);
  const auto lock = parse_in_process(app, "ledger", args);
  refuse_unused_options(*app.get_subcommand("ledger"), a.action);
  nlohmann::json answer;
  a.result = &answer;
  if (data_text) a.data_text = &*data_text;
  run_ledger(a);
  return answer;
}

}  // namespace dpmcmc::cli
