#include "experiment/experiment_template.hpp"

#include "privacy/iteration_templates.hpp"
#include "run/private_samplers.hpp"
#include "run/sampler_descriptors.hpp"
#include "run/sampler_params.hpp"

namespace dpmcmc {

bool has_release_template(const std::string& sampler) {
  return find_private_sampler(sampler) != nullptr || sampler == "dp-hmc";
}

std::vector<PrivacyEvent> release_template(const std::string& sampler, const nlohmann::json& params,
                                           const Preset& preset, std::size_t n) {
  if (const SamplerDescriptor* entry = find_private_sampler(sampler)) {
    const auto model = preset.make_model();
    return entry->build_private(sampler, params, *model, n).per_iteration;
  }
  // [Raisa2021] Theorem 4.3: one llr release (τ_l√n) and L + 1 gradients (τ_g√n).
  return dp_hmc_template(number_param(params, sampler, "tau_l"),
                         number_param(params, sampler, "tau_g"),
                         count_param(params, sampler, "steps"), static_cast<double>(n));
}

}  // namespace dpmcmc
