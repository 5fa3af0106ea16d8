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

namespace {

// The text of a whole-number option made plain decimal, or what is wrong with it. CLI11 reads
// "-5" into an unsigned option as 2^64 - 5 (strtoull's rule), so `--iter -5` or `--seed -1` were
// accepted and wrapped; it caps a number past 2^64 - 1 at 2^64 - 1, so two different huge seeds
// ran as one (the same noise under one key); and it reads "010" as octal 8 and "0x10" as 16, so
// `--seed 010` ran and reported seed 8. Only decimal digits (after a sign, for a signed option)
// are accepted, and leading zeros are dropped so that "010" is ten.
std::string plain_decimal(std::string& value, bool is_unsigned) {
  const auto first = value.find_first_not_of(" \t");
  const auto last = value.find_last_not_of(" \t");
  if (first == std::string::npos) return {};  // CLI11 reports the missing value
  std::string text = value.substr(first, last - first + 1);
  std::string sign;
  if (text[0] == '-' || text[0] == '+') {
    if (is_unsigned) return "expected a whole number >= 0 without a sign, got '" + value + "'";
    if (text[0] == '-') sign = "-";
    text.erase(0, 1);
  }
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
    return "expected a whole number in decimal digits, got '" + value + "'";
  const auto nonzero = text.find_first_not_of('0');
  text = nonzero == std::string::npos ? "0" : text.substr(nonzero);
  if (is_unsigned) {
    std::uint64_t parsed = 0;
    if (std::from_chars(text.data(), text.data() + text.size(), parsed).ec ==
        std::errc::result_out_of_range)
      return "expected a whole number <= 18446744073709551615 (2^64 - 1), got '" + value + "'";
  }
  value = sign + text;
  return {};
}

}  // namespace

void check_whole_numbers(CLI::App& app) {
  for (CLI::Option* option : app.get_options([](const CLI::Option*) { return true; })) {
    const std::string type = option->get_type_name();
    const bool is_unsigned = type.rfind("UINT", 0) == 0;
    if (!is_unsigned && type.rfind("INT", 0) != 0) continue;
    option->transform(CLI::Validator(
        [is_unsigned](std::string& value) { return plain_decimal(value, is_unsigned); }, ""));
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    check_whole_numbers(*sub);
}

}  // namespace dpmcmc::cli
