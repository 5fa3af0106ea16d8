// The persistent privacy-budget ledger (issue #30; docs/user-guide.md, "Budget across runs"):
// a SQLite file that registers private datasets by a canonical hash of their records
// (data/canonical_rows.hpp) with a total budget (ε, δ), and every private run on them. A run
// reserves its planned events in one BEGIN IMMEDIATE transaction before its first release and is
// refused (BudgetRefusal, 77) when the composition of every earlier run's spend and its plan
// (ledger/cross_run_spend.hpp) exceeds the dataset's budget; two processes can never both pass
// the check on the same state. A run counts its whole reservation until it settles: a run killed
// mid-way never settles, so what it may have released stays spent. A run that ends (completed,
// or stopped for good) settles to what it recorded; one stopped with a checkpoint stays reserved
// for its resumption, which draws on the same reservation.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ledger/cross_run_spend.hpp"
#include "ledger/sqlite_db.hpp"
#include "privacy/budget.hpp"
#include "privacy/privacy_event.hpp"

namespace dpmcmc {

// $DPMCMC_LEDGER, else $XDG_DATA_HOME/dpmcmc/ledger.sqlite, else
// $HOME/.local/share/dpmcmc/ledger.sqlite.
std::filesystem::path default_ledger_path();

struct LedgerDataset {
  std::string hash;  // canonical_rows_hash of its records
  std::string label;
  std::uint64_t rows = 0;
  std::uint64_t columns = 0;
  Budget budget;
  // How the runs' spends add up (ledger/cross_run_spend.hpp), fixed at registration.
  CompositionRule rule = CompositionRule::gaussian;
  std::string registered;  // UTC, ISO 8601
};

enum class LedgerRunStatus {
  running,    // reserved; counts its reservation (a killed run stays here)
  resumable,  // stopped with a checkpoint; counts its reservation until resumed and settled
  completed,  // counts what it recorded
  stopped,    // stopped without a checkpoint (cannot continue); counts what it recorded
};
const char* to_string(LedgerRunStatus status);

struct LedgerRun {
  std::int64_t id = 0;
  std::string token;  // a random capability: only the run holding it resumes or settles it
  std::string dataset;
  std::string sampler;
  std::string command;
  std::int64_t pid = 0;
  LedgerRunStatus status = LedgerRunStatus::running;
  Budget budget;  // the run's own
  double discretisation_tv = 0.0;
  std::vector<PrivacyEvent> reserved;
  std::vector<PrivacyEvent> recorded;  // empty until settled
  std::string started, updated;
  // What the ledger counts for the run: its reservation until it settles, then what it recorded.
  bool settled() const {
    return status == LedgerRunStatus::completed || status == LedgerRunStatus::stopped;
  }
  const std::vector<PrivacyEvent>& counted() const { return settled() ? recorded : reserved; }
};

struct Reservation {
  std::string sampler;
  std::string command;
  Budget budget;                     // the run's own (ε, δ)
  double discretisation_tv = 0.0;    // K·η of its scheduled float-safe noise
  std::vector<PrivacyEvent> events;  // every release the plan schedules
};

class Ledger {
 public:
  // Busy timeout of every operation: $DPMCMC_LEDGER_BUSY_TIMEOUT seconds, default 60.
  static int busy_timeout_ms();

  // Opens the ledger at `path`; with `create`, creates it (mode 0600) when missing. NoInputError
  // when it is missing and not to be created; DataError when the file is not a dpmcmc ledger.
  Ledger(const std::filesystem::path& path, bool create);

  const std::filesystem::path& path() const { return db_.path(); }

  // ConfigError when the hash is registered already (naming its label and budget).
  void register_dataset(const LedgerDataset& dataset);
  std::optional<LedgerDataset> find_dataset(const std::string& hash);
  std::vector<LedgerDataset> datasets();
  std::vector<LedgerRun> runs(const std::string& hash);
  // What the dataset's runs count together now.
  CrossRunSpend spent(const LedgerDataset& dataset);

  // Reserves the run on the dataset, or refuses it (BudgetRefusal naming the budget, the earlier
  // spend and the plan; ConfigError when the dataset's rule cannot admit its releases) — one
  // transaction, so no other process changes the state in between. Returns the run's id and
  // token.
  std::pair<std::int64_t, std::string> reserve(const std::string& hash,
                                               const Reservation& reservation);
  // A resumed run takes back its reservation: ConfigError unless run `id` with `token` is on
  // `hash` and was stopped with a checkpoint (or is running in a process that no longer exists).
  void resume(std::int64_t id, const std::string& token, const std::string& hash);
  // Ends the running run `id` (with `token`) with `status` and what it recorded (resumable keeps
  // counting the reservation). ConfigError when no such running run is in this ledger.
  void settle(std::int64_t id, const std::string& token, LedgerRunStatus status,
              const std::vector<PrivacyEvent>& recorded);

  // Every dataset (or the one with `hash`) with its runs and spend, for `ledger show/export`.
  nlohmann::json to_json(const std::optional<std::string>& hash = std::nullopt);

 private:
  SqliteDb db_;
};

// Whether process `pid` exists on this machine (a run that is `running` in a dead process was
// killed: its reservation stays spent).
bool process_alive(std::int64_t pid);

}  // namespace dpmcmc
