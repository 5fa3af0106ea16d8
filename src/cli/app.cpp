#include "cli/app.hpp"

#include <CLI/CLI.hpp>
#include <exception>
#include <fmt/core.h>

#include "core/error.hpp"

namespace dpmcmc::cli {

int run(int argc, char** argv) {
  CLI::App app{"dpmcmc: Bayesian inference under differential privacy"};
  app.require_subcommand(1);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : static_cast<int>(ExitCode::usage);
  }
  return 0;
}

}  // namespace dpmcmc::cli
