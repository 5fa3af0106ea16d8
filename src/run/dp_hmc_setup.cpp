#include "run/dp_hmc_setup.hpp"

#include <fmt/format.h>

#include <limits>

#include "core/error.hpp"
#include "privacy/iteration_templates.hpp"
#include "run/sampler_params.hpp"

namespace dpmcmc {

DpHmcConfig dp_hmc_config(const std::string& sampler, const nlohmann::json& params,
                          const Model& model) {
  DpHmcConfig c;
  c.tau_l = number_param(params, sampler, "tau_l");
  c.tau_g = number_param(params, sampler, "tau_g");
  c.clip_l = number_param(params, sampler, "clip_l");
  c.clip_g = number_param(params, sampler, "clip_g");
  c.step_size = number_param(params, sampler, "step_size");
  const std::uint64_t steps = count_param(params, sampler, "steps");
  if (steps > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) {
    throw ConfigError(
        fmt::format("sampler '{}': steps (leapfrog steps L) must be at most {}, got {}", sampler,
                    std::numeric_limits<int>::max(), steps));
  }
  c.steps = static_cast<int>(steps);
  if (params.contains("mass")) c.mass = vector_param(params, sampler, "mass", model.dim());
  if (bool_param(params, sampler, "randomized_step_size", false)) c.jitter = StepJitter::halton;
  DpHmcSampler check(model, c);  // ConfigError naming the parameter
  return check.config();
}

PrivateSamplerSetup setup_dp_hmc(const std::string& sampler, const nlohmann::json& params,
                                 const Model& model, std::size_t n) {
  const DpHmcConfig c = dp_hmc_config(sampler, params, model);
  PrivateSamplerSetup setup;
  setup.per_iteration = dp_hmc_template(c.tau_l, c.tau_g, static_cast<std::uint64_t>(c.steps),
                                        static_cast<double>(n));
  // The gradient clip bound fixes each gradient release's sensitivity (substitute: 2·T·b_g).
  setup.sensitivity_caps[ReleaseKind::grad_sum] = 2.0 * model.temperature() * c.clip_g;
  setup.make_kernel = [&model, c](std::unique_ptr<PrivateData> data) {
    return std::make_unique<DpHmcKernel>(model, std::move(data), c);
  };
  return setup;
}

}  // namespace dpmcmc
