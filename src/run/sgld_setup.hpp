// Job setup of DP-SGLD and DP-SGNHT (private_samplers.hpp). Parameters (the preset's "dp-sgld" /
// "dp-sgnht" defaults overridden by options; models/presets.hpp):
//   step_size (--step-size)  η₀, the DP HMC paper's step: PER ROW, see below
//   clip (--clip)            C, per-row gradient L2 bound
//   batch_size (--batch)     b, expected (Poisson) or exact (WOR) batch size; default min(1000, n)
//   A (--thermostat)         dp-sgnht only: diffusion A
//   batch_sampling (--batch-sampling)  "poisson" (default) or "without_replacement"
//
// STEP SIZE CONVENTION. The presets carry the step sizes of the DP HMC paper
// ([RaisaKoskelaHonkela2021] Section 4.1; docs/references.md: η = 0.008 for gauss-10d), which
// its authors' experiment code divides by n before use: the gradient of the full-data log
// posterior is multiplied by η₀/n. Read as a step in θ units, η = 0.008 on a posterior of
// precision ~n = 1e5 would diverge at once and give a noise multiplier m ≈ 0.015 (no iteration
// fits any budget). The job therefore uses the kernel step
//   h = η₀ / n
// (the Langevin step of DP-SGLD, Ding et al.'s h of DP-SGNHT), so that η₀ is comparable across
// data sizes (posterior precision grows like n). The kernels themselves (samplers/dp_sgld.hpp,
// dp_sgnht.hpp) take h. Deviation from the authors' code: their DP-SGLD update
// θ + e∇log π + N(0, e), e = η₀/n, has half the Langevin noise for its drift (it targets π², the
// posterior with halved variance for a Gaussian); ours is θ + (h/2)∇log π + N(0, h) with
// h = η₀/n (the correct Langevin step: same noise as theirs, half their drift).
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

#include "models/model.hpp"
#include "run/private_samplers.hpp"
#include "samplers/dp_sgld.hpp"
#include "samplers/dp_sgnht.hpp"

namespace dpmcmc {

// The kernel configurations from the parameters (h = step_size / n). UsageError for a missing
// or malformed key, ConfigError naming the option for a value out of range (the kernels' checks,
// run here so that they are reported before planning).
DpSgldConfig dp_sgld_config(const std::string& sampler, const nlohmann::json& params,
                            const Model& model, std::size_t n);
DpSgnhtConfig dp_sgnht_config(const std::string& sampler, const nlohmann::json& params,
                              const Model& model, std::size_t n);

// One iteration's template (sg_iteration_template with the kernel's multiplier) and a factory
// of the kernel; the kernel's recorded events carry the same multiplier, so planned = recorded.
PrivateSamplerSetup setup_dp_sgld(const std::string& sampler, const nlohmann::json& params,
                                  const Model& model, std::size_t n);
PrivateSamplerSetup setup_dp_sgnht(const std::string& sampler, const nlohmann::json& params,
                                   const Model& model, std::size_t n);

}  // namespace dpmcmc
