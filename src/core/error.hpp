// Errors with a sysexits-style exit code (docs/architecture.md). Every user-facing failure is
// thrown as one of these, with a message naming the file, line, column or option and what was
// expected; the CLI catches them at the top and exits with code().
#pragma once

#include <stdexcept>
#include <string>

namespace dpmcmc {

enum class ExitCode : int {
  ok = 0,
  usage = 64,         // EX_USAGE: bad command-line option or value
  data = 65,          // EX_DATAERR: malformed input data
  no_input = 66,      // EX_NOINPUT: input file missing or unreadable
  software = 70,      // EX_SOFTWARE: internal error (a bug)
  cant_create = 73,   // EX_CANTCREAT: output cannot be written
  io = 74,            // EX_IOERR
  temp_fail = 75,     // EX_TEMPFAIL: a shared resource is busy (a locked ledger); try again
  no_perm = 77,       // EX_NOPERM: refused (a dataset's budget across runs would be exceeded)
  config = 78,        // EX_CONFIG: bad configuration (file or parameter combination)
  interrupted = 130,  // 128 + SIGINT, the shell's convention: stopped by Ctrl-C, output partial
};

class Error : public std::runtime_error {
 public:
  Error(ExitCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ExitCode code() const noexcept { return code_; }

 private:
  ExitCode code_;
};

struct UsageError : Error {
  explicit UsageError(const std::string& m) : Error(ExitCode::usage, m) {}
};
struct DataError : Error {
  explicit DataError(const std::string& m) : Error(ExitCode::data, m) {}
};
struct NoInputError : Error {
  explicit NoInputError(const std::string& m) : Error(ExitCode::no_input, m) {}
};
struct ConfigError : Error {
  explicit ConfigError(const std::string& m) : Error(ExitCode::config, m) {}
};
struct OutputError : Error {
  explicit OutputError(const std::string& m) : Error(ExitCode::cant_create, m) {}
};
struct BusyError : Error {
  explicit BusyError(const std::string& m) : Error(ExitCode::temp_fail, m) {}
};
struct BudgetRefusal : Error {
  explicit BudgetRefusal(const std::string& m) : Error(ExitCode::no_perm, m) {}
};
struct InterruptedRun : Error {
  InterruptedRun() : Error(ExitCode::interrupted, "interrupted: the output is valid but partial") {}
};
struct SoftwareError : Error {
  explicit SoftwareError(const std::string& m) : Error(ExitCode::software, m) {}
};

}  // namespace dpmcmc
