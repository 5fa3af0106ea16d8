// A thin RAII layer over SQLite (Debian's libsqlite3) for the budget ledger: a connection with
// the ledger's settings and prepared statements. Every SQLite failure becomes a dpmcmc error
// naming the ledger file: busy or locked → BusyError (75), not a database or corrupt →
// DataError (65), cannot open → NoInputError (66), an SQL error (a schema that does not fit, a
// bug) → SoftwareError (70), anything else → I/O error (74).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

struct sqlite3;
struct sqlite3_stmt;

namespace dpmcmc {

class SqliteDb;

class SqliteStatement {
 public:
  SqliteStatement(SqliteDb& db, const char* sql);
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;
  ~SqliteStatement();

  // Parameters are 1-based, as in SQLite.
  SqliteStatement& bind(int index, std::int64_t value);
  SqliteStatement& bind(int index, double value);
  SqliteStatement& bind(int index, const std::string& value);
  SqliteStatement& bind_null(int index);
  // The next row: true while there is one; false when done.
  bool step();
  std::int64_t integer(int column) const;
  double real(int column) const;
  std::string text(int column) const;  // "" for NULL
  bool is_null(int column) const;

 private:
  SqliteDb& db_;
  sqlite3_stmt* stmt_ = nullptr;
};

class SqliteDb {
 public:
  // Opens (or with `create`, creates with mode 0600) the file; NoInputError when it is missing
  // and not to be created. Sets a busy timeout of `busy_timeout_ms`, WAL journaling and foreign
  // keys.
  SqliteDb(const std::filesystem::path& path, bool create, int busy_timeout_ms);
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;
  ~SqliteDb();

  void exec(const char* sql);
  std::int64_t last_insert_id() const;
  // Rows changed by the last INSERT, UPDATE or DELETE.
  int changes() const;
  const std::filesystem::path& path() const { return path_; }
  // Throws the error that SQLite result `code` stands for, with `what` and SQLite's message.
  [[noreturn]] void fail(int code, const std::string& what) const;

  friend class SqliteStatement;

 private:
  std::filesystem::path path_;
  sqlite3* db_ = nullptr;
};

// BEGIN IMMEDIATE … COMMIT: the write lock is taken at the start (so two processes cannot both
// read a state and then both write), and rolled back unless commit() is reached.
class SqliteTransaction {
 public:
  explicit SqliteTransaction(SqliteDb& db);
  SqliteTransaction(const SqliteTransaction&) = delete;
  SqliteTransaction& operator=(const SqliteTransaction&) = delete;
  ~SqliteTransaction();
  void commit();

 private:
  SqliteDb& db_;
  bool open_ = true;
};

}  // namespace dpmcmc
