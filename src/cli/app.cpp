#include "cli/app.hpp"

#include <fmt/core.h>
#include <CLI/CLI.hpp>
#include <exception>

#include "cli/commands.hpp"
#include "cli/config_file.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "core/version.hpp"

namespace dpmcmc::cli {

int run(int argc, char** argv) {
  CLI::App app{
      "dpmcmc: Bayesian inference (MCMC) on sensitive data under differential privacy.\n"
      "Run `dpmcmc COMMAND --help` for the options of a command."};
  app.require_subcommand(1, 1);
  app.set_version_flag("--version", std::string("dpmcmc ") + kVersion);
  add_models_command(app);
  add_samplers_command(app);
  add_simulate_command(app);
  add_sample_command(app);
  add_advise_command(app);
  add_predict_command(app);
  add_summary_command(app);
  add_plot_command(app);
  add_account_command(app);
  add_audit_command(app);
  add_ledger_command(app);
  add_experiment_commands(app);
  check_whole_numbers(app);
  set_command_line(argc, argv);
  ExpandedArgs expanded;
  try {
    // --config files become ordinary arguments first (cli/config_file.hpp).
    expanded = expand_config_files(std::vector<std::string>(argv, argv + argc));
    set_parsed_arguments(expanded.args);
    std::vector<char*> pointers;
    for (auto& a : expanded.args) pointers.push_back(a.data());
    app.parse(static_cast<int>(pointers.size()), pointers.data());
  } catch (const CLI::ParseError& e) {
    // --help and --version are "errors" with exit code 0; the rest are usage errors (EX_USAGE),
    // printed as every other error is, so that scripts can grep one prefix.
    if (e.get_exit_code() == 0) return app.exit(e);
    const auto chosen = app.get_subcommands();
    fmt::print(stderr, "dpmcmc: error: {}\nRun `dpmcmc {}--help` for the options.\n{}", e.what(),
               chosen.empty() ? std::string() : chosen.front()->get_name() + " ",
               config_origin_note(e.what(), expanded));
    return static_cast<int>(ExitCode::usage);
  } catch (const Error& e) {
    fmt::print(stderr, "dpmcmc: error: {}\n{}", e.what(), config_origin_note(e.what(), expanded));
    return static_cast<int>(e.code());
  } catch (const std::exception& e) {
    fmt::print(stderr, "dpmcmc: internal error: {}\n", e.what());
    return static_cast<int>(ExitCode::software);
  }
  return 0;
}

}  // namespace dpmcmc::cli
