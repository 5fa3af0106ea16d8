// Default noise for a user model's private run, chosen from its budget. With the fixed default
// τ = 0.3 a budget of ε = 1 on n = 500 rows bought one DP-penalty iteration per chain: the noise
// multiplier τ√n of every release is what the budget pays for, so it must scale with the budget.
//
// For a sampler whose iteration releases only unsubsampled Gaussian sums (the DP penalty family
// without minibatches, DP HMC, DP penalty for exponential families) k iterations compose to the
// Gaussian PLD with μ = k·μ₁ (privacy/gaussian_pld.hpp), and multiplying every noise scale of the
// iteration by s divides μ₁ by s². The budget allows μ_max(ε, δ) in total, so
//   s = √(chains · target · μ₁ / μ_max)
// makes the budget afford about `target` iterations per chain. The planner then plans the run
// as for any other setting (the discrete noise's share of δ may cost an iteration or two).
// Larger noise is not a loss in accuracy per unit of budget: warmup adaptation shrinks the
// proposal until the penalty's noise is of order one, so more, smaller steps replace fewer,
// larger ones (docs/decisions.md, "Noise from the budget").
//
// ε, δ, n, the chains and the template are public, so the chosen noise is public too; the scaled
// values are reported with the sampler's parameters (report.json "sampler").
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

#include "models/model.hpp"
#include "privacy/budget.hpp"
#include "run/sampler_descriptors.hpp"

namespace dpmcmc {

// The iterations per chain a user model's default noise aims at: 1000 warmup + 1000 kept with
// the default --warmup-fraction 0.5, as the non-private default.
inline constexpr std::size_t kBudgetTargetIterations = 2000;

// `params` with its noise scales (tau, tau_l, tau_g) multiplied by s above, unless the caller set
// one of them (`overrides`) or the sampler's iteration is not made of plain Gaussian releases
// (then `params` unchanged).
nlohmann::json noise_from_budget(const SamplerDescriptor& entry, const std::string& sampler,
                                 nlohmann::json params, const nlohmann::json& overrides,
                                 const Model& model, std::size_t n, const Budget& budget,
                                 int chains, std::size_t target_per_chain);

}  // namespace dpmcmc
