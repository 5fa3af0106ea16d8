#include "core/numeric.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace dpmcmc {
namespace {

TEST(Numeric, LogErfcMatchesDirectWhereRepresentable) {
  for (double x : {-5.0, -1.0, 0.0, 0.5, 3.0, 10.0, 25.9}) {
    EXPECT_NEAR(log_erfc(x), std::log(std::erfc(x)),
                1e-12 * std::max(1.0, std::abs(std::log(std::erfc(x)))));
  }
}

TEST(Numeric, LogErfcContinuousAcrossSwitchAndFarTail) {
  // Across the switch at 26 the asymptotic series must agree with the direct value.
  const double below = std::log(std::erfc(25.999999));
  EXPECT_NEAR(log_erfc(26.0), below - (26.0 * 26.0 - 25.999999 * 25.999999) - 1e-6 / 26.0,
              1e-9 * std::abs(below));
  // Far tail, where erfc underflows: log erfc(x) ≈ −x² − log(x√π) − 1/(2x²) (leading terms).
  const double x = 1e3;
  EXPECT_NEAR(log_erfc(x), -x * x - std::log(x * std::sqrt(M_PI)) - 0.5 / (x * x), 1e-12 * x * x);
}

TEST(Numeric, LogSumExp) {
  std::vector<double> v{1000.0, 1000.0};
  EXPECT_NEAR(log_sum_exp(v), 1000.0 + std::log(2.0), 1e-12);
  EXPECT_NEAR(log_add_exp(-1e308, 0.0), 0.0, 1e-15);
  EXPECT_NEAR(log_sub_exp(std::log(3.0), std::log(1.0)), std::log(2.0), 1e-14);
}

TEST(Numeric, LogNormalCdf) {
  EXPECT_NEAR(log_normal_cdf(0.0), std::log(0.5), 1e-15);
  // Φ(−40) = erfc(40/√2)/2 ≈ 3.655893540915e-350 (below double range): log ≈ −804.6084420137538.
  EXPECT_NEAR(log_normal_cdf(-40.0), -804.6084420137538, 1e-9);
}

TEST(Numeric, LogMillsRatioMatchesTheContinuedFraction) {
  // Independent value: Laplace's continued fraction R(t) = 1/(t + 1/(t + 2/(t + 3/(t + …)))),
  // evaluated bottom-up with 4000 levels (converged to ~1e-16 for t ≥ 0.5), on both sides of the
  // switch to the series (t = 26√2 ≈ 36.77) and far beyond, where Φ(−t) underflows.
  const auto continued_fraction = [](double t) {
    double v = t;
    for (int k = 4000; k >= 1; --k) v = t + k / v;
    return 1.0 / v;
  };
  for (double t : {0.5, 3.0, 10.0, 30.0, 36.7, 36.8, 100.0, 1e6}) {
    EXPECT_NEAR(log_mills_ratio(t), std::log(continued_fraction(t)), 2e-12) << t;
  }
  EXPECT_NEAR(log_mills_ratio(0.0), 0.5 * std::log(2.0 * M_PI) - std::log(2.0), 1e-15);
}

}  // namespace
}  // namespace dpmcmc
