// Validation of command-line values shared by the subcommands: each failure is a UsageError
// naming the option and what was expected.
#pragma once

#include <string>
#include <vector>

#include "core/types.hpp"

namespace CLI {
class App;
}  // namespace CLI

namespace dpmcmc::cli {

// The command line of this process, as given to cli::run (for reports).
const std::vector<std::string>& command_line();
void set_command_line(int argc, char** argv);
// The arguments as parsed, --config files expanded (cli/config_file.hpp): what a resumed run
// parses again.
const std::vector<std::string>& parsed_arguments();
void set_parsed_arguments(std::vector<std::string> args);

// A vector option of exactly `dim` finite values (or 1 value, broadcast, when allow_scalar).
Vec vector_option(const std::string& option, const std::vector<double>& values, int dim,
                  bool allow_scalar = false);
// A finite value > 0.
double positive_option(const std::string& option, double value);

// Every whole-number option of `app` and its subcommands reads decimal digits only ("010" is ten,
// not octal 8; "0x10" is refused), and an unsigned one refuses a sign and a value past 2^64 - 1
// (EX_USAGE, naming the option): the command line and the in-process parses (Python) alike.
void check_whole_numbers(CLI::App& app);

}  // namespace dpmcmc::cli
