// Job setup of DP Barker (private_samplers.hpp; [Raisa2021] Section 3.3): one
// "barker_test" event per iteration (privacy/barker_accounting.hpp), which the release records
// identically, so planned and recorded spends agree; the "barker-rdp" accountant (Theorem 3.3)
// is registered here so that the planner can use it.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

#include "models/model.hpp"
#include "run/private_samplers.hpp"

namespace dpmcmc {

// Sampler "dp-barker". Parameters: proposal_sd (number or dim numbers), batch_size (whole
// number; --batch), noise_variance (--noise-variance, 1 < σ² < π²/3; default 2 when absent).
// Tempering comes from the model (T = n0/n; T = 1 on untempered presets, as in the thesis'
// Table 5.1). UsageError for a missing or malformed parameter, ConfigError for a value out of
// range (naming --batch, --noise-variance, n).
PrivateSamplerSetup setup_dp_barker(const std::string& sampler, const nlohmann::json& params,
                                    const Model& model, std::size_t n);

}  // namespace dpmcmc
