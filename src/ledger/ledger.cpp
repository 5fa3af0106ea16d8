#include "ledger/ledger.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <signal.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <ctime>

#include "core/error.hpp"
#include "privacy/event_json.hpp"
#include "privacy/event_names.hpp"

namespace dpmcmc {
namespace {

constexpr const char* kFormat = "dpmcmc-ledger-1";

const char* const kSchema = R"sql(
CREATE TABLE IF NOT EXISTS ledger_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT OR IGNORE INTO ledger_meta VALUES('format', 'dpmcmc-ledger-1');
CREATE TABLE IF NOT EXISTS datasets(
  hash TEXT PRIMARY KEY, label TEXT NOT NULL, rows INTEGER NOT NULL, columns INTEGER NOT NULL,
  epsilon REAL NOT NULL, delta REAL NOT NULL, composition TEXT NOT NULL, registered TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs(
  id INTEGER PRIMARY KEY AUTOINCREMENT, token TEXT NOT NULL,
  dataset TEXT NOT NULL REFERENCES datasets(hash),
  sampler TEXT NOT NULL, command TEXT NOT NULL, pid INTEGER NOT NULL, status TEXT NOT NULL,
  epsilon REAL NOT NULL, delta REAL NOT NULL, discretisation_tv REAL NOT NULL,
  reserved TEXT NOT NULL, recorded TEXT, started TEXT NOT NULL, updated TEXT NOT NULL);
)sql";

std::string now_utc() {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::time(nullptr)));
}

LedgerRunStatus parse_status(const std::string& text, const std::filesystem::path& path) {
  for (auto s : {LedgerRunStatus::running, LedgerRunStatus::resumable, LedgerRunStatus::completed,
                 LedgerRunStatus::stopped}) {
    if (text == to_string(s)) return s;
  }
  throw DataError(
      fmt::format("ledger {}: unknown run status '{}' (corrupt?)", path.string(), text));
}

std::vector<PrivacyEvent> events_of(const std::string& text, const std::string& where) {
  if (text.empty()) return {};
  try {
    return events_from_json(nlohmann::json::parse(text), where);
  } catch (const nlohmann::json::exception& e) {
    throw DataError(fmt::format("{}: not JSON ({}; corrupt?)", where, e.what()));
  }
}

// 128 random bits in hex (libsodium): a run's token.
std::string random_token() {
  if (sodium_init() < 0) throw SoftwareError("libsodium failed to initialise");
  unsigned char bytes[16];
  randombytes_buf(bytes, sizeof bytes);
  char hex[2 * sizeof bytes + 1];
  sodium_bin2hex(hex, sizeof hex, bytes, sizeof bytes);
  return hex;
}

std::vector<RunSpend> spends_of(const std::vector<LedgerRun>& runs) {
  std::vector<RunSpend> out;
  for (const LedgerRun& r : runs) out.push_back({r.counted(), r.discretisation_tv, r.budget});
  return out;
}

std::string short_hash(const std::string& hash) {
  return hash.substr(0, 12);
}

}  // namespace

const char* to_string(LedgerRunStatus status) {
  switch (status) {
    case LedgerRunStatus::running:
      return "running";
    case LedgerRunStatus::resumable:
      return "resumable";
    case LedgerRunStatus::completed:
      return "completed";
    case LedgerRunStatus::stopped:
      return "stopped";
  }
  return "?";
}

std::filesystem::path default_ledger_path() {
  if (const char* p = std::getenv("DPMCMC_LEDGER"); p != nullptr && *p != '\0') return p;
  if (const char* p = std::getenv("XDG_DATA_HOME"); p != nullptr && *p != '\0') {
    return std::filesystem::path(p) / "dpmcmc" / "ledger.sqlite";
  }
  const char* home = std::getenv("HOME");
  return std::filesystem::path(home != nullptr ? home : ".") / ".local" / "share" / "dpmcmc" /
         "ledger.sqlite";
}

bool process_alive(std::int64_t pid) {
  if (pid <= 0) return false;
  return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

int Ledger::busy_timeout_ms() {
  if (const char* p = std::getenv("DPMCMC_LEDGER_BUSY_TIMEOUT"); p != nullptr && *p != '\0') {
    char* end = nullptr;
    const double seconds = std::strtod(p, &end);
    if (end == p || *end != '\0' || !(seconds >= 0.0) || seconds > 86400.0) {
      throw UsageError(
          fmt::format("DPMCMC_LEDGER_BUSY_TIMEOUT: expected seconds in [0, 86400], got '{}'", p));
    }
    return static_cast<int>(seconds * 1000.0);
  }
  return 60'000;
}

Ledger::Ledger(const std::filesystem::path& path, bool create)
    : db_(path, create, busy_timeout_ms()) {
  if (create) {
    // Only an empty file gets the tables: another program's database is refused below.
    SqliteTransaction t(db_);
    bool empty = false;
    {
      SqliteStatement tables(db_, "SELECT count(*) FROM sqlite_master");
      tables.step();
      empty = tables.integer(0) == 0;
    }  // finalised before the schema is written
    if (empty) db_.exec(kSchema);
    t.commit();
    // A ledger restored or touched with wider permissions is narrowed by `init`.
    ::chmod(path.c_str(), 0600);
  }
  // A SQLite file of something else, or a ledger of another format, is refused before use.
  std::string format;
  try {
    SqliteStatement q(db_, "SELECT value FROM ledger_meta WHERE key = 'format'");
    if (q.step()) format = q.text(0);
  } catch (const SoftwareError&) {  // no ledger_meta table: another program's database
    format.clear();
  }
  if (format != kFormat) {
    throw DataError(fmt::format("ledger {}: not a dpmcmc ledger (expected format '{}'{})",
                                path.string(), kFormat,
                                format.empty() ? "" : fmt::format(", found '{}'", format)));
  }
}

void Ledger::register_dataset(const LedgerDataset& d) {
  validate_budget(d.budget, "ledger init");
  SqliteTransaction t(db_);
  if (auto old = find_dataset(d.hash)) {
    throw ConfigError(fmt::format(
        "ledger {}: this dataset is registered already as '{}' (budget ε = {}, δ = {}, since "
        "{}); a budget is set once — `dpmcmc ledger show` lists its runs",
        path().string(), old->label, old->budget.epsilon, old->budget.delta, old->registered));
  }
  SqliteStatement q(db_,
                    "INSERT INTO datasets(hash, label, rows, columns, epsilon, delta, composition, "
                    "registered) VALUES(?, ?, ?, ?, ?, ?, ?, ?)");
  q.bind(1, d.hash)
      .bind(2, d.label)
      .bind(3, static_cast<std::int64_t>(d.rows))
      .bind(4, static_cast<std::int64_t>(d.columns))
      .bind(5, d.budget.epsilon)
      .bind(6, d.budget.delta)
      .bind(7, std::string(to_string(d.rule)))
      .bind(8, d.registered.empty() ? now_utc() : d.registered);
  q.step();
  t.commit();
}

std::vector<LedgerDataset> Ledger::datasets() {
  SqliteStatement q(db_,
                    "SELECT hash, label, rows, columns, epsilon, delta, composition, registered "
                    "FROM datasets ORDER BY registered, hash");
  std::vector<LedgerDataset> out;
  while (q.step()) {
    CompositionRule rule = CompositionRule::gaussian;
    try {
      rule = parse_composition_rule(q.text(6), "composition");
    } catch (const UsageError&) {
      throw DataError(fmt::format("ledger {}: unknown composition rule '{}' (corrupt?)",
                                  path().string(), q.text(6)));
    }
    out.push_back({q.text(0), q.text(1), static_cast<std::uint64_t>(q.integer(2)),
                   static_cast<std::uint64_t>(q.integer(3)), Budget{q.real(4), q.real(5)}, rule,
                   q.text(7)});
  }
  return out;
}

std::optional<LedgerDataset> Ledger::find_dataset(const std::string& hash) {
  for (auto& d : datasets()) {
    if (d.hash == hash) return d;
  }
  return std::nullopt;
}

std::vector<LedgerRun> Ledger::runs(const std::string& hash) {
  SqliteStatement q(db_,
                    "SELECT id, dataset, sampler, command, pid, status, epsilon, delta, "
                    "discretisation_tv, reserved, recorded, started, updated, token FROM runs "
                    "WHERE dataset = ? ORDER BY id");
  q.bind(1, hash);
  std::vector<LedgerRun> out;
  while (q.step()) {
    LedgerRun r;
    r.id = q.integer(0);
    r.dataset = q.text(1);
    r.sampler = q.text(2);
    r.command = q.text(3);
    r.pid = q.integer(4);
    r.status = parse_status(q.text(5), path());
    r.budget = {q.real(6), q.real(7)};
    r.discretisation_tv = q.real(8);
    const std::string where = fmt::format("ledger {}: run {}", path().string(), r.id);
    r.reserved = events_of(q.text(9), where + " reserved");
    r.recorded = events_of(q.text(10), where + " recorded");
    r.started = q.text(11);
    r.updated = q.text(12);
    r.token = q.text(13);
    out.push_back(std::move(r));
  }
  return out;
}

CrossRunSpend Ledger::spent(const LedgerDataset& dataset) {
  const auto spends = spends_of(runs(dataset.hash));
  return compose_runs(spends, dataset.budget, dataset.rule);
}

namespace {

// Why the Gaussian composition has no δ left: the discrete noise's distance from the continuous
// Gaussian is charged to δ as (1 + e^E)·ΣK·η (docs/privacy-accounting.md, section 8), which a
// large dataset ε E blows up.
std::string no_delta_left(const LedgerDataset& dataset, const CrossRunSpend& after) {
  return fmt::format(
      " The Gaussian composition charges the discrete noise's total-variation distance from the "
      "Gaussian to δ times (1 + e^ε), {:.3g} at the dataset's ε = {}, which leaves none of its "
      "δ = {}: register "
      "the dataset with a smaller ε (e^ε grows fast), or with `dpmcmc ledger init --composition "
      "basic` (each run then counts its own ε and δ).",
      dataset.budget.delta - after.delta_accountants, dataset.budget.epsilon, dataset.budget.delta);
}

}  // namespace

std::pair<std::int64_t, std::string> Ledger::reserve(const std::string& hash,
                                                     const Reservation& r) {
  SqliteTransaction t(db_);
  const auto dataset = find_dataset(hash);
  if (!dataset) {
    throw SoftwareError(fmt::format("ledger {}: reserve on an unregistered dataset {}",
                                    path().string(), short_hash(hash)));
  }
  const auto earlier = runs(hash);
  auto spends = spends_of(earlier);
  spends.push_back({r.events, r.discretisation_tv, r.budget});
  const CrossRunSpend after = compose_runs(spends, dataset->budget, dataset->rule);
  if (!after.within) {
    spends.pop_back();
    const CrossRunSpend before = compose_runs(spends, dataset->budget, dataset->rule);
    const bool gaussian = dataset->rule == CompositionRule::gaussian;
    const auto eps = [](double x) {
      return std::isfinite(x) ? fmt::format("{:.6g}", x) : std::string("∞ (no δ left)");
    };
    throw BudgetRefusal(fmt::format(
        "ledger {}: dataset '{}' ({}) has a budget of ε = {}, δ = {} across runs ({} "
        "composition); its {} earlier run(s) spent ε = {}{}, and this run's plan (ε = {}, δ = {}) "
        "would bring it to ε = {}{}.{} The run was refused before any release; `dpmcmc ledger "
        "show --ledger {}` lists the runs",
        path().string(), dataset->label, short_hash(hash), dataset->budget.epsilon,
        dataset->budget.delta, to_string(dataset->rule), earlier.size(), eps(before.epsilon),
        gaussian ? "" : fmt::format(" (δ {:.3g})", before.sum_delta), r.budget.epsilon,
        r.budget.delta, eps(after.epsilon),
        gaussian ? "" : fmt::format(" (δ {:.3g})", after.sum_delta),
        gaussian && !(after.delta_accountants > 0.0) ? no_delta_left(*dataset, after) : "",
        path().string()));
  }
  const std::string now = now_utc();
  SqliteStatement q(db_,
                    "INSERT INTO runs(dataset, sampler, command, pid, status, epsilon, delta, "
                    "discretisation_tv, reserved, recorded, started, updated, token) "
                    "VALUES(?, ?, ?, ?, 'running', ?, ?, ?, ?, NULL, ?, ?, ?)");
  const std::string token = random_token();
  q.bind(1, hash)
      .bind(2, r.sampler)
      .bind(3, r.command)
      .bind(4, static_cast<std::int64_t>(::getpid()))
      .bind(5, r.budget.epsilon)
      .bind(6, r.budget.delta)
      .bind(7, r.discretisation_tv)
      .bind(8, events_to_json(r.events).dump())
      .bind(9, now)
      .bind(10, now)
      .bind(11, token);
  q.step();
  const std::int64_t id = db_.last_insert_id();
  t.commit();
  return {id, token};
}

void Ledger::resume(std::int64_t id, const std::string& token, const std::string& hash) {
  SqliteTransaction t(db_);
  for (const LedgerRun& r : runs(hash)) {
    if (r.id != id || r.token != token) continue;
    const bool dead_running = r.status == LedgerRunStatus::running && !process_alive(r.pid);
    if (r.status != LedgerRunStatus::resumable && !dead_running) {
      throw ConfigError(fmt::format(
          "ledger {}: run {} is {} and cannot be resumed on its reservation", path().string(), id,
          r.status == LedgerRunStatus::running ? "running in another process"
                                               : to_string(r.status)));
    }
    SqliteStatement q(db_, "UPDATE runs SET status = 'running', pid = ?, updated = ? WHERE id = ?");
    q.bind(1, static_cast<std::int64_t>(::getpid())).bind(2, now_utc()).bind(3, id);
    q.step();
    t.commit();
    return;
  }
  throw ConfigError(fmt::format(
      "ledger {}: the checkpoint names run {}, which the ledger does not hold for this dataset",
      path().string(), id));
}

void Ledger::settle(std::int64_t id, const std::string& token, LedgerRunStatus status,
                    const std::vector<PrivacyEvent>& recorded) {
  SqliteStatement q(db_,
                    "UPDATE runs SET status = ?, recorded = ?, updated = ? "
                    "WHERE id = ? AND token = ? AND status = 'running'");
  q.bind(1, std::string(to_string(status)))
      .bind(2, events_to_json(recorded).dump())
      .bind(3, now_utc())
      .bind(4, id)
      .bind(5, token);
  q.step();
  if (db_.changes() != 1) {
    throw ConfigError(fmt::format(
        "ledger {}: run {} is not running in this ledger (removed, re-created or taken over); "
        "its reservation, if any, stays counted",
        path().string(), id));
  }
}

nlohmann::json Ledger::to_json(const std::optional<std::string>& hash) {
  using nlohmann::json;
  auto number = [](double x) { return std::isfinite(x) ? json(x) : json(nullptr); };
  json sets = json::array();
  for (const LedgerDataset& d : datasets()) {
    if (hash && d.hash != *hash) continue;
    const auto rs = runs(d.hash);
    json runs_json = json::array();
    for (const LedgerRun& r : rs) {
      json j = {{"id", r.id},
                {"sampler", r.sampler},
                {"command", r.command},
                {"pid", r.pid},
                {"status", to_string(r.status)},
                {"budget", {{"epsilon", r.budget.epsilon}, {"delta", r.budget.delta}}},
                {"counted", r.settled() ? "recorded" : "reservation"},
                {"discretisation_tv", r.discretisation_tv},
                {"started", r.started},
                {"updated", r.updated},
                {"reserved_events", events_to_json(r.reserved)},
                {"recorded_events", events_to_json(r.recorded)}};
      if (r.status == LedgerRunStatus::running && !process_alive(r.pid)) {
        j["note"] = fmt::format(
            "process {} ended without settling (killed?): its whole reservation stays spent",
            r.pid);
      }
      runs_json.push_back(std::move(j));
    }
    json spent;
    try {
      const CrossRunSpend c = compose_runs(spends_of(rs), d.budget, d.rule);
      spent = {{"epsilon", number(c.epsilon)},
               {"delta", d.rule == CompositionRule::gaussian ? c.delta_accountants : c.sum_delta},
               {"within_budget", c.within},
               {"sum_of_run_epsilons", c.sum_epsilon},
               {"sum_of_run_deltas", c.sum_delta}};
    } catch (const ConfigError& e) {
      spent = {{"error", e.what()}};
    }
    sets.push_back({{"hash", d.hash},
                    {"label", d.label},
                    {"rows", d.rows},
                    {"columns", d.columns},
                    {"budget", {{"epsilon", d.budget.epsilon}, {"delta", d.budget.delta}}},
                    {"composition", to_string(d.rule)},
                    {"registered", d.registered},
                    {"spent", spent},
                    {"runs", runs_json}});
  }
  return {{"ledger", path().string()}, {"datasets", sets}};
}

}  // namespace dpmcmc
