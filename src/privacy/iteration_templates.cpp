#include "privacy/iteration_templates.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/error.hpp"

namespace dpmcmc {
namespace {

void require_positive(double value, const char* name, const char* who) {
  if (!(value > 0.0) || !std::isfinite(value))
    throw ConfigError(fmt::format("{}: {} must be finite and > 0, got {}", who, name, value));
}

PrivacyEvent unit_release(double noise_multiplier, std::uint64_t count, ReleaseKind kind) {
  PrivacyEvent e;
  e.mechanism = Mechanism::gaussian;
  e.sensitivity = 1.0;
  e.noise_sd = noise_multiplier;
  e.sampling = Sampling::none;
  e.sampling_rate = 1.0;
  e.relation = Neighbouring::substitute;
  e.count = count;
  e.kind = kind;
  return e;
}

}  // namespace

std::vector<PrivacyEvent> dp_penalty_template(double tau, double n, double alpha) {
  constexpr const char* who = "DP penalty template";
  require_positive(tau, "τ", who);
  require_positive(n, "n", who);
  require_positive(alpha, "α", who);
  return {unit_release(tau * std::pow(n, alpha), 1, ReleaseKind::llr_sum)};
}

std::vector<PrivacyEvent> dp_hmc_template(double tau_l, double tau_g, std::uint64_t leapfrog_steps,
                                          double n) {
  constexpr const char* who = "DP HMC template";
  require_positive(tau_l, "τ_l", who);
  require_positive(tau_g, "τ_g", who);
  require_positive(n, "n", who);
  return {unit_release(tau_l * std::sqrt(n), 1, ReleaseKind::llr_sum),
          unit_release(tau_g * std::sqrt(n), leapfrog_steps + 1, ReleaseKind::grad_sum)};
}

std::vector<PrivacyEvent> noisy_statistics_template(double noise_multiplier) {
  require_positive(noise_multiplier, "z", "noisy sufficient statistics template");
  return {unit_release(noise_multiplier, 1, ReleaseKind::suff_stat)};
}

StagedNoise staged_noise(double noise_multiplier, std::uint64_t pilots, double share) {
  constexpr const char* who = "noisy sufficient statistics template";
  require_positive(noise_multiplier, "z", who);
  if (pilots == 0) return {0.0, noise_multiplier};
  if (!(share > 0.0 && share < 1.0))
    throw ConfigError(fmt::format("{}: the pilots' share must be in (0, 1), got {}", who, share));
  return {noise_multiplier * std::sqrt(static_cast<double>(pilots) / share),
          noise_multiplier / std::sqrt(1.0 - share)};
}

std::vector<PrivacyEvent> noisy_statistics_template(double noise_multiplier, std::uint64_t pilots,
                                                    double share) {
  const StagedNoise z = staged_noise(noise_multiplier, pilots, share);
  if (pilots == 0) return noisy_statistics_template(noise_multiplier);
  return {unit_release(z.pilot, pilots, ReleaseKind::suff_stat),
          unit_release(z.final, 1, ReleaseKind::suff_stat)};
}

}  // namespace dpmcmc
