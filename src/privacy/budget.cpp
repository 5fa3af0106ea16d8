#include "privacy/budget.hpp"

#include <fmt/format.h>

#include <cmath>
#include <string>

#include "core/error.hpp"

namespace dpmcmc {

namespace {

// The message for an ε outside (0, kMaxEpsilon] or a δ outside (0, 1); empty when both are valid.
std::string epsilon_problem(double epsilon, std::string_view who) {
  if (epsilon > 0.0 && epsilon <= kMaxEpsilon) return {};
  return fmt::format("{}: ε must be > 0 and at most {}, got {}", who, kMaxEpsilon, epsilon);
}

std::string delta_problem(double delta, std::string_view who) {
  if (delta > 0.0 && delta < 1.0) return {};
  return fmt::format("{}: δ must be in (0, 1), got {}", who, delta);
}

}  // namespace

void check_epsilon(double epsilon, std::string_view who) {
  if (auto m = epsilon_problem(epsilon, who); !m.empty()) throw ConfigError(m);
}

void check_delta(double delta, std::string_view who) {
  if (auto m = delta_problem(delta, who); !m.empty()) throw ConfigError(m);
}

// A value given to an option is a usage error (exit 64), as any bad option value.
void check_epsilon_option(double epsilon, std::string_view option) {
  if (auto m = epsilon_problem(epsilon, option); !m.empty()) throw UsageError(m);
}

void check_delta_option(double delta, std::string_view option) {
  if (auto m = delta_problem(delta, option); !m.empty()) throw UsageError(m);
}

void validate_budget(const Budget& budget, std::string_view what) {
  check_epsilon(budget.epsilon, what);
  check_delta(budget.delta, what);
}

}  // namespace dpmcmc
