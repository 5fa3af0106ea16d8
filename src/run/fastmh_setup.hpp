// Job setup of DP-Fast MH (private_samplers.hpp; samplers/dp_fast_mh.hpp). Parameters:
//   proposal_sd   number or dim numbers (required)
//   epsilon       ε per iteration (required), delta: δ per iteration (required)
//   lambda        λ (default 10), max_batch: K (default 60)
//   full_batch    true/false (default false): the full-batch variant
//   free_branch   true/false (default false): "privacy for free" (see docs/dp-fast-mh.md)
//   row_bound     c̄ (default: the model's declared bound)
// The per-iteration template is one approximate_dp event (ε, δ), the worst case of every branch
// (the classical accountant composes it by advanced and optimal composition); the kernel records
// (ε, δ) for every noisy iteration and (0, δ_free ≤ δ) for a free one, so recorded ≤ planned.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

#include "models/model.hpp"
#include "run/private_samplers.hpp"
#include "samplers/dp_fast_mh.hpp"

namespace dpmcmc {

// UsageError for a missing or malformed key, ConfigError for a value out of range (K < 1,
// λ ≤ 0, ε ≤ 0, δ ∉ (0, 1), a model without a per-row bound), checked before planning.
DpFastMhConfig dp_fast_mh_config(const std::string& sampler, const nlohmann::json& params,
                                 const Model& model, std::size_t n);

PrivateSamplerSetup setup_dp_fast_mh(const std::string& sampler, const nlohmann::json& params,
                                     const Model& model, std::size_t n);

}  // namespace dpmcmc
