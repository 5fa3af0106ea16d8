#include "privacy/budget.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/error.hpp"

namespace dpmcmc {

void check_epsilon(double epsilon, std::string_view option) {
  if (!(epsilon > 0.0 && epsilon <= kMaxEpsilon))
    throw ConfigError(
        fmt::format("{}: ε must be > 0 and at most {}, got {}", option, kMaxEpsilon, epsilon));
}

void check_delta(double delta, std::string_view option) {
  if (!(delta > 0.0 && delta < 1.0))
    throw ConfigError(fmt::format("{}: δ must be in (0, 1), got {}", option, delta));
}

void validate_budget(const Budget& budget, std::string_view what) {
  check_epsilon(budget.epsilon, what);
  check_delta(budget.delta, what);
}

}  // namespace dpmcmc
