#include "privacy/zcdp_iterations.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/error.hpp"
#include "privacy/zcdp.hpp"

namespace dpmcmc {
namespace {

void require_positive(double value, const char* name, const char* who) {
  if (!(value > 0.0) || !std::isfinite(value))
    throw ConfigError(fmt::format("{}: {} must be finite and > 0, got {}", who, name, value));
}

std::uint64_t to_count(double k, const char* who) {
  if (!(k < 18446744073709551616.0))  // 2⁶⁴
    throw ConfigError(fmt::format("{}: the iteration count {} does not fit in 64 bits", who, k));
  return static_cast<std::uint64_t>(std::floor(k));
}

}  // namespace

std::uint64_t dp_penalty_iterations_zcdp(double epsilon, double delta, double tau, double n,
                                         double alpha) {
  constexpr const char* who = "DP penalty iterations (zCDP, Theorem 3.1)";
  require_positive(epsilon, "ε", who);
  require_positive(tau, "τ", who);
  require_positive(n, "n", who);
  require_positive(alpha, "α", who);
  const double rho = zcdp_rho_budget(epsilon, delta);
  return to_count(2.0 * tau * tau * std::pow(n, 2.0 * alpha) * rho, who);
}

std::uint64_t dp_hmc_iterations_zcdp(double epsilon, double delta, double tau_l, double tau_g,
                                     std::uint64_t leapfrog_steps, double n) {
  constexpr const char* who = "DP HMC iterations (zCDP, Theorem 4.2)";
  require_positive(epsilon, "ε", who);
  require_positive(tau_l, "τ_l", who);
  require_positive(tau_g, "τ_g", who);
  require_positive(n, "n", who);
  const double rho = zcdp_rho_budget(epsilon, delta);
  const double rho_l = 1.0 / (2.0 * tau_l * tau_l * n);
  const double rho_g = 1.0 / (2.0 * tau_g * tau_g * n);
  return to_count(rho / (rho_l + static_cast<double>(leapfrog_steps + 1) * rho_g), who);
}

}  // namespace dpmcmc
