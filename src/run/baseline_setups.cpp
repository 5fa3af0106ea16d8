// The non-private baselines' kernels from their hyperparameters (sampler_descriptors.hpp).
#include <fmt/format.h>

#include "core/error.hpp"

#include "run/sampler_descriptors.hpp"
#include "run/sampler_params.hpp"
#include "samplers/hmc.hpp"
#include "samplers/nuts.hpp"
#include "samplers/rwmh.hpp"
#include "samplers/tunamh.hpp"

namespace dpmcmc {

using nlohmann::json;

KernelFactory setup_rwmh(const std::string& sampler, const json& params, const Model& model,
                         const Dataset& data) {
  RwmhConfig config;
  config.scale = vector_param(params, sampler, "proposal_sd", model.dim());
  // The clipping study ([Raisa2021] Section 6.2): absent = the exact kernel.
  if (params.contains("clip")) config.clip = number_param(params, sampler, "clip");
  return [&model, &data, config](int) { return make_rwmh(model, data, config); };
}

KernelFactory setup_hmc(const std::string& sampler, const json& params, const Model& model,
                        const Dataset& data) {
  HmcConfig config;
  config.step_size = number_param(params, sampler, "step_size");
  config.steps = static_cast<int>(number_param(params, sampler, "steps"));
  if (params.contains("mass")) config.mass = vector_param(params, sampler, "mass", model.dim());
  if (bool_param(params, sampler, "randomized_step_size", false))
    config.jitter = StepJitter::halton;
  if (params.contains("clip")) config.clip = number_param(params, sampler, "clip");
  return [&model, &data, config](int) { return make_hmc(model, data, config); };
}

KernelFactory setup_nuts(const std::string& sampler, const json& params, const Model& model,
                         const Dataset& data) {
  NutsConfig config;
  // The preset's HMC step is a start; with --adapt true (the default) warmup tunes it.
  config.step_size = number_param(params, sampler, "step_size", config.step_size);
  if (params.contains("mass")) config.mass = vector_param(params, sampler, "mass", model.dim());
  if (params.contains("max_depth")) {
    const std::uint64_t depth = count_param(params, sampler, "max_depth");
    if (depth > 30) {
      throw UsageError(fmt::format("--max-depth: got {}, expected an integer in [1, 30]", depth));
    }
    config.max_depth = static_cast<int>(depth);
  }
  return [&model, &data, config](int) { return make_nuts(model, data, config); };
}

KernelFactory setup_tunamh(const std::string& sampler, const json& params, const Model& model,
                           const Dataset& data) {
  TunaMhConfig config;
  config.scale = vector_param(params, sampler, "proposal_sd", model.dim());
  config.lambda = number_param(params, sampler, "lambda", config.lambda);
  return [&model, &data, config](int) { return make_tunamh(model, data, config); };
}

}  // namespace dpmcmc
