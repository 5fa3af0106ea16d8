// Runs the dpmcmc program as a user would (a shell command) and captures exit code and output.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace dpmcmc::test {

struct CliResult {
  int exit_code = -1;
  std::string out, err;
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A fresh scratch directory per test name under the system temp dir.
inline std::filesystem::path scratch_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("dpmcmc-cli-test-" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// `rows` rows of the example patients' schema (examples/patients/simulate.py, a known logistic
// model) written to `csv`; the shell's exit status (0 on success).
inline int simulate_patients(const std::filesystem::path& csv, int rows) {
  return std::system(("/usr/bin/python3 " + std::string(DPMCMC_SOURCE_DIR) +
                      "/examples/patients/simulate.py " + csv.string() + " --rows " +
                      std::to_string(rows) + " 2>/dev/null")
                         .c_str());
}

// `args` is appended to the program path verbatim (shell syntax).
inline CliResult run_cli(const std::string& args, const std::filesystem::path& dir) {
  const auto out = dir / "stdout.txt", err = dir / "stderr.txt";
  const std::string cmd = std::string(DPMCMC_BINARY) + " " + args + " >" + out.string() + " 2>" +
                          err.string() + " </dev/null";
  const int status = std::system(cmd.c_str());
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

// Starts `dpmcmc ARGS` (split at spaces) in the background with stdout and stderr in `log`;
// returns its pid (-1 if it could not start) for waitpid or kill.
inline pid_t spawn_cli(const std::string& args, const std::filesystem::path& log = "/dev/null") {
  std::istringstream in(args);
  std::vector<std::string> argv{DPMCMC_BINARY};
  for (std::string w; in >> w;) argv.push_back(w);
  std::vector<char*> pointers;
  for (auto& a : argv) pointers.push_back(a.data());
  pointers.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, DPMCMC_BINARY, &actions, nullptr, pointers.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  return rc == 0 ? pid : -1;
}

}  // namespace dpmcmc::test
