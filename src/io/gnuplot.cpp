#include "io/gnuplot.hpp"

#include <fmt/format.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "core/error.hpp"

namespace dpmcmc {
namespace {

// A shell word: single-quoted, embedded quotes closed and escaped.
std::string shell_quote(std::string_view text) {
  std::string out = "'";
  for (const char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

int shell(const std::string& command) {
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

std::string gnuplot_program() {
  const char* env = std::getenv("DPMCMC_GNUPLOT");
  return env && *env ? std::string(env) : std::string("gnuplot");
}

void require_gnuplot() {
  const std::string program = gnuplot_program();
  if (shell(shell_quote(program) + " --version >/dev/null 2>&1 </dev/null") != 0) {
    throw ConfigError(fmt::format(
        "cannot run gnuplot ('{}'): the report draws its plots with it; install it "
        "(apt-get install gnuplot-nox, or scripts/install-deps.sh), set DPMCMC_GNUPLOT to the "
        "program, or pass --no-plots",
        program));
  }
}

void run_gnuplot(const std::filesystem::path& script) {
  const auto dir = script.parent_path().empty() ? std::filesystem::path(".") : script.parent_path();
  const std::string log = script.filename().string() + ".log";
  const std::string command = fmt::format(
      "cd {} && {} {} >{} 2>&1 </dev/null", shell_quote(dir.string()),
      shell_quote(gnuplot_program()), shell_quote(script.filename().string()), shell_quote(log));
  if (shell(command) != 0) {
    std::ifstream in(dir / log);
    std::stringstream text;
    text << in.rdbuf();
    std::string tail = text.str();
    if (tail.size() > 600) tail = "…" + tail.substr(tail.size() - 600);
    throw OutputError(fmt::format("gnuplot failed on {}: {}", script.string(), tail));
  }
}

std::string gnuplot_quote(std::string_view text) {
  std::string out = "'";
  for (const char c : text) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out + "'";
}

}  // namespace dpmcmc
