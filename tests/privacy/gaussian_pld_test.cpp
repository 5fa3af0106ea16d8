// Tests of the closed-form Gaussian PLD accountant against published values and against an
// independent numerical integration of the privacy-loss tail.
#include "privacy/gaussian_pld.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/math/quadrature/exp_sinh.hpp>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#include "core/error.hpp"

namespace dpmcmc {
namespace {

PrivacyEvent gaussian(double sigma, double sensitivity = 1.0, std::uint64_t count = 1,
                      Neighbouring relation = Neighbouring::add_remove) {
  PrivacyEvent e;
  e.mechanism = Mechanism::gaussian;
  e.noise_sd = sigma;
  e.sensitivity = sensitivity;
  e.count = count;
  e.relation = relation;
  return e;
}

// Published reference values (Google dp_accounting's PLD tests and Balle & Wang 2018, Table):
// one Gaussian release with σ = 1, Δ = 1, i.e. μ = 1/2.
TEST(GaussianPld, PublishedDeltaOfOneRelease) {
  const GaussianPldAccountant accountant;
  const std::vector<PrivacyEvent> events{gaussian(1.0)};
  const auto profile = accountant.compose(events);
  // The references are given to 8 significant digits: compare to half a unit of the last digit.
  EXPECT_NEAR(profile->delta(0.0), 0.38292492, 5e-9);
  EXPECT_NEAR(profile->delta(1.0), 0.12693674, 5e-9);
  EXPECT_NEAR(profile->delta(2.0), 0.020923636, 5e-10);
}

TEST(GaussianPld, PublishedEpsilonForMuOne) {
  // "μ = 1" in the reference is μ-GDP (Dong, Roth and Su): Δ/σ = 1, i.e. a PLD N(½, 1) in this
  // file's parametrisation N(μ, 2μ) with μ = Δ²/(2σ²) = ½. ε(δ = 1e-5) = 4.37717810 (8 decimals).
  EXPECT_NEAR(gaussian_pld_epsilon(0.5, 1e-5), 4.37717810, 5e-9);
  const std::vector<PrivacyEvent> events{gaussian(1.0)};
  EXPECT_NEAR(GaussianPldAccountant().compose(events)->epsilon(1e-5), 4.37717810, 5e-9);
  // The same budget spent by 4 releases with σ = 2 (μ = 4·1/8 = ½).
  const std::vector<PrivacyEvent> four{gaussian(2.0, 1.0, 4)};
  EXPECT_NEAR(GaussianPldAccountant().compose(four)->epsilon(1e-5), 4.37717810, 5e-9);
}

// Independent value: log δ(ε) = log E[(1 − e^{ε−L})₊], L ~ N(μ, 2μ), by quadrature of the density.
// For ε ≥ μ the density is factored at ℓ = ε so that δ far below 1e-300 stays representable:
//   δ = p(ε) ∫₀^∞ (1 − e^{−v}) exp(−(ε−μ)v/(2μ) − v²/(4μ)) dv,
// p(ℓ) = exp(−(ℓ−μ)²/(4μ))/√(4πμ). For ε < μ the plain integral over [ε, ∞) is used.
double log_delta_by_quadrature(double mu, double epsilon) {
  const double log_norm = -0.5 * std::log(4.0 * std::numbers::pi * mu);
  if (epsilon >= mu) {
    const double slope = (epsilon - mu) / (2.0 * mu);
    auto f = [&](double v) { return -std::expm1(-v) * std::exp(-slope * v - v * v / (4.0 * mu)); };
    boost::math::quadrature::exp_sinh<double> integrator;
    const double integral = integrator.integrate(f, 1e-15);
    const double log_p = log_norm - (epsilon - mu) * (epsilon - mu) / (4.0 * mu);
    return log_p + std::log(integral);
  }
  // ε < μ: the integrand is O(1) around the mean; integrate over [ε, μ + 40√(2μ)] (the rest of the
  // Gaussian tail is below e^{-800}) by adaptive Gauss–Kronrod.
  auto f = [&](double l) {
    return -std::expm1(epsilon - l) * std::exp(log_norm - (l - mu) * (l - mu) / (4.0 * mu));
  };
  const double integral = boost::math::quadrature::gauss_kronrod<double, 61>::integrate(
      f, epsilon, mu + 40.0 * std::sqrt(2.0 * mu), 20, 1e-14);
  return std::log(integral);
}

TEST(GaussianPld, LogDeltaMatchesQuadratureOfThePldTailIncludingExtremes) {
  // The grid spans the direct regime (moderate ε), the Mills-ratio regime (ε ≫ μ, where the two
  // erfc terms agree to many digits) and δ far below the double range (ε up to 10⁴).
  for (double mu : {1e-8, 1e-3, 0.05, 0.5, 1.0, 10.0, 1000.0}) {
    for (double eps : {0.0, 0.01, 0.1, 1.0, 5.0, 30.0, 100.0, 1000.0, 1e4}) {
      const double got = gaussian_pld_log_delta(mu, eps);
      const double want = log_delta_by_quadrature(mu, eps);
      ASSERT_TRUE(std::isfinite(got)) << "mu=" << mu << " eps=" << eps;
      // Both sides evaluate the exponent (ε−μ)²/(4μ) with relative rounding ~1e-16, and the
      // quadratures are accurate to ~1e-13: 1e-10 relative on δ leaves margin for both, while a
      // wrong formula or a cancelled difference would be off by orders of magnitude.
      EXPECT_NEAR(got, want, 1e-10 * std::max(1.0, std::abs(want)))
          << "mu=" << mu << " eps=" << eps;
    }
  }
}

TEST(GaussianPld, LogSpaceStaysFiniteAndMonotoneAtExtremes) {
  // ε = 10⁴: δ = e^{-2.5e7} for μ = 1 — far below double range, but log δ finite and decreasing.
  double previous = 1.0;
  for (double eps = 0.0; eps <= 1e4; eps = eps * 2.0 + 0.5) {
    const double ld = gaussian_pld_log_delta(1.0, eps);
    ASSERT_TRUE(std::isfinite(ld)) << eps;
    EXPECT_LT(ld, previous) << eps;
    previous = ld;
  }
  EXPECT_TRUE(std::isfinite(gaussian_pld_log_delta(1.0, 1e4)));
  // δ = 1e-300: ε(δ) finite, and the returned ε satisfies the budget (certified side) while ε
  // shrunk by 1e-12 relative does not.
  for (double mu : {1e-6, 0.01, 1.0, 100.0, 1e4}) {
    const double eps = gaussian_pld_epsilon(mu, 1e-300);
    ASSERT_TRUE(std::isfinite(eps)) << mu;
    EXPECT_LE(gaussian_pld_log_delta(mu, eps), std::log(1e-300)) << mu;
    EXPECT_GT(gaussian_pld_log_delta(mu, eps * (1.0 - 1e-12)), std::log(1e-300)) << mu;
  }
}

TEST(GaussianPld, HugeMuGivesTheTailQuantileInsteadOfFailing) {
  // σ/Δ = 1e-8 … 1e-12 (μ = 1/(2σ²) up to 5e23): ε + log Φ(−x−s) once cancelled to garbage and
  // sent the Mills integral into overflow (a Boost error, exit 70). Independent value: for μ this
  // large the second term of δ(ε) = Φ(−x) − e^ε Φ(−x−s) is φ(x)/(x+s) ≈ 5e-13·δ, so ε(δ) is the
  // quantile ε = μ + √(2μ)·z with Φ(−z) = δ; z for δ = 1e-5 is Python's
  // −statistics.NormalDist().inv_cdf(1e-5).
  const double z = 4.2648907939228256;
  for (double mu : {5e15, 5e19, 5e21, 5e23}) {
    const double expected = mu + std::sqrt(2.0 * mu) * z;
    EXPECT_NEAR(gaussian_pld_epsilon(mu, 1e-5), expected, 1e-13 * expected) << mu;
  }
  // Where the stable form takes over (ε = 1024) the two forms agree: δ does not jump there.
  for (double mu : {300.0, 1024.0, 3000.0}) {
    const double below = gaussian_pld_log_delta(mu, std::nextafter(1024.0, 0.0));
    const double at = gaussian_pld_log_delta(mu, 1024.0);
    EXPECT_NEAR(below, at, 1e-9 * std::max(1.0, std::abs(at))) << mu;
  }
}

TEST(GaussianPld, DeltaDecreasingInEpsilonAndIncreasingInCompositions) {
  const GaussianPldAccountant accountant;
  for (double sigma : {0.5, 2.0, 30.0}) {
    double previous_eps = 0.0;
    for (std::uint64_t k : {1u, 2u, 10u, 100u, 10000u}) {
      const std::vector<PrivacyEvent> events{gaussian(sigma, 1.0, k)};
      const auto profile = accountant.compose(events);
      double previous = 2.0;
      for (double eps = 0.0; eps < 50.0; eps += 0.25) {
        const double d = profile->delta(eps);
        EXPECT_LE(d, previous) << "sigma=" << sigma << " k=" << k << " eps=" << eps;
        previous = d;
      }
      const double eps = profile->epsilon(1e-6);
      EXPECT_GT(eps, previous_eps) << "sigma=" << sigma << " k=" << k;
      previous_eps = eps;
    }
  }
}

TEST(GaussianPld, HeterogeneousEventsAddTheirMu) {
  // μ = Σ count·Δ²/(2σ²): 3·1/(2·4) + 2·(0.5)²/(2·1) = 0.375 + 0.25.
  const std::vector<PrivacyEvent> events{gaussian(2.0, 1.0, 3), gaussian(1.0, 0.5, 2)};
  EXPECT_NEAR(gaussian_pld_mu(events), 0.625, 1e-15);
}

TEST(GaussianPld, EpsilonInvertsDeltaAndMaxMuInvertsInMu) {
  for (double mu : {1e-4, 0.3, 7.0}) {
    for (double delta : {0.1, 1e-5, 1e-12, 1e-100}) {
      const double eps = gaussian_pld_epsilon(mu, delta);
      if (gaussian_pld_delta(mu, 0.0) <= delta) {  // e.g. μ = 1e-4: δ(0) ≈ 0.0056 < 0.1
        EXPECT_EQ(eps, 0.0);
        continue;
      }
      EXPECT_NEAR(gaussian_pld_log_delta(mu, eps), std::log(delta),
                  1e-9 * std::abs(std::log(delta)));
      const double mu_back = gaussian_pld_max_mu(eps, delta);
      EXPECT_NEAR(mu_back, mu, 1e-9 * mu);
      EXPECT_LE(gaussian_pld_log_delta(mu_back, eps), std::log(delta));  // certified side
    }
  }
}

TEST(GaussianPld, RejectsWhatItCannotInterpret) {
  const GaussianPldAccountant accountant;
  PrivacyEvent sub = gaussian(1.0);
  sub.mechanism = Mechanism::subsampled_gaussian;
  sub.sampling = Sampling::poisson;
  sub.sampling_rate = 0.01;
  std::vector<PrivacyEvent> events{gaussian(1.0), sub};
  EXPECT_THROW(accountant.compose(events), ConfigError);
  events[1] = gaussian(1.0, 1.0, 1, Neighbouring::substitute);  // mixed relations
  EXPECT_THROW(accountant.compose(events), ConfigError);
  events[1] = gaussian(-1.0);
  EXPECT_THROW(accountant.compose(events), ConfigError);
  EXPECT_THROW(gaussian_pld_epsilon(1.0, 0.0), ConfigError);
  EXPECT_THROW(gaussian_pld_epsilon(1.0, 1.0), ConfigError);
  EXPECT_THROW(gaussian_pld_log_delta(1.0, -1.0), ConfigError);
  // q = 1 Poisson is the plain Gaussian mechanism.
  sub.sampling_rate = 1.0;
  EXPECT_TRUE(accountant.supports(sub));
}

TEST(GaussianPld, EmptyCompositionSpendsNothing) {
  const auto profile = GaussianPldAccountant().compose({});
  EXPECT_EQ(profile->epsilon(1e-5), 0.0);
  EXPECT_EQ(profile->delta(0.0), 0.0);
}

}  // namespace
}  // namespace dpmcmc
