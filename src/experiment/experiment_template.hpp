// The per-iteration release template of a private sampler on a model preset, as the sampling job
// plans it: from the private sampler registry (run/private_samplers.hpp) when the sampler is
// registered, so that an accounting experiment tabulates exactly what `dpmcmc sample` would
// plan. DP HMC falls back to the thesis' template (privacy/iteration_templates.hpp) with the
// preset's τ_l, τ_g and L while it is not registered.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/presets.hpp"
#include "privacy/privacy_event.hpp"

namespace dpmcmc {

// Whether release_template can build a template for `sampler`.
bool has_release_template(const std::string& sampler);

// The template of one iteration of `sampler` with hyperparameters `params` (preset defaults
// already merged with the overrides) on `preset`'s model with n rows. UsageError/ConfigError
// from the sampler's setup for missing or invalid hyperparameters.
std::vector<PrivacyEvent> release_template(const std::string& sampler, const nlohmann::json& params,
                                           const Preset& preset, std::size_t n);

}  // namespace dpmcmc
