// How far the budget lets a penalty chain move (run/penalty_reach.hpp): the efficiency constant
// against a direct maximisation of the penalty test's expected squared move, the sd floor against
// the families' largest per-row information worked by hand, and the budget's travel against
// √κ·μ/(2b√M) with μ checked on the Gaussian PLD's closed form.
#include "run/penalty_reach.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "models/user_model.hpp"
#include "privacy/gaussian_pld.hpp"
#include "samplers/dp_penalty.hpp"

namespace dpmcmc {
namespace {

GlmSpec spec(GlmFamily family, int coefficients, double row_norm) {
  GlmSpec g;
  g.family = family;
  for (int j = 0; j < coefficients; ++j) g.coefficient_names.push_back(fmt::format("b{}", j));
  g.column_bounds.assign(static_cast<std::size_t>(coefficients), 1.0);
  g.row_norm_bound = row_norm;
  return g;
}

double phi(double x) {
  return 0.5 * std::erfc(-x / std::sqrt(2.0));
}

TEST(PenaltyReach, EfficiencyIsTheLargestExpectedSquaredMove) {
  // σ²·a(0, σ) with the sampler's own acceptance, on a grid fine enough for 4 digits.
  double best = 0.0, at = 0.0;
  for (double sigma = 0.001; sigma < 10.0; sigma += 0.001) {
    const double v = sigma * sigma * penalty_expected_acceptance(0.0, sigma);
    if (v > best) {
      best = v;
      at = sigma;
    }
  }
  EXPECT_NEAR(best, kPenaltyMoveEfficiency, 1e-4);
  EXPECT_NEAR(at, 2.38, 0.01);
}

TEST(PenaltyReach, SdFloorIsTheInverseOfTheLargestInformation) {
  const std::size_t n = 2500;  // √n = 50
  EXPECT_NEAR(user_model_sd_floors(spec(GlmFamily::logistic, 3, 1.0), n)[1], 2.0 / 50.0, 1e-12);
  // Probit: φ(0)² / (Φ(0)(1 − Φ(0))) = (1/2π)/(1/4) = 2/π.
  EXPECT_NEAR(user_model_sd_floors(spec(GlmFamily::probit, 3, 1.0), n)[2],
              1.0 / std::sqrt(n * 2.0 / std::numbers::pi), 1e-12);
  GlmSpec linear = spec(GlmFamily::linear, 3, 1.0);
  linear.sigma = 0.7;
  EXPECT_NEAR(user_model_sd_floors(linear, n)[0], 0.7 / 50.0, 1e-12);
  // A column kept in its own units on [−1000, 1000]: information up to n·¼·1000².
  GlmSpec wide = spec(GlmFamily::logistic, 2, 1000.0);
  wide.column_bounds = {1.0, 1000.0};
  const auto floors = user_model_sd_floors(wide, n);
  EXPECT_NEAR(floors[0], 2.0 / 50.0, 1e-12);
  EXPECT_NEAR(floors[1], 2.0 / (1000.0 * 50.0), 1e-15);
  // The draws bound the worse-mixing coordinate: T²/(2 Σ s_j²).
  const PenaltyReach r = penalty_reach(1000, 10.0, 1000.0, wide, n);
  EXPECT_NEAR(r.draws_per_chain,
              r.travel * r.travel / (2.0 * (floors[0] * floors[0] + floors[1] * floors[1])),
              1e-12 * r.draws_per_chain);
}

TEST(PenaltyReach, BudgetTravelIsIndependentOfRowsAndDrawsGrowAsRows) {
  const GlmSpec g = spec(GlmFamily::logistic, 6, std::sqrt(5.0));
  const Budget budget{1.0, 1e-5};
  // The PLD mean μ_max; the Gaussian-DP parameter μ_G = √(2μ_max) is the one whose
  // δ(ε) = Φ(−ε/μ_G + μ_G/2) − e^ε Φ(−ε/μ_G − μ_G/2) is the budget's δ.
  const double mu = std::sqrt(2.0 * gaussian_pld_max_mu(budget.epsilon, budget.delta));
  EXPECT_NEAR(phi(-1.0 / mu + mu / 2.0) - std::exp(1.0) * phi(-1.0 / mu - mu / 2.0), 1e-5, 1e-9);
  const double b = std::sqrt(5.0);  // logistic: L = 1, so the clip is R
  const PenaltyReach small = penalty_reach(g, 2000, budget, 4);
  const PenaltyReach large = penalty_reach(g, 200000, budget, 4);
  EXPECT_NEAR(small.travel, std::sqrt(1.32573) * mu / (2.0 * b * 2.0), 1e-4);
  EXPECT_DOUBLE_EQ(small.travel, large.travel);
  EXPECT_NEAR(small.sd_floor, 2.0 / std::sqrt(2000.0), 1e-12);
  EXPECT_NEAR(small.draws_per_chain,
              small.travel * small.travel / (2.0 * 6.0 * small.sd_floor * small.sd_floor), 1e-12);
  EXPECT_NEAR(large.draws_per_chain / small.draws_per_chain, 100.0, 1e-9);
  EXPECT_NEAR(small.rows_needed, 2000.0 * 100.0 / small.draws_per_chain, 1.0);
  // One chain gets the whole budget's reach: 4× the draws of each of four.
  EXPECT_NEAR(penalty_reach(g, 2000, budget, 1).draws_per_chain / small.draws_per_chain, 4.0, 1e-9);
  // A run at the noise the budget buys: m = √(M·K)/μ_G gives the same travel.
  const std::size_t k = 2000;
  const double m = std::sqrt(4.0 * k) / mu;
  EXPECT_NEAR(penalty_reach(k, m, b, g, 2000).travel, small.travel, 1e-12);
}

TEST(PenaltyReach, NoiseAndClipComeFromTheSamplersParameters) {
  const nlohmann::json penalty{{"tau", 0.5}, {"clip", 2.0}};
  const auto p = penalty_noise_and_clip("dp-penalty-ocu", penalty, 400);
  ASSERT_TRUE(p.has_value());
  EXPECT_DOUBLE_EQ(p->first, 0.5 * 20.0);  // τ·n^½
  EXPECT_DOUBLE_EQ(p->second, 2.0);
  const auto hmc = penalty_noise_and_clip("dp-hmc", {{"tau_l", 0.3}, {"clip_l", 3.0}}, 400);
  ASSERT_TRUE(hmc.has_value());
  EXPECT_DOUBLE_EQ(hmc->first, 0.3 * 20.0);
  EXPECT_DOUBLE_EQ(hmc->second, 3.0);
  EXPECT_FALSE(penalty_noise_and_clip("dp-sgld", penalty, 400).has_value());
  EXPECT_FALSE(penalty_noise_and_clip("dp-penalty-minibatch", penalty, 400).has_value());
}

}  // namespace
}  // namespace dpmcmc
