#include "privacy/minibatch_templates.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/error.hpp"

namespace dpmcmc {

double minibatch_penalty_sensitivity(double n, double temperature, std::size_t batch,
                                     double bound) {
  const double b = static_cast<double>(batch);
  const double a = n * temperature / b;
  return 2.0 * a * bound + 2.0 * a * a * (b - 1.0) * bound * bound / b;
}

std::vector<PrivacyEvent> dp_penalty_minibatch_template(double tau, std::size_t batch,
                                                        std::size_t n) {
  constexpr const char* who = "minibatch DP penalty template";
  if (!(tau > 0.0) || !std::isfinite(tau))
    throw ConfigError(fmt::format("{}: τ must be finite and > 0, got {}", who, tau));
  if (n == 0 || batch == 0 || batch > n)
    throw ConfigError(
        fmt::format("{}: batch size {} is invalid for n = {} rows, expected 1 ≤ "
                    "batch size ≤ n",
                    who, batch, n));
  PrivacyEvent e;
  e.mechanism = Mechanism::subsampled_gaussian;
  e.sensitivity = 1.0;
  e.noise_sd = std::sqrt(tau);
  e.sampling = Sampling::without_replacement;
  e.sampling_rate = static_cast<double>(batch) / static_cast<double>(n);
  e.relation = Neighbouring::substitute;
  e.count = 1;
  e.kind = ReleaseKind::llr_batch;
  return {e};
}

}  // namespace dpmcmc
