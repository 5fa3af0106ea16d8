#include "ledger/sqlite_db.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/error.hpp"

namespace dpmcmc {

void SqliteDb::fail(int code, const std::string& what) const {
  const std::string detail = db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(code);
  const std::string where = fmt::format("ledger {}: {}", path_.string(), what);
  switch (code & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      throw BusyError(fmt::format(
          "{}: locked by another process ({}); nothing was released, try again", where, detail));
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
    case SQLITE_FORMAT:
      throw DataError(fmt::format("{}: not a dpmcmc ledger or corrupt ({})", where, detail));
    case SQLITE_CANTOPEN:
      throw NoInputError(fmt::format("{}: cannot open ({})", where, detail));
    case SQLITE_ERROR:
    case SQLITE_MISUSE:
      // A statement the file's schema does not fit (another program's database) or a bug.
      throw SoftwareError(fmt::format("{}: {}", where, detail));
    default:
      throw Error(ExitCode::io, fmt::format("{}: {}", where, detail));
  }
}

SqliteDb::SqliteDb(const std::filesystem::path& path, bool create, int busy_timeout_ms)
    : path_(path) {
  std::error_code ec;
  const bool exists = std::filesystem::exists(path, ec);
  if (!exists && !create) {
    throw NoInputError(fmt::format(
        "ledger {}: no such file (create it with `dpmcmc ledger init`, or give --ledger)",
        path.string()));
  }
  if (!exists) {
    if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
    // Created 0600 before SQLite opens it: the ledger names datasets by a hash of their rows
    // and lists every run on them, the curator's business alone.
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0 && errno != EEXIST) {
      throw OutputError(
          fmt::format("ledger {}: cannot create ({})", path.string(), std::strerror(errno)));
    }
    if (fd >= 0) ::close(fd);
  }
  const int rc = sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE, nullptr);
  // The destructor does not run when the constructor throws: the handle (allocated even when
  // opening fails) is closed here.
  try {
    if (rc != SQLITE_OK) fail(rc, "open");
    sqlite3_busy_timeout(db_, busy_timeout_ms);
    // A file that is not a database fails here, on its first read.
    exec("PRAGMA foreign_keys = ON");
    {
      SqliteStatement journal(*this, "PRAGMA journal_mode = WAL");
      journal.step();
    }
    // A committed reservation survives a power loss (WAL's default NORMAL may lose the last one).
    exec("PRAGMA synchronous = FULL");
  } catch (...) {
    sqlite3_close_v2(db_);
    db_ = nullptr;
    throw;
  }
}

SqliteDb::~SqliteDb() {
  sqlite3_close_v2(db_);
}

void SqliteDb::exec(const char* sql) {
  char* message = nullptr;
  const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &message);
  sqlite3_free(message);
  if (rc != SQLITE_OK) fail(rc, sql);
}

std::int64_t SqliteDb::last_insert_id() const {
  return sqlite3_last_insert_rowid(db_);
}

int SqliteDb::changes() const {
  return sqlite3_changes(db_);
}

SqliteStatement::SqliteStatement(SqliteDb& db, const char* sql) : db_(db) {
  const int rc = sqlite3_prepare_v2(db.db_, sql, -1, &stmt_, nullptr);
  if (rc != SQLITE_OK) db.fail(rc, sql);
}

SqliteStatement::~SqliteStatement() {
  sqlite3_finalize(stmt_);
}

SqliteStatement& SqliteStatement::bind(int index, std::int64_t value) {
  const int rc = sqlite3_bind_int64(stmt_, index, value);
  if (rc != SQLITE_OK) db_.fail(rc, "bind");
  return *this;
}

SqliteStatement& SqliteStatement::bind(int index, double value) {
  const int rc = sqlite3_bind_double(stmt_, index, value);
  if (rc != SQLITE_OK) db_.fail(rc, "bind");
  return *this;
}

SqliteStatement& SqliteStatement::bind(int index, const std::string& value) {
  const int rc = sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()),
                                   SQLITE_TRANSIENT);
  if (rc != SQLITE_OK) db_.fail(rc, "bind");
  return *this;
}

SqliteStatement& SqliteStatement::bind_null(int index) {
  const int rc = sqlite3_bind_null(stmt_, index);
  if (rc != SQLITE_OK) db_.fail(rc, "bind");
  return *this;
}

bool SqliteStatement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_.fail(rc, sqlite3_sql(stmt_));
}

std::int64_t SqliteStatement::integer(int column) const {
  return sqlite3_column_int64(stmt_, column);
}

double SqliteStatement::real(int column) const {
  return sqlite3_column_double(stmt_, column);
}

std::string SqliteStatement::text(int column) const {
  const auto* p = sqlite3_column_text(stmt_, column);
  return p != nullptr ? std::string(reinterpret_cast<const char*>(p)) : std::string();
}

bool SqliteStatement::is_null(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

SqliteTransaction::SqliteTransaction(SqliteDb& db) : db_(db) {
  db_.exec("BEGIN IMMEDIATE");
}

SqliteTransaction::~SqliteTransaction() {
  if (open_) {
    try {
      db_.exec("ROLLBACK");
    } catch (...) {  // NOLINT(bugprone-empty-catch): a failed rollback leaves the file as it was
    }
  }
}

void SqliteTransaction::commit() {
  db_.exec("COMMIT");
  open_ = false;
}

}  // namespace dpmcmc
