// Job setup of the minibatch DP penalty (private_samplers.hpp; [Raisa2021] Section 3.4):
// one subsampled Gaussian release per iteration (without replacement, substitute
// relation, q = b/n, noise multiplier √τ), which the kernel records with the same q and
// multiplier, so planned and recorded spends agree.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

#include "models/model.hpp"
#include "run/private_samplers.hpp"

namespace dpmcmc {

// Samplers "dp-penalty-minibatch" (full random walk), "dp-penalty-minibatch-ocu" (one
// component) and "dp-penalty-minibatch-gwmh" (guided walk on one component). Parameters:
// proposal_sd (number or dim numbers), tau, clip, batch_size (whole number; --batch).
// UsageError for a missing or malformed parameter, ConfigError for a value out of range
// (τ, L ≤ 0; b > n naming --batch and n).
PrivateSamplerSetup setup_dp_penalty_minibatch(const std::string& sampler,
                                               const nlohmann::json& params, const Model& model,
                                               std::size_t n);

}  // namespace dpmcmc
