// Calibration of one Gaussian mechanism: classical formula and the analytic Gaussian mechanism.
#include "privacy/gaussian_calibration.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"

namespace dpmcmc {
namespace {

// Balle and Wang 2018 (and Google dp_accounting's tests): ε = 1, δ = 1e-5, Δ = 1 → σ ≈ 3.73063.
TEST(GaussianCalibration, AnalyticGaussianPublishedSigma) {
  EXPECT_NEAR(analytic_gaussian_sigma(1.0, 1.0, 1e-5), 3.73063, 5e-6);
  // Linear in Δ.
  EXPECT_NEAR(analytic_gaussian_sigma(2.5, 1.0, 1e-5), 2.5 * 3.73063, 2.5 * 5e-6);
}

TEST(GaussianCalibration, AnalyticSigmaIsTheSmallestThatMeetsTheBudget) {
  for (double eps : {0.0, 0.1, 1.0, 5.0, 50.0}) {
    for (double delta : {0.2, 1e-5, 1e-50}) {
      const double sigma = analytic_gaussian_sigma(1.0, eps, delta);
      // Balle and Wang's condition written out with erfc: Φ(x) = ½ erfc(−x/√2).
      auto delta_of = [eps](double s) {
        const double a = 1.0 / (2.0 * s) - eps * s, b = -1.0 / (2.0 * s) - eps * s;
        return 0.5 * std::erfc(-a / std::sqrt(2.0)) -
               std::exp(eps) * 0.5 * std::erfc(-b / std::sqrt(2.0));
      };
      EXPECT_NEAR(analytic_gaussian_delta(1.0, sigma, eps) / delta, 1.0, 1e-9);
      if (delta > 1e-10 && eps <= 5.0) {  // where the direct formula has digits to spare
        EXPECT_LE(delta_of(sigma), delta * (1.0 + 1e-9));
        EXPECT_GT(delta_of(sigma * (1.0 - 1e-6)), delta);
      }
    }
  }
}

TEST(GaussianCalibration, ClassicalFormulaAndItsRange) {
  // σ = Δ√(2 ln(1.25/δ))/ε.
  EXPECT_NEAR(classical_gaussian_sigma(2.0, 0.5, 1e-5),
              2.0 * std::sqrt(2.0 * std::log(1.25e5)) / 0.5, 1e-12);
  // The classical σ is valid, hence never below the exact (analytic) one.
  for (double eps : {0.01, 0.3, 0.99})
    for (double delta : {1e-3, 1e-9})
      EXPECT_GE(classical_gaussian_sigma(1.0, eps, delta),
                analytic_gaussian_sigma(1.0, eps, delta));
  EXPECT_THROW(classical_gaussian_sigma(1.0, 1.0, 1e-5), ConfigError);
  EXPECT_THROW(classical_gaussian_sigma(1.0, 2.0, 1e-5), ConfigError);
  EXPECT_THROW(classical_gaussian_sigma(1.0, 0.5, 0.0), ConfigError);
  EXPECT_THROW(classical_gaussian_sigma(0.0, 0.5, 1e-5), ConfigError);
  EXPECT_THROW(analytic_gaussian_sigma(1.0, -1.0, 1e-5), ConfigError);
}

TEST(GaussianCalibration, EpsilonOfOneRelease) {
  // σ = 1, Δ = 1: ε(δ = 1e-5) = 4.37717810 (the μ = 1 GDP reference value).
  EXPECT_NEAR(analytic_gaussian_epsilon(1.0, 1.0, 1e-5), 4.37717810, 5e-9);
  EXPECT_NEAR(analytic_gaussian_epsilon(3.0, 3.0, 1e-5), 4.37717810, 5e-9);
}

}  // namespace
}  // namespace dpmcmc
