#include "privacy/gaussian_calibration.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "privacy/gaussian_pld.hpp"

namespace dpmcmc {
namespace {

void check_sensitivity(double sensitivity, const char* who) {
  if (!(sensitivity > 0.0) || !std::isfinite(sensitivity))
    throw ConfigError(
        fmt::format("{}: sensitivity Δ must be finite and > 0, got {}", who, sensitivity));
}

void check_delta(double delta, const char* who) {
  if (!(delta > 0.0 && delta < 1.0))
    throw ConfigError(fmt::format("{}: δ must be in (0, 1), got {}", who, delta));
}

double mu_of(double sensitivity, double sigma, const char* who) {
  check_sensitivity(sensitivity, who);
  if (!(sigma > 0.0) || !std::isfinite(sigma))
    throw ConfigError(fmt::format("{}: σ must be finite and > 0, got {}", who, sigma));
  const double m = sigma / sensitivity;
  return 0.5 / (m * m);
}

}  // namespace

double classical_gaussian_sigma(double sensitivity, double epsilon, double delta) {
  constexpr const char* who = "classical Gaussian mechanism";
  check_sensitivity(sensitivity, who);
  check_delta(delta, who);
  if (!(epsilon > 0.0 && epsilon < 1.0))
    throw ConfigError(fmt::format(
        "{}: σ = Δ√(2 ln(1.25/δ))/ε is proven only for 0 < ε < 1 ([Yildirim2020] Theorem 2), "
        "got ε = {}; use the analytic Gaussian mechanism instead",
        who, epsilon));
  return sensitivity * std::sqrt(2.0 * std::log(1.25 / delta)) / epsilon;
}

double analytic_gaussian_sigma(double sensitivity, double epsilon, double delta) {
  constexpr const char* who = "analytic Gaussian mechanism";
  check_sensitivity(sensitivity, who);
  check_delta(delta, who);
  if (!(epsilon >= 0.0) || !std::isfinite(epsilon))
    throw ConfigError(fmt::format("{}: ε must be finite and ≥ 0, got {}", who, epsilon));
  // gaussian_pld_max_mu returns μ on the side where δ(ε; μ) ≤ δ, so σ = Δ/√(2μ) is on the safe
  // side too (up to the rounding of this one division).
  const double mu = gaussian_pld_max_mu(epsilon, delta);
  if (mu == 0.0)
    throw ConfigError(fmt::format("{}: no finite σ achieves ε = {}, δ = {}", who, epsilon, delta));
  return sensitivity / std::sqrt(2.0 * mu);
}

double analytic_gaussian_delta(double sensitivity, double sigma, double epsilon) {
  return gaussian_pld_delta(mu_of(sensitivity, sigma, "analytic Gaussian δ(ε)"), epsilon);
}

double analytic_gaussian_epsilon(double sensitivity, double sigma, double delta) {
  return gaussian_pld_epsilon(mu_of(sensitivity, sigma, "analytic Gaussian ε(δ)"), delta);
}

}  // namespace dpmcmc
