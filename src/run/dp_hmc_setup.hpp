// Job setup of DP HMC (private_samplers.hpp): the preset's "dp-hmc" hyperparameters (tau_l,
// tau_g, steps, step_size, clip_l, clip_g, mass [, randomized_step_size]; models/presets.hpp)
// become the release template of one iteration — one "llr_sum" with multiplier τ_l√n and L + 1
// "grad_sum" with multiplier τ_g√n ([Raisa2021] Theorems 4.2–4.3) — and a factory
// of DpHmcKernel, whose recorded events carry the same multipliers, so planned = recorded.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

#include "models/model.hpp"
#include "run/private_samplers.hpp"
#include "samplers/dp_hmc.hpp"

namespace dpmcmc {

// The kernel configuration from the sampler's parameters: UsageError for a missing or malformed
// key (naming it), ConfigError for a value out of range (the kernel's checks, run here once so
// that a bad value is reported before planning).
DpHmcConfig dp_hmc_config(const std::string& sampler, const nlohmann::json& params,
                          const Model& model);

PrivateSamplerSetup setup_dp_hmc(const std::string& sampler, const nlohmann::json& params,
                                 const Model& model, std::size_t n);

}  // namespace dpmcmc
