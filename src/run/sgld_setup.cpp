#include "run/sgld_setup.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "run/sampler_params.hpp"

namespace dpmcmc {

namespace {

BatchSpec batch_spec(const std::string& sampler, const nlohmann::json& params, std::size_t n) {
  BatchSpec spec;
  spec.sampling = BatchSampling::poisson;
  if (params.contains("batch_sampling")) {
    const nlohmann::json& s = params.at("batch_sampling");
    const std::string name = s.is_string() ? s.get<std::string>() : std::string();
    if (name == "poisson") {
      spec.sampling = BatchSampling::poisson;
    } else if (name == "without_replacement") {
      spec.sampling = BatchSampling::without_replacement;
    } else {
      throw UsageError(fmt::format(
          "sampler '{}': batch_sampling must be \"poisson\" or \"without_replacement\"", sampler));
    }
  }
  const double fallback = static_cast<double>(std::min<std::size_t>(1000, n));
  const double b = number_param(params, sampler, "batch_size", fallback);
  if (!(b >= 1.0) || b != std::floor(b) || b > static_cast<double>(n)) {
    throw ConfigError(fmt::format(
        "{}: --batch {} is invalid for n = {} rows, expected a whole number 1 <= b <= n", sampler,
        b, n));
  }
  spec.size = static_cast<std::size_t>(b);
  return spec;
}

// h = η₀/n (see sgld_setup.hpp); the η₀ check names the option before the division.
double kernel_step(const std::string& sampler, const nlohmann::json& params, std::size_t n) {
  const double eta0 = number_param(params, sampler, "step_size");
  if (!(eta0 > 0.0) || !std::isfinite(eta0)) {
    throw ConfigError(fmt::format("{}: --step-size must be finite and > 0, got {}", sampler, eta0));
  }
  return eta0 / static_cast<double>(n);
}

// The clip bound fixes the gradient batch's sensitivity: T·C under Poisson sampling (add/remove),
// 2·T·C without replacement (substitute), as PrivateData::grad_sum_batch records it.
double batch_sensitivity(const BatchSpec& batch, double temperature, double clip) {
  return (batch.sampling == BatchSampling::poisson ? 1.0 : 2.0) * temperature * clip;
}

}  // namespace

DpSgldConfig dp_sgld_config(const std::string& sampler, const nlohmann::json& params,
                            const Model& model, std::size_t n) {
  if (n == 0) throw ConfigError(fmt::format("{}: the dataset has no rows", sampler));
  DpSgldConfig c;
  c.step_size = kernel_step(sampler, params, n);
  c.clip = number_param(params, sampler, "clip");
  c.batch = batch_spec(sampler, params, n);
  check_sg_options(sampler, c.step_size, c.clip, c.batch, n);
  check_sg_multiplier(sampler,
                      sgld_noise_multiplier(c.step_size, c.batch, n, model.temperature(), c.clip));
  return c;
}

DpSgnhtConfig dp_sgnht_config(const std::string& sampler, const nlohmann::json& params,
                              const Model& model, std::size_t n) {
  if (n == 0) throw ConfigError(fmt::format("{}: the dataset has no rows", sampler));
  DpSgnhtConfig c;
  c.step_size = kernel_step(sampler, params, n);
  c.clip = number_param(params, sampler, "clip");
  c.diffusion = number_param(params, sampler, "A");
  c.batch = batch_spec(sampler, params, n);
  check_sg_options(sampler, c.step_size, c.clip, c.batch, n);
  if (!(c.diffusion > 0.0) || !std::isfinite(c.diffusion)) {
    throw ConfigError(fmt::format("{}: --thermostat (diffusion A) must be finite and > 0, got {}",
                                  sampler, c.diffusion));
  }
  check_sg_multiplier(sampler, sgnht_noise_multiplier(c.step_size, c.diffusion, c.batch, n,
                                                      model.temperature(), c.clip));
  return c;
}

PrivateSamplerSetup setup_dp_sgld(const std::string& sampler, const nlohmann::json& params,
                                  const Model& model, std::size_t n) {
  const DpSgldConfig c = dp_sgld_config(sampler, params, model, n);
  PrivateSamplerSetup setup;
  setup.per_iteration = sg_iteration_template(
      c.batch, n, sgld_noise_multiplier(c.step_size, c.batch, n, model.temperature(), c.clip));
  setup.sensitivity_caps[ReleaseKind::grad_batch] =
      batch_sensitivity(c.batch, model.temperature(), c.clip);
  setup.make_kernel = [&model, c](std::unique_ptr<PrivateData> data) {
    return std::make_unique<DpSgldKernel>(model, std::move(data), c);
  };
  return setup;
}

PrivateSamplerSetup setup_dp_sgnht(const std::string& sampler, const nlohmann::json& params,
                                   const Model& model, std::size_t n) {
  const DpSgnhtConfig c = dp_sgnht_config(sampler, params, model, n);
  PrivateSamplerSetup setup;
  setup.per_iteration = sg_iteration_template(
      c.batch, n,
      sgnht_noise_multiplier(c.step_size, c.diffusion, c.batch, n, model.temperature(), c.clip));
  setup.sensitivity_caps[ReleaseKind::grad_batch] =
      batch_sensitivity(c.batch, model.temperature(), c.clip);
  setup.make_kernel = [&model, c](std::unique_ptr<PrivateData> data) {
    return std::make_unique<DpSgnhtKernel>(model, std::move(data), c);
  };
  return setup;
}

}  // namespace dpmcmc
