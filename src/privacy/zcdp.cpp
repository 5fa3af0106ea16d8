#include "privacy/zcdp.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/error.hpp"
#include "privacy/event_checks.hpp"

namespace dpmcmc {
namespace {

void check_rho(double rho) {
  if (!(rho >= 0.0)) throw ConfigError(fmt::format("zCDP: ρ must be ≥ 0, got {}", rho));
}

}  // namespace

double zcdp_rho(std::span<const PrivacyEvent> events) {
  const ZcdpAccountant accountant;
  check_supported(accountant, events);
  check_single_relation(events, accountant.name());
  return gaussian_half_inverse_square_sum(events);
}

double zcdp_epsilon(double rho, double delta) {
  check_rho(rho);
  if (!(delta > 0.0 && delta < 1.0))
    throw ConfigError(fmt::format("zCDP ε(δ): δ must be in (0, 1), got {}", delta));
  return rho + 2.0 * std::sqrt(rho * -std::log(delta));
}

double zcdp_delta(double rho, double epsilon) {
  check_rho(rho);
  if (!(epsilon >= 0.0))
    throw ConfigError(fmt::format("zCDP δ(ε): ε must be ≥ 0, got {}", epsilon));
  if (rho == 0.0) return 0.0;
  if (epsilon <= rho) return 1.0;
  const double t = epsilon - rho;
  return std::exp(-t * t / (4.0 * rho));
}

double zcdp_rho_budget(double epsilon, double delta) {
  if (!(epsilon >= 0.0) || !std::isfinite(epsilon))
    throw ConfigError(fmt::format("zCDP budget: ε must be finite and ≥ 0, got {}", epsilon));
  if (!(delta > 0.0 && delta < 1.0))
    throw ConfigError(fmt::format("zCDP budget: δ must be in (0, 1), got {}", delta));
  const double L = -std::log(delta);
  const double r = std::sqrt(epsilon + L) + std::sqrt(L);
  return epsilon * epsilon / (r * r);
}

bool ZcdpAccountant::supports(const PrivacyEvent& e) const {
  if (e.mechanism == Mechanism::gaussian) return true;
  return e.mechanism == Mechanism::subsampled_gaussian && e.sampling == Sampling::poisson &&
         e.sampling_rate == 1.0;
}

std::unique_ptr<PrivacyProfile> ZcdpAccountant::compose(
    std::span<const PrivacyEvent> events) const {
  return std::make_unique<ZcdpProfile>(zcdp_rho(events));
}

}  // namespace dpmcmc
