#include "run/noise_from_budget.hpp"

#include <cmath>
#include <vector>

#include "privacy/gaussian_pld.hpp"

namespace dpmcmc {

nlohmann::json noise_from_budget(const SamplerDescriptor& entry, const std::string& sampler,
                                 nlohmann::json params, const nlohmann::json& overrides,
                                 const Model& model, std::size_t n, const Budget& budget,
                                 int chains, std::size_t target_per_chain) {
  std::vector<std::string> keys;
  for (const char* key : {"tau", "tau_l", "tau_g"}) {
    if (overrides.contains(key)) return params;  // the caller chose the noise
    if (params.contains(key)) keys.emplace_back(key);
  }
  if (keys.empty() || !entry.is_private()) return params;
  const auto iteration = entry.build_private(sampler, params, model, n).per_iteration;
  for (const auto& e : iteration) {
    if (e.mechanism != Mechanism::gaussian || e.sampling != Sampling::none) return params;
  }
  const double mu_iteration = gaussian_pld_mu(iteration);
  // The accountants' share of δ (the discrete noise keeps a sliver: run/private_plan.hpp).
  const double mu_max = gaussian_pld_max_mu(budget.epsilon, budget.delta * (1.0 - 0x1p-10));
  if (!(mu_iteration > 0.0) || !(mu_max > 0.0)) return params;
  const double scale = std::sqrt(static_cast<double>(chains) *
                                 static_cast<double>(target_per_chain) * mu_iteration / mu_max);
  for (const auto& key : keys) params[key] = params[key].get<double>() * scale;
  return params;
}

}  // namespace dpmcmc
