// Clopper–Pearson bounds against closed forms and a published value.
#include "audit/clopper_pearson.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"

namespace dpmcmc {
namespace {

// P(Bin(n, p) ≤ k) by direct summation of the pmf (lgamma), independent of Boost's inverse.
double binomial_cdf(std::uint64_t k, std::uint64_t n, double p) {
  double sum = 0.0;
  for (std::uint64_t i = 0; i <= k; ++i) {
    const double di = static_cast<double>(i), dn = static_cast<double>(n);
    sum += std::exp(std::lgamma(dn + 1) - std::lgamma(di + 1) - std::lgamma(dn - di + 1) +
                    di * std::log(p) + (dn - di) * std::log1p(-p));
  }
  return sum;
}

TEST(ClopperPearson, ZeroAndAllSuccessesHaveClosedForms) {
  // k = 0: (1 − u)^n = β; k = n: ℓ^n = β.
  EXPECT_NEAR(clopper_pearson_upper(0, 100, 0.05), 1.0 - std::pow(0.05, 0.01), 1e-12);
  EXPECT_NEAR(clopper_pearson_lower(100, 100, 0.05), std::pow(0.05, 0.01), 1e-12);
  EXPECT_EQ(clopper_pearson_upper(7, 7, 0.05), 1.0);
  EXPECT_EQ(clopper_pearson_lower(0, 7, 0.05), 0.0);
}

TEST(ClopperPearson, MatchesThePublishedIntervalForThreeOfTen) {
  // R: binom.test(3, 10)$conf.int = 0.06673951 0.65245285 (two-sided 95%: β = 0.025 each side).
  EXPECT_NEAR(clopper_pearson_lower(3, 10, 0.025), 0.06673951, 1e-8);
  EXPECT_NEAR(clopper_pearson_upper(3, 10, 0.025), 0.65245285, 1e-8);
}

TEST(ClopperPearson, UpperBoundSolvesTheBinomialTailEquation) {
  for (const auto& [k, n] : {std::pair<int, int>{1, 50}, {17, 200}, {990, 1000}}) {
    const double u = clopper_pearson_upper(k, n, 0.01);
    EXPECT_NEAR(binomial_cdf(k, n, u), 0.01, 1e-9) << k << " of " << n;
    const double l = clopper_pearson_lower(k, n, 0.01);
    EXPECT_NEAR(1.0 - binomial_cdf(k - 1, n, l), 0.01, 1e-9) << k << " of " << n;
  }
}

TEST(ClopperPearson, RefusesImpossibleCounts) {
  EXPECT_THROW(clopper_pearson_upper(5, 4, 0.05), ConfigError);
  EXPECT_THROW(clopper_pearson_upper(0, 0, 0.05), ConfigError);
  EXPECT_THROW(clopper_pearson_lower(1, 4, 1.0), ConfigError);
}

}  // namespace
}  // namespace dpmcmc
