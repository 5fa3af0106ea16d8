#include "privacy/advanced_gaussian_accountant.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "privacy/composition.hpp"
#include "privacy/gaussian_calibration.hpp"
#include "privacy/gaussian_pld.hpp"
#include "test_events.hpp"

namespace dpmcmc {
namespace {

using test::gaussian_event;
using test::subsampled_event;

double compose_epsilon(const std::vector<PrivacyEvent>& events, double delta) {
  return AdvancedGaussianAccountant().compose(events)->epsilon(delta);
}

// One release: composition is the identity, so the optimised split reaches the analytic
// Gaussian mechanism's exact ε(δ) (Balle and Wang), up to the slack the split keeps (< 1e-9 δ).
TEST(AdvancedGaussian, OneReleaseIsTheAnalyticGaussian) {
  for (const double m : {0.5, 1.0, 3.0}) {
    const double expected = analytic_gaussian_epsilon(1.0, m, 1e-5);
    EXPECT_NEAR(compose_epsilon({gaussian_event(m, 1)}, 1e-5), expected, 1e-6 * expected) << m;
  }
}

// The quantity minimised, written out independently at a fixed split: per-release ε₀ by the
// analytic Gaussian at δ₀, then min(basic kε₀, advanced composition with slack δ − kδ₀).
TEST(AdvancedGaussian, SplitMatchesTheoremThreeWrittenOut) {
  const double m = 40.0, delta = 1e-6, d0 = 1e-10;
  const std::uint64_t k = 1000;
  const double eps0 = analytic_gaussian_epsilon(1.0, m, d0);
  const double expected = std::min(static_cast<double>(k) * eps0,
                                   advanced_composition_epsilon(eps0, k, delta - k * d0));
  AdvancedGaussianProfile profile({{m, k}});
  EXPECT_NEAR(profile.epsilon_at_split(d0, delta), expected, 1e-12 * expected);
  // The optimum is no worse than this split.
  EXPECT_LE(profile.epsilon(delta), expected * (1 + 1e-12));
}

// [Yildirim2020] Theorem 1 and its proof: with σ > c n^{−α}√(2β′ log n), β′ = 2α + β,
// k = ⌊k₀ n^{2α}/log n⌋ releases of sensitivity c n^{−α} are (ε, δ)-DP with
//   ε ≤ 2√(k₀β′β)·c/σ + 4k₀β′·c²/σ²,   δ ≤ 1.25 k₀ n^{−β}/log n + n^{−β}.
// Our optimised classical route must certify at most that ε at that δ, and no valid bound can be
// below the exact Gaussian PLD (the tight composition).
TEST(AdvancedGaussian, NeverAbovePaperTheoremOneNorBelowExactPld) {
  const double n = 1e5, alpha = 0.5, beta = 1.5, k0 = 0.05, c = 1.0;
  const double beta_p = 2 * alpha + beta;
  const double sigma = 1.01 * c * std::pow(n, -alpha) * std::sqrt(2 * beta_p * std::log(n));
  const auto k = static_cast<std::uint64_t>(std::floor(k0 * std::pow(n, 2 * alpha) / std::log(n)));
  const double multiplier = sigma / (c * std::pow(n, -alpha));
  const double paper_eps =
      2 * std::sqrt(k0 * beta_p * beta) * c / sigma + 4 * k0 * beta_p * c * c / (sigma * sigma);
  const double paper_delta = 1.25 * k0 * std::pow(n, -beta) / std::log(n) + std::pow(n, -beta);
  const double ours = compose_epsilon({gaussian_event(multiplier, k)}, paper_delta);
  EXPECT_LE(ours, paper_eps);
  const double tight =
      gaussian_pld_epsilon(static_cast<double>(k) / (2 * multiplier * multiplier), paper_delta);
  EXPECT_GE(ours, tight);
  // The classical route is loose: it should cost visibly more than the tight one here.
  EXPECT_GT(ours, 1.2 * tight);
}

TEST(AdvancedGaussian, HeterogeneousEventsBetweenTheirParts) {
  // DP HMC's shape: one log-likelihood release and L + 1 gradient releases per iteration.
  const std::vector<PrivacyEvent> both = {gaussian_event(30.0, 100), gaussian_event(60.0, 1100)};
  const double e_both = compose_epsilon(both, 1e-6);
  EXPECT_GT(e_both, compose_epsilon({both[0]}, 1e-6));
  EXPECT_GT(e_both, compose_epsilon({both[1]}, 1e-6));
  EXPECT_GE(e_both, gaussian_pld_epsilon(gaussian_pld_mu(both), 1e-6));
}

TEST(AdvancedGaussian, DeltaInvertsEpsilon) {
  const auto profile =
      AdvancedGaussianAccountant().compose(std::vector<PrivacyEvent>{gaussian_event(25.0, 500)});
  const double eps = profile->epsilon(1e-7);
  const double d = profile->delta(eps);
  EXPECT_GE(d, 1e-7 * (1 - 1e-6));
  EXPECT_LE(d, 1e-7 * (1 + 1e-3));
  EXPECT_LE(profile->epsilon(d), eps * (1 + 1e-9));
}

TEST(AdvancedGaussian, RefusesSubsampledEvents) {
  const AdvancedGaussianAccountant a;
  EXPECT_FALSE(a.supports(subsampled_event(Sampling::poisson, 0.01, 1.0, 10)));
  EXPECT_THROW(
      a.compose(std::vector<PrivacyEvent>{subsampled_event(Sampling::poisson, 0.01, 1.0, 10)}),
      ConfigError);
}

}  // namespace
}  // namespace dpmcmc
