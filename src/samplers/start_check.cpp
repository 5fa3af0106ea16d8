#include "samplers/start_check.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <cmath>
#include <vector>

#include "core/error.hpp"

namespace dpmcmc {

void require_positive(double value, const char* what, const std::string& who) {
  if (!(value > 0.0) || !std::isfinite(value)) {
    throw ConfigError(fmt::format("{}: {} must be finite and > 0, got {}", who, what, value));
  }
}

namespace {
std::string show(const Vec& v) {
  return fmt::format("({})", fmt::join(std::vector<double>(v.data(), v.data() + v.size()), ", "));
}
}  // namespace

Vec broadcast_positive(const Vec& value, int dim, const std::string& option) {
  if (value.size() != 1 && value.size() != dim) {
    throw ConfigError(fmt::format("{}: expected 1 or {} values (one per parameter), got {}", option,
                                  dim, value.size()));
  }
  for (Eigen::Index j = 0; j < value.size(); ++j) {
    if (!std::isfinite(value[j]) || value[j] <= 0.0) {
      throw ConfigError(
          fmt::format("{}: value {} is {}, expected a finite number > 0", option, j + 1, value[j]));
    }
  }
  return value.size() == dim ? value : Vec::Constant(dim, value[0]);
}

void check_start(const Vec& theta0, int dim, const std::string& kernel) {
  if (theta0.size() != dim) {
    throw ConfigError(fmt::format("{}: starting point has {} components, the model has {}", kernel,
                                  theta0.size(), dim));
  }
  if (!theta0.allFinite()) {
    throw ConfigError(fmt::format("{}: starting point {} is not finite", kernel, show(theta0)));
  }
}

void check_start_density(double log_density, const Vec& theta0, const std::string& kernel,
                         bool known) {
  if (!known && std::isnan(log_density)) return;
  if (!std::isfinite(log_density)) {
    throw ConfigError(fmt::format(
        "{}: log posterior density at the starting point {} is {}, expected a finite value "
        "(start inside the support of the posterior)",
        kernel, show(theta0), log_density));
  }
}

}  // namespace dpmcmc
