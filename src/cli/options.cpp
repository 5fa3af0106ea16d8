#include "cli/options.hpp"

#include <fmt/core.h>
#include <CLI/CLI.hpp>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <system_error>

#include "core/error.hpp"

namespace dpmcmc::cli {
namespace {
std::vector<std::string>& stored_command_line() {
  static std::vector<std::string> args;
  return args;
}
std::vector<std::string>& stored_parsed_arguments() {
  static std::vector<std::string> args;
  return args;
}
}  // namespace

const std::vector<std::string>& parsed_arguments() {
  return stored_parsed_arguments();
}

void set_parsed_arguments(std::vector<std::string> args) {
  stored_parsed_arguments() = std::move(args);
}

const std::vector<std::string>& command_line() {
  return stored_command_line();
}

void set_command_line(int argc, char** argv) {
  stored_command_line().assign(argv, argv + argc);
}

Vec vector_option(const std::string& option, const std::vector<double>& values, int dim,
                  bool allow_scalar) {
  const auto size = static_cast<int>(values.size());
  if (!(size == dim || (allow_scalar && size == 1))) {
    throw UsageError(fmt::format("{}: expected {} comma-separated values{}, got {}", option, dim,
                                 allow_scalar ? " (or one for all)" : "", size));
  }
  Vec v(dim);
  for (int i = 0; i < dim; ++i) {
    const double x = values[size == 1 ? 0 : i];
    if (!std::isfinite(x))
      throw UsageError(fmt::format("{}: value {} is not finite", option, i + 1));
    v(i) = x;
  }
  return v;
}

double positive_option(const std::string& option, double value) {
  if (!(std::isfinite(value) && value > 0)) {
    throw UsageError(fmt::format("{}: expected a finite number > 0, got {}", option, value));
  }
  return value;
}

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

}  // namespace dpmcmc::cli
