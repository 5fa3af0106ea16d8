// zCDP accountant: conversion formulas, comparison with the tight PLD, and the thesis' iteration
// formulas (Theorems 3.1 and 4.2) against the generic planner.
#include "privacy/zcdp.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/error.hpp"
#include "privacy/gaussian_pld.hpp"
#include "privacy/iteration_templates.hpp"
#include "privacy/planner.hpp"
#include "privacy/zcdp_iterations.hpp"

namespace dpmcmc {
namespace {

PrivacyEvent gaussian(double sigma, double sensitivity = 1.0, std::uint64_t count = 1) {
  PrivacyEvent e;
  e.sensitivity = sensitivity;
  e.noise_sd = sigma;
  e.count = count;
  return e;
}

TEST(Zcdp, RhoAndConversion) {
  // ρ = Σ count·Δ²/(2σ²) = 10·4/(2·16) = 1.25.
  const std::vector<PrivacyEvent> events{gaussian(4.0, 2.0, 10)};
  EXPECT_DOUBLE_EQ(zcdp_rho(events), 1.25);
  const auto profile = ZcdpAccountant().compose(events);
  // ε = ρ + 2√(ρ ln(1/δ)) written out for δ = 1e-5.
  EXPECT_NEAR(profile->epsilon(1e-5), 1.25 + 2.0 * std::sqrt(1.25 * std::log(1e5)), 1e-13);
  // δ(ε) inverts ε(δ).
  for (double delta : {0.3, 1e-5, 1e-100}) {
    EXPECT_NEAR(std::log(profile->delta(profile->epsilon(delta))), std::log(delta),
                1e-12 * std::abs(std::log(delta)));
  }
  EXPECT_EQ(profile->delta(1.0), 1.0);  // ε ≤ ρ: no guarantee
}

TEST(Zcdp, RhoBudgetIsTheInverseOfTheConversion) {
  // Theorem 3.1's ρ = (√(ε − ln δ) − √(−ln δ))², evaluated naively here (fine at these values).
  for (double eps : {0.1, 1.0, 6.0, 100.0}) {
    for (double delta : {0.1, 1e-6, 1e-30}) {
      const double naive =
          std::pow(std::sqrt(eps - std::log(delta)) - std::sqrt(-std::log(delta)), 2);
      const double rho = zcdp_rho_budget(eps, delta);
      EXPECT_NEAR(rho, naive, 1e-10 * naive);
      EXPECT_NEAR(zcdp_epsilon(rho, delta), eps, 1e-12 * eps);
    }
  }
}

TEST(Zcdp, NeverTighterThanThePld) {
  // The PLD bound is tight for Gaussian compositions, so any other certified bound is ≥ it.
  const ZcdpAccountant zcdp;
  const GaussianPldAccountant pld;
  for (double sigma : {0.3, 1.0, 5.0, 100.0}) {
    for (std::uint64_t k : {1u, 10u, 1000u, 100000u}) {
      const std::vector<PrivacyEvent> events{gaussian(sigma, 1.0, k),
                                             gaussian(2.0 * sigma, 1.0, 3)};
      const auto a = zcdp.compose(events), b = pld.compose(events);
      for (double delta : {0.1, 1e-5, 1e-12}) EXPECT_GE(a->epsilon(delta), b->epsilon(delta));
      for (double eps : {0.1, 1.0, 10.0}) EXPECT_GE(a->delta(eps), b->delta(eps));
    }
  }
}

TEST(Zcdp, SubsampledEventsAreNotSupported) {
  PrivacyEvent e = gaussian(1.0);
  e.mechanism = Mechanism::subsampled_gaussian;
  e.sampling = Sampling::poisson;
  e.sampling_rate = 0.1;
  const std::vector<PrivacyEvent> events{e};
  EXPECT_THROW(ZcdpAccountant().compose(events), ConfigError);
}

// [Raisa2021] Theorem 3.1 against the planner with the zCDP accountant: the flat
// 2-d banana DP penalty (n = 1e5, δ = 0.1/n, τ = 0.1; docs/references.md) and other τ, n.
TEST(ZcdpIterations, Theorem31MatchesThePlanner) {
  const ZcdpAccountant zcdp;
  for (double n : {1e4, 1e5, 2e5}) {
    for (double tau : {0.06, 0.1, 0.2}) {
      for (double eps : {1.0, 2.0, 3.0, 4.0, 5.0, 6.0}) {
        const double delta = 0.1 / n;
        const std::uint64_t k = dp_penalty_iterations_zcdp(eps, delta, tau, n);
        const auto plan = plan_iterations({eps, delta}, dp_penalty_template(tau, n), zcdp);
        EXPECT_EQ(plan.iterations, k) << "n=" << n << " tau=" << tau << " eps=" << eps;
      }
    }
  }
  // Theorem 3.1 written out: k = ⌊2τ²nρ⌋ at ε = 1, δ = 1e-6, τ = 0.1, n = 1e5:
  // ρ = (√(1 + ln 1e6) − √(ln 1e6))² = 0.0174689…, k = ⌊2000 ρ⌋ = ⌊34.94⌋ = 34.
  EXPECT_EQ(dp_penalty_iterations_zcdp(1.0, 1e-6, 0.1, 1e5), 34u);
}

// Theorem 4.2 against the planner, DP HMC presets of docs/references.md (τ_l, τ_g, L).
TEST(ZcdpIterations, Theorem42MatchesThePlanner) {
  struct Preset {
    double tau_l, tau_g;
    std::uint64_t L;
    double n;
  };
  const ZcdpAccountant zcdp;
  for (const Preset& p : {Preset{0.1, 0.4, 10, 1e5}, Preset{0.05, 0.2, 10, 2e5},
                          Preset{0.05, 0.10, 5, 2e5}, Preset{0.6, 1.9, 40, 1e5}}) {
    for (double eps : {1.0, 2.0, 4.0, 6.0, 10.0}) {
      const double delta = 0.1 / p.n;
      const std::uint64_t k = dp_hmc_iterations_zcdp(eps, delta, p.tau_l, p.tau_g, p.L, p.n);
      const auto plan =
          plan_iterations({eps, delta}, dp_hmc_template(p.tau_l, p.tau_g, p.L, p.n), zcdp);
      EXPECT_EQ(plan.iterations, k) << "tau_l=" << p.tau_l << " eps=" << eps;
    }
  }
}

TEST(ZcdpIterations, RejectsInvalidParameters) {
  EXPECT_THROW(dp_penalty_iterations_zcdp(0.0, 1e-6, 0.1, 1e5), ConfigError);
  EXPECT_THROW(dp_penalty_iterations_zcdp(1.0, 1.0, 0.1, 1e5), ConfigError);
  EXPECT_THROW(dp_penalty_iterations_zcdp(1.0, 1e-6, -0.1, 1e5), ConfigError);
  EXPECT_THROW(dp_hmc_iterations_zcdp(1.0, 1e-6, 0.1, 0.0, 10, 1e5), ConfigError);
}

}  // namespace
}  // namespace dpmcmc
