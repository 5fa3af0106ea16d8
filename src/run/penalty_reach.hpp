// How far the budget lets a chain of the penalty family (dp-penalty, its OCU and GWMH proposals)
// or DP HMC move, whatever its length: the a-priori reason why these samplers sit at their start
// on a user's regression (issue 60), computed from public inputs only.
//
// The penalty test ([Yildirim2020] Algorithm 1) releases Σᵢ clip(ℓᵢ(θ′) − ℓᵢ(θ)) with per-row bound
// b‖θ′ − θ‖ and Gaussian noise of sd σ = m·2b‖θ′ − θ‖ (m the noise multiplier τ·n^α, 2b‖Δθ‖ the
// substitute sensitivity), and accepts with probability min(1, exp(Δℓ̂ − σ²/2)). Near the
// posterior (Δℓ ≈ 0) a move of sd σ is accepted with probability 2Φ(−σ/2), so the expected
// squared move per iteration is at most
//   max_σ σ²·2Φ(−σ/2) / (2bm)² = κ / (4b²m²),   κ = 1.32573 (at σ ≈ 2.38),
// and over K iterations Σ‖Δθ‖² ≤ K·κ/(4b²m²). Each release adds 1/(2m²) to the mean μ of the
// Gaussian privacy-loss distribution (privacy/gaussian_pld.hpp; the mean of N(μ, 2μ)); M chains
// of K iterations compose to μ = MK/(2m²) ≤ μ_max(ε, δ), so
//   travel T = √(Σ‖Δθ‖²) ≤ √(κ·μ_max/(2M)) / b   per chain, whatever n and K
// (= √κ·μ_G/(2b√M) in the Gaussian-DP parameter μ_G = √(2μ_max)).
// A random walk's effective draws in coordinate j are about Σ Δθⱼ² / (2 sⱼ²) (an integrated
// autocorrelation time of at least 2sⱼ²/E[Δθⱼ²]), so with coefficient j's posterior sd at least
// sⱼ, the coordinate that mixes worst makes at most T² / (2 Σⱼ sⱼ²) = T² / (2 d s²) effective
// draws (the smallest of d numbers is at most their weighted mean), s the root mean square of
// the sⱼ: the rows' Fisher information bounds (models/user_model.hpp, user_model_sd_floors). DP
// HMC's accept test is the same release ([RaisaKoskelaHonkela2021] Algorithm 1), and its gradient
// releases only take from μ_max, so the bound holds for it. A drift far from the posterior (Δℓ ≫ 1)
// can carry a chain further than T; in the posterior's bulk it cannot, so the bound is on
// exploring, not on arriving.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "models/glm.hpp"
#include "privacy/budget.hpp"

namespace dpmcmc {

// max_σ σ²·2Φ(−σ/2): the largest expected squared penalty-test move, in units of 1/(2bm)².
// (1.32573…, rounded up: the bound stays an upper bound.)
inline constexpr double kPenaltyMoveEfficiency = 1.3258;

struct PenaltyReach {
  double travel;           // T: root-mean-square path length of one chain, rescaled coefficients
  double sd_floor;         // s: the root mean square of the coefficients' posterior sd bounds
  double draws_per_chain;  // T² / (2 d s²): an upper bound on the worst coordinate's draws
  // The n at which the bound reaches kReachDrawsNeeded at the same (ε, δ): the planner fills the
  // budget, so K/m² and T do not depend on n, while s² ∝ 1/n: the draws grow as n.
  double rows_needed;
};

// The effective draws per chain the convergence checks ask for (diagnostics, 100 per chain).
inline constexpr double kReachDrawsNeeded = 100.0;

// Of a run: K iterations per chain with noise multiplier m and per-row clip b per unit step.
PenaltyReach penalty_reach(std::size_t iterations, double noise_multiplier, double clip,
                           const GlmSpec& glm, std::size_t n);

// Of a budget, before the run: the noise that noise_from_budget chooses spends μ_max over
// `chains` chains, so T = √(κ·μ_max/(2M))/b with b the user model's default clip.
PenaltyReach penalty_reach(const GlmSpec& glm, std::size_t n, const Budget& budget, int chains);

// Whether `sampler` is one the bound applies to, and, from its parameters (tau or tau_l, clip or
// clip_l, alpha), the run's noise multiplier and clip; none for any other sampler.
std::optional<std::pair<double, double>> penalty_noise_and_clip(const std::string& sampler,
                                                                const nlohmann::json& params,
                                                                std::size_t n);

// One sentence: the travel, the floor and the draws, for advice and warnings.
std::string describe_reach(const PenaltyReach& reach, int chains);

// {travel, sd_floor, draws_per_chain, rows_needed}.
nlohmann::json reach_json(const PenaltyReach& reach);

}  // namespace dpmcmc
