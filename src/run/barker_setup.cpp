#include "run/barker_setup.hpp"

#include <fmt/format.h>

#include <memory>
#include <mutex>

#include "core/error.hpp"
#include "privacy/barker_accounting.hpp"
#include "run/sampler_params.hpp"
#include "samplers/dp_barker.hpp"

namespace dpmcmc {

PrivateSamplerSetup setup_dp_barker(const std::string& sampler, const nlohmann::json& params,
                                    const Model& model, std::size_t n) {
  DpBarkerConfig c;
  c.scale = vector_param(params, sampler, "proposal_sd", model.dim());
  c.batch = static_cast<std::size_t>(count_param(params, sampler, "batch_size"));
  c.noise_variance = number_param(params, sampler, "noise_variance", 2.0);
  validate_barker(c.noise_variance, c.batch, n);
  const double t = model.temperature();
  if (!(t > 0.0 && t <= 1.0)) {
    throw ConfigError(fmt::format(
        "sampler '{}': the model's tempering T = n0/n is {} (n0 = {} for n = {}), expected n0 ≤ n",
        sampler, t, t * static_cast<double>(n), n));
  }
  PrivateSamplerSetup setup;
  setup.per_iteration = dp_barker_template(c.noise_variance, c.batch, n);
  // V_corr is fitted once per run, by the first chain that needs it (not when the setup only
  // plans, as `account` does), and shared by all chains.
  struct SharedFit {
    std::once_flag once;
    std::shared_ptr<const LogisticCorrection> fit;
  };
  auto shared = std::make_shared<SharedFit>();
  setup.make_kernel = [&model, c, shared](std::unique_ptr<PrivateData> data) {
    std::call_once(shared->once, [&] {
      shared->fit = std::make_shared<const LogisticCorrection>(c.noise_variance);
    });
    DpBarkerConfig config = c;
    config.correction = shared->fit;
    return std::make_unique<DpBarkerKernel>(model, std::move(data), std::move(config));
  };
  return setup;
}

}  // namespace dpmcmc
