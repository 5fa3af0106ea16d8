#include "cli/app.hpp"

#include <fmt/core.h>
#include <CLI/CLI.hpp>
#include <charconv>
#include <cstdint>
#include <exception>
#include <system_error>

#include "cli/commands.hpp"
#include "cli/config_file.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"

namespace dpmcmc::cli {
namespace {

// CLI11 reads "-5" into an unsigned option as 2^64 − 5 (strtoull's rule), so `--iter -5` or
// `--seed -1` were accepted and wrapped, and it caps a number past 2^64 − 1 at 2^64 − 1, so two
// different huge seeds ran as one (the same noise under one key). One check on every UINT option
// of every command refuses both instead (EX_USAGE, naming the option).
void refuse_signed_counts(CLI::App& app) {
  for (CLI::Option* option : app.get_options([](const CLI::Option*) { return true; })) {
    if (option->get_type_name().rfind("UINT", 0) != 0) continue;
    option->check(CLI::Validator(
        [](std::string& value) -> std::string {
          const auto first = value.find_first_not_of(" \t");
          if (first == std::string::npos) return {};
          if (value[first] == '-' || value[first] == '+')
            return "expected a whole number >= 0 without a sign, got '" + value + "'";
          std::uint64_t parsed = 0;
          const char* end = value.data() + value.size();
          if (std::from_chars(value.data() + first, end, parsed).ec ==
              std::errc::result_out_of_range)
            return "expected a whole number <= 18446744073709551615 (2^64 - 1), got '" + value +
                   "'";
          return {};
        },
        ""));
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    refuse_signed_counts(*sub);
}

}  // namespace

int run(int argc, char** argv) {
  CLI::App app{
      "dpmcmc: Bayesian inference (MCMC) on sensitive data under differential privacy.\n"
      "Run `dpmcmc COMMAND --help` for the options of a command."};
  app.require_subcommand(1, 1);
  app.set_version_flag("--version", "dpmcmc 0.1.0");
  add_models_command(app);
  add_samplers_command(app);
  add_simulate_command(app);
  add_sample_command(app);
  add_summary_command(app);
  add_plot_command(app);
  add_account_command(app);
  add_audit_command(app);
  add_ledger_command(app);
  add_experiment_commands(app);
  refuse_signed_counts(app);
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
    // --help and --version are "errors" with exit code 0; the rest are usage errors (EX_USAGE).
    const int code = app.exit(e);
    if (code == 0) return 0;
    fmt::print(stderr, "{}", config_origin_note(e.what(), expanded));
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
