#include "privacy/budget.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/error.hpp"

namespace dpmcmc {
namespace {

// ε in (0, 500] and δ in (0, 1): a value given to an option is a usage error (exit 64, as any
// bad option value; docs/cli.md), a value inside the library or read from a budget a
// configuration error (exit 78).
TEST(Budget, OptionValuesAreUsageErrorsAndOthersConfigErrors) {
  const double inf = std::numeric_limits<double>::infinity();
  for (const double eps : {0.0, -1.0, 500.5, 1e300, inf, std::nan("")}) {
    EXPECT_THROW(check_epsilon_option(eps, "--epsilon"), UsageError) << eps;
    EXPECT_THROW(check_epsilon(eps, "meter"), ConfigError) << eps;
    EXPECT_THROW(validate_budget({eps, 1e-5}), ConfigError) << eps;
  }
  for (const double delta : {0.0, -1e-5, 1.0, 2.0, std::nan("")}) {
    EXPECT_THROW(check_delta_option(delta, "--delta"), UsageError) << delta;
    EXPECT_THROW(check_delta(delta, "meter"), ConfigError) << delta;
    EXPECT_THROW(validate_budget({1.0, delta}), ConfigError) << delta;
  }
  EXPECT_NO_THROW(check_epsilon_option(500.0, "--epsilon"));
  EXPECT_NO_THROW(check_delta_option(1e-300, "--delta"));
  EXPECT_NO_THROW(validate_budget({1e-9, 0.999}));
  try {
    check_epsilon_option(-1.0, "--epsilon");
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "--epsilon: ε must be > 0 and at most 500, got -1");
  }
}

}  // namespace
}  // namespace dpmcmc
