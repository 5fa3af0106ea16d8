#include "cli/options.hpp"

#include <fmt/core.h>
#include <cmath>

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

}  // namespace dpmcmc::cli
