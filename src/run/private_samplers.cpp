#include "run/private_samplers.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "run/dp_hmc_setup.hpp"

namespace dpmcmc {

const std::vector<PrivateSamplerEntry>& private_samplers() {
  static const std::vector<PrivateSamplerEntry> entries = {
      {"dp-penalty", "DP penalty, Gaussian random walk (002 Section 3.1)", setup_dp_penalty},
      {"dp-penalty-ocu", "DP penalty, one-component updates (002 Section 3.1)", setup_dp_penalty},
      {"dp-penalty-gwmh", "DP penalty, guided walk on one component (002 Section 3.1)",
       setup_dp_penalty},
      {"dp-penalty-expfam", "penalty on noisy sufficient statistics (004 Algorithm 3)",
       setup_dp_penalty_expfam},
      {"dp-hmc", "DP Hamiltonian Monte Carlo, L + 1 noisy gradients (002 Algorithm 4)",
       setup_dp_hmc},
  };
  return entries;
}

const PrivateSamplerEntry* find_private_sampler(const std::string& name) {
  for (const auto& e : private_samplers()) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

ReleaseAllowance allowance_for(const std::vector<PrivacyEvent>& per_iteration,
                               std::uint64_t iterations) {
  ReleaseAllowance allowance;
  for (const auto& e : per_iteration) allowance[e.label] += e.count * iterations;
  return allowance;
}

}  // namespace dpmcmc
