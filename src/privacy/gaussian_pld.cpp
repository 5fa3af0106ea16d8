#include "privacy/gaussian_pld.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <boost/math/quadrature/exp_sinh.hpp>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <boost/math/tools/toms748_solve.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>

#include "core/error.hpp"
#include "core/numeric.hpp"
#include "privacy/event_checks.hpp"

namespace dpmcmc {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kLogSqrt2Pi = 0.91893853320467274178;  // ½ log(2π)

// When e^ε Φ(b)/Φ(a) > e^{-0.1} ≈ 0.905 the direct difference would lose more than ~3.4 bits
// (and all of them as the ratio → 1): switch to the Mills-ratio integral.
constexpr double kDirectMaxLogRatio = -0.1;

// log ∫₀^∞ e^{−u²/2 − xu}(1 − e^{−su}) du, a positive integrand (no cancellation). For x > 1 the
// integrand lives on the scale 1/x, so u = w/x maps it to the unit scale:
//   (1/x) ∫₀^∞ e^{−w − w²/(2x²)} (1 − e^{−sw/x}) dw.
// In the regime where it is used, x ≥ −s/2 with s small, so e^{−xu} cannot overflow.
// ∫₀^∞ f by exp_sinh (Boost.Math), made for [0, ∞) integrands with a smooth decay: about 2.5×
// fewer evaluations than adaptive Gauss–Kronrod at the same tolerance (the two agree to 4e-15 in
// log over x ∈ [−0.5, 200], s ∈ [1e-6, 3]). Its abscissa tables are built once per thread. When
// its own error estimate exceeds the tolerance, adaptive Gauss–Kronrod decides.
template <class F>
double integral_to_infinity(F f, double tol) {
  thread_local boost::math::quadrature::exp_sinh<double> integrator;
  double error = 0.0, l1 = 0.0;
  const double value = integrator.integrate(f, tol, &error, &l1);
  if (std::isfinite(value) && value > 0.0 && error <= tol * l1) return value;
  return boost::math::quadrature::gauss_kronrod<double, 31>::integrate(f, 0.0, kInf, 15, tol);
}

double log_mills_difference(double x, double s) {
  constexpr double tol = 1e-13;
  if (x > 1.0) {
    const double inv2x2 = 0.5 / (x * x);
    const double sx = s / x;
    auto f = [inv2x2, sx](double w) {
      return std::exp(-w - w * w * inv2x2) * -std::expm1(-sx * w);
    };
    return std::log(integral_to_infinity(f, tol)) - std::log(x);
  }
  auto f = [x, s](double u) { return std::exp(-0.5 * u * u - x * u) * -std::expm1(-s * u); };
  return std::log(integral_to_infinity(f, tol));
}

void check_mu(double mu) {
  if (!(mu >= 0.0)) throw ConfigError(fmt::format("Gaussian PLD: μ must be ≥ 0, got {}", mu));
}

void check_delta(double delta, const char* who) {
  if (!(delta > 0.0 && delta < 1.0))
    throw ConfigError(fmt::format("{}: δ must be in (0, 1), got {}", who, delta));
}

// Finite stand-in for log δ = −∞ so that the root finder's interpolation stays defined.
double finite(double v) {
  return std::max(v, -std::numeric_limits<double>::max());
}

}  // namespace

double gaussian_pld_mu(std::span<const PrivacyEvent> events) {
  const GaussianPldAccountant accountant;
  check_supported(accountant, events);
  check_single_relation(events, accountant.name());
  return gaussian_half_inverse_square_sum(events);
}

double gaussian_pld_log_delta(double mu, double epsilon) {
  check_mu(mu);
  if (!(epsilon >= 0.0))
    throw ConfigError(fmt::format("Gaussian PLD: ε must be ≥ 0, got {}", epsilon));
  if (mu == 0.0 || epsilon == kInf) return -kInf;
  if (mu == kInf) return 0.0;
  const double s = std::sqrt(2.0 * mu);
  const double x = epsilon / s - 0.5 * s;  // Φ(s/2 − ε/s) = Φ(−x)
  const double log_first = log_normal_cdf(-x);
  // log(e^ε Φ(−x−s)): above kLargeEpsilon the sum ε + log Φ(−x−s) cancels (both terms near μ;
  // at μ = 5e19 its error passed 1e4 nats and sent the Mills integral to x = −76, where e^{−xu}
  // overflowed). Since ε − (x+s)²/2 = −x²/2, it equals log φ(x) + log R(x+s) (R the Mills
  // ratio), which has no cancellation. Below the threshold the direct sum is kept, so the plans
  // of every ε a run can take keep their exact rounding.
  constexpr double kLargeEpsilon = 1024.0;
  const double log_second = epsilon < kLargeEpsilon
                                ? epsilon + log_normal_cdf(-x - s)
                                : -0.5 * x * x - kLogSqrt2Pi + log_mills_ratio(x + s);
  if (log_second - log_first < kDirectMaxLogRatio) return log_sub_exp(log_first, log_second);
  // δ = φ(x) · ∫₀^∞ e^{−u²/2 − xu}(1 − e^{−su}) du (Mills-ratio form, see the header).
  return -0.5 * x * x - kLogSqrt2Pi + log_mills_difference(x, s);
}

double gaussian_pld_delta(double mu, double epsilon) {
  return std::exp(gaussian_pld_log_delta(mu, epsilon));
}

double gaussian_pld_epsilon(double mu, double delta) {
  check_mu(mu);
  check_delta(delta, "Gaussian PLD ε(δ)");
  if (mu == 0.0) return 0.0;
  if (mu == kInf) return kInf;
  const double target = std::log(delta);
  auto f = [mu, target](double e) { return finite(gaussian_pld_log_delta(mu, e)) - target; };
  const double f0 = f(0.0);
  if (f0 <= 0.0) return 0.0;
  // The zCDP conversion μ + 2√(μ ln(1/δ)) bounds the tight ε from above (a Gaussian with this μ is
  // μ-zCDP), so it brackets the root; the loop only guards against rounding.
  double hi = mu + 2.0 * std::sqrt(mu * -target);
  double fhi = f(hi);
  while (fhi > 0.0) {
    hi = 2.0 * hi + 1.0;
    if (!std::isfinite(hi)) throw SoftwareError("Gaussian PLD ε(δ): no bracket found");
    fhi = f(hi);
  }
  if (fhi == 0.0) return hi;
  std::uintmax_t max_iter = 200;
  const auto root = boost::math::tools::toms748_solve(
      f, 0.0, hi, f0, fhi, boost::math::tools::eps_tolerance<double>(48), max_iter);
  // f is decreasing: the upper end of the bracket satisfies δ(ε) ≤ δ.
  return root.second;
}

double gaussian_pld_max_mu(double epsilon, double delta) {
  if (!(epsilon >= 0.0) || !std::isfinite(epsilon))
    throw ConfigError(
        fmt::format("Gaussian PLD μ(ε, δ): ε must be finite and ≥ 0, got {}", epsilon));
  check_delta(delta, "Gaussian PLD μ(ε, δ)");
  const double target = std::log(delta);
  // g(t) = log δ(ε; μ = e^t) − log δ, increasing in t.
  auto g = [epsilon, target](double t) {
    return finite(gaussian_pld_log_delta(std::exp(t), epsilon)) - target;
  };
  // Start from the zCDP budget ρ = (√(ε + L) − √L)², L = ln(1/δ), written without cancellation:
  // a μ-zCDP Gaussian satisfies the budget, so usually g(log ρ) ≤ 0 already.
  const double L = -target;
  const double rho = epsilon * epsilon / std::pow(std::sqrt(epsilon + L) + std::sqrt(L), 2);
  constexpr double kLowest = -690.0;  // μ = e^{-690} ≈ 1e-300
  double lo = rho > 0.0 ? std::max(std::log(rho), kLowest) : -30.0;
  double glo = g(lo);
  for (double step = 1.0; glo > 0.0; step *= 2.0) {
    if (lo <= kLowest) return 0.0;
    lo = std::max(lo - step, kLowest);
    glo = g(lo);
  }
  double hi = lo + 1.0;
  double ghi = g(hi);
  for (double step = 1.0; ghi <= 0.0; step *= 2.0) {
    if (hi > 709.0) return kInf;  // δ(ε; μ) → 1 as μ → ∞, so this is unreachable for δ < 1
    lo = hi;
    glo = ghi;
    hi += step;
    ghi = g(hi);
  }
  if (glo == 0.0) return std::exp(lo);
  std::uintmax_t max_iter = 200;
  const auto root = boost::math::tools::toms748_solve(
      g, lo, hi, glo, ghi, boost::math::tools::eps_tolerance<double>(48), max_iter);
  // g is increasing: the lower end satisfies δ(ε; μ) ≤ δ.
  return std::exp(root.first);
}

double GaussianPldProfile::epsilon(double delta) const {
  return gaussian_pld_epsilon(mu_, delta);
}

double GaussianPldProfile::delta(double epsilon) const {
  return gaussian_pld_delta(mu_, epsilon);
}

bool GaussianPldAccountant::supports(const PrivacyEvent& e) const {
  if (e.mechanism == Mechanism::gaussian) return true;
  // Poisson sampling with q = 1 includes every row: the plain Gaussian mechanism.
  return e.mechanism == Mechanism::subsampled_gaussian && e.sampling == Sampling::poisson &&
         e.sampling_rate == 1.0;
}

bool GaussianPldAccountant::exact(std::span<const PrivacyEvent> events) const {
  if (events.empty() ||
      !std::all_of(events.begin(), events.end(), [this](const auto& e) { return supports(e); }))
    return false;
  try {
    check_single_relation(events, name());  // mixed relations do not compose at all
  } catch (const ConfigError&) {
    return false;
  }
  return true;
}

std::unique_ptr<PrivacyProfile> GaussianPldAccountant::compose(
    std::span<const PrivacyEvent> events) const {
  return std::make_unique<GaussianPldProfile>(gaussian_pld_mu(events));
}

}  // namespace dpmcmc
