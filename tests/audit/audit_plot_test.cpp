// The certified trade-off curve: the least false negative rate (ε, δ)-DP allows.
#include "audit/audit_plot.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace dpmcmc {
namespace {

TEST(CertifiedFnr, MatchesTheTwoLinesOfTheDpRegion) {
  // ε = log 2, δ = 0: FNR ≥ max(1 − 2·FPR, (1 − FPR)/2).
  EXPECT_NEAR(certified_fnr(0.1, std::log(2.0), 0.0), 0.8, 1e-12);
  EXPECT_NEAR(certified_fnr(0.5, std::log(2.0), 0.0), 0.25, 1e-12);
  EXPECT_EQ(certified_fnr(1.0, std::log(2.0), 0.0), 0.0);
  // ε = 0: no test beats guessing, FNR ≥ 1 − δ − FPR.
  EXPECT_NEAR(certified_fnr(0.3, 0.0, 0.01), 0.69, 1e-12);
}

}  // namespace
}  // namespace dpmcmc
