// A privacy budget (ε, δ) and the validation of user-given privacy parameters, shared by the
// planner, the run and the `account` command so that every entry point rejects ε ≤ 0 or
// δ ∉ (0, 1) with the same message naming the option.
#pragma once

#include <string_view>

namespace dpmcmc {

struct Budget {
  double epsilon = 1.0;
  double delta = 1e-5;
};

// The largest ε accepted: the accountants evaluate e^ε, which overflows a double beyond 709 (an ε
// of 1e300 gave "Gaussian PLD: μ must be ≥ 0, got -nan"), and a guarantee at ε in the hundreds
// bounds nothing an attacker could notice anyway.
inline constexpr double kMaxEpsilon = 500.0;

// ConfigError "<what>: ε must be > 0 and at most 500, got …" / "δ must be in (0, 1), got …".
void validate_budget(const Budget& budget, std::string_view what = "privacy budget");
// The same checks of one value, ConfigError naming `who`.
void check_epsilon(double epsilon, std::string_view who);
void check_delta(double delta, std::string_view who);
// The same checks of a value given to an option: UsageError (exit 64, as any bad option value),
// e.g. check_epsilon_option(x, "--epsilon").
void check_epsilon_option(double epsilon, std::string_view option);
void check_delta_option(double delta, std::string_view option);

}  // namespace dpmcmc
