#include "run/ledger_entry.hpp"

#include <fmt/format.h>

#include <cmath>
#include <tuple>

#include "core/error.hpp"
#include "data/atomic_file.hpp"
#include "data/canonical_rows.hpp"
#include "data/file_bytes.hpp"
#include "ledger/ledger.hpp"
#include "models/presets.hpp"
#include "privacy/planner.hpp"

namespace dpmcmc {
namespace {

// The name the caller's rows go by; nullopt for a preset's public data or a library caller's
// custom model (no records to identify).
std::optional<std::string> callers_records(const SampleSpec& spec) {
  if (spec.user_model) return spec.user_model->data_file.string();
  if (spec.data_file) return spec.data_file->string();
  return std::nullopt;
}

// The identity of the caller's rows: read and hashed only once a ledger is to be consulted
// (hashing reads the file again; issue 28 found it costly on large data).
CanonicalRows callers_hash(const SampleSpec& spec) {
  if (spec.user_model && spec.user_model->data_text)
    return canonical_rows_hash(*spec.user_model->data_text, spec.user_model->data_file.string());
  if (spec.user_model) return canonical_file_hash(spec.user_model->data_file);
  // A preset's .npy array is named by the preset's columns, as the run read it.
  return canonical_file_hash(*spec.data_file, find_preset(spec.preset).data_columns());
}

std::filesystem::path reservation_file(const std::filesystem::path& checkpoints) {
  return checkpoints / "ledger.json";
}

std::string command_text(const SampleSpec& spec) {
  std::string text;
  for (const auto& word : spec.command_line) text += (text.empty() ? "" : " ") + word;
  return text.empty() ? std::string("(a library call)") : text;
}

}  // namespace

LedgerEntry LedgerEntry::open(const SampleSpec& spec, const PrivateRunPlan& plan,
                              const std::optional<std::filesystem::path>& checkpoints) {
  LedgerEntry entry;
  entry.ledger_ = spec.ledger.value_or(default_ledger_path());
  entry.json_ = {{"tracked", false}, {"ledger", entry.ledger_.string()}};
  const auto records = callers_records(spec);
  if (!records) {
    entry.json_["note"] =
        spec.custom_model
            ? "a library caller's own model and rows: not tracked across runs (the ledger knows "
              "datasets by their CSV records)"
            : "the run's rows are public (a preset's data): not tracked across runs";
    return entry;
  }
  // A resumed run whose checkpoint names a reservation draws on it, in the ledger it names,
  // whatever --ledger or the environment say now.
  std::optional<nlohmann::json> saved;
  std::error_code ec;
  if (spec.checkpoint && spec.checkpoint->resume && checkpoints &&
      std::filesystem::exists(reservation_file(*checkpoints), ec)) {
    const auto file = reservation_file(*checkpoints);
    saved = nlohmann::json::parse(read_file_bytes(file), nullptr, false);
    if (saved->is_discarded() || !saved->contains("run") || !(*saved)["run"].is_number_integer() ||
        !saved->contains("token") || !(*saved)["token"].is_string() || !saved->contains("ledger") ||
        !(*saved)["ledger"].is_string()) {
      throw DataError(fmt::format("{}: expected {{\"ledger\": PATH, \"run\": ID, \"token\": TEXT}}",
                                  file.string()));
    }
    entry.ledger_ = (*saved)["ledger"].get<std::string>();
    entry.json_["ledger"] = entry.ledger_.string();
  } else if (!spec.ledger && !std::filesystem::exists(entry.ledger_, ec)) {
    entry.json_["note"] = fmt::format(
        "no budget ledger at {}: this dataset's spend is not tracked across runs (`dpmcmc ledger "
        "init` registers it)",
        entry.ledger_.string());
    return entry;
  }
  Ledger ledger(entry.ledger_, false);  // NoInputError (66) when a named ledger is gone
  const CanonicalRows rows = callers_hash(spec);
  const auto dataset = ledger.find_dataset(rows.hash);
  if (!dataset) {
    if (saved) {
      throw ConfigError(fmt::format(
          "ledger {}: the checkpoint's reservation is for a dataset this ledger does not hold",
          entry.ledger_.string()));
    }
    entry.json_["note"] = fmt::format(
        "dataset not registered in the budget ledger {}: its spend is not tracked across runs "
        "(`dpmcmc ledger init --data {}` registers it)",
        entry.ledger_.string(), *records);
    return entry;
  }
  entry.json_["dataset"] = {{"hash", rows.hash}, {"label", dataset->label}};
  if (saved) {
    entry.run_id_ = (*saved)["run"].get<std::int64_t>();
    entry.token_ = (*saved)["token"].get<std::string>();
    ledger.resume(entry.run_id_, entry.token_, rows.hash);
    entry.json_["note"] = "resumed on its reservation";
  } else {
    Reservation r;
    r.sampler = spec.sampler;
    r.command = command_text(spec);
    r.budget = plan.budget;
    r.discretisation_tv = plan.discretisation_delta / (1.0 + std::exp(plan.budget.epsilon));
    r.events = repeat_iterations(plan.per_iteration, plan.scheduled);
    std::tie(entry.run_id_, entry.token_) = ledger.reserve(rows.hash, r);
    entry.reserved_now_ = true;
    entry.json_["note"] = "reserved its planned releases before the first";
  }
  entry.json_["tracked"] = true;
  entry.json_["run"] = entry.run_id_;
  const CrossRunSpend spent = ledger.spent(*dataset);
  entry.json_["spent_with_reservations"] = {
      {"epsilon", spent.epsilon},
      {"composition", to_string(spent.rule)},
      {"budget", {{"epsilon", dataset->budget.epsilon}, {"delta", dataset->budget.delta}}}};
  return entry;
}

void LedgerEntry::save_reservation(const std::filesystem::path& checkpoints) const {
  if (!reserved_now_) return;
  write_file_atomic(reservation_file(checkpoints),
                    nlohmann::json{{"ledger", std::filesystem::absolute(ledger_).string()},
                                   {"run", run_id_},
                                   {"token", token_}}
                            .dump() +
                        "\n");
}

void LedgerEntry::settle(bool complete, bool resumable, const EventLog& recorded) {
  if (!tracked()) return;
  const LedgerRunStatus status = complete    ? LedgerRunStatus::completed
                                 : resumable ? LedgerRunStatus::resumable
                                             : LedgerRunStatus::stopped;
  // The chains have run and their outputs are written: a ledger that cannot be updated now (locked
  // past the timeout, removed) leaves the reservation counted in full, which is safe, and the
  // run's outputs stand. The curator is told.
  try {
    Ledger ledger(ledger_, false);
    const auto events = recorded.events();
    ledger.settle(run_id_, token_, status, {events.begin(), events.end()});
    json_["status"] = to_string(status);
  } catch (const Error& e) {
    json_["status"] = "running";
    json_["note"] = fmt::format(
        "the releases were made, but the ledger could not be updated after them, so the "
        "reservation stays counted in full ({})",
        e.code() == ExitCode::temp_fail ? "locked by another process" : e.what());
  }
}

}  // namespace dpmcmc
