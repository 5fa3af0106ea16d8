#include "privacy/composition.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <boost/math/special_functions/gamma.hpp>
#include <boost/math/tools/roots.hpp>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "core/numeric.hpp"

namespace dpmcmc {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace

void ApproxDpSums::add(double epsilon, double delta, std::uint64_t count) {
  const double c = static_cast<double>(count);
  sum_epsilon += c * epsilon;
  sum_epsilon_sq += c * epsilon * epsilon;
  sum_mean += c * epsilon * std::expm1(epsilon);
  sum_delta += c * delta;
}

double advanced_composition_epsilon(double epsilon, std::uint64_t k, double delta_prime) {
  if (!(epsilon >= 0.0) || !std::isfinite(epsilon))
    throw ConfigError(
        fmt::format("advanced composition: ε must be finite and ≥ 0, got {}", epsilon));
  if (!(delta_prime > 0.0 && delta_prime < 1.0))
    throw ConfigError(
        fmt::format("advanced composition: δ′ must be in (0, 1), got {}", delta_prime));
  const double kd = static_cast<double>(k);
  return std::sqrt(2.0 * kd * std::log(1.0 / delta_prime)) * epsilon +
         kd * epsilon * std::expm1(epsilon);
}

double composed_epsilon_basic_advanced(const ApproxDpSums& s, double delta_total) {
  if (!(delta_total > 0.0 && delta_total < 1.0))
    throw ConfigError(fmt::format("composition ε(δ): δ must be in (0, 1), got {}", delta_total));
  if (delta_total < s.sum_delta) return kInf;
  double best = s.sum_epsilon;  // basic composition, δ = Σδᵢ
  const double slack = delta_total - s.sum_delta;
  if (slack > 0.0)
    best = std::min(best, s.sum_mean + std::sqrt(2.0 * s.sum_epsilon_sq * -std::log(slack)));
  return best;
}

double composed_delta_basic_advanced(const ApproxDpSums& s, double epsilon) {
  if (!(epsilon >= 0.0))
    throw ConfigError(fmt::format("composition δ(ε): ε must be ≥ 0, got {}", epsilon));
  double best = 1.0;
  if (epsilon >= s.sum_epsilon) best = std::min(best, s.sum_delta);
  if (epsilon > s.sum_mean) {
    const double t = epsilon - s.sum_mean;
    best = std::min(best, s.sum_delta + std::exp(-t * t / (2.0 * s.sum_epsilon_sq)));
  }
  return best;
}

OptimalHomogeneousComposition::OptimalHomogeneousComposition(double epsilon, double delta,
                                                             std::uint64_t k)
    : epsilon_(epsilon), delta_(delta), k_(k) {
  if (!(epsilon >= 0.0) || !std::isfinite(epsilon))
    throw ConfigError(
        fmt::format("optimal composition: ε must be finite and ≥ 0, got {}", epsilon));
  if (!(delta >= 0.0 && delta < 1.0))
    throw ConfigError(fmt::format("optimal composition: δ must be in [0, 1), got {}", delta));
  if (k < 1 || k > kOptimalCompositionMaxK)
    throw ConfigError(fmt::format("optimal composition: k must be in [1, {}], got {}",
                                  kOptimalCompositionMaxK, k));
  const double kd = static_cast<double>(k);
  const double log_norm = kd * log_add_exp(0.0, epsilon);  // k log(1 + e^ε)
  const double lgk = boost::math::lgamma(kd + 1.0);
  log_weight_.resize(k / 2 + 1);
  for (std::uint64_t l = 0; l <= k / 2; ++l) {
    const double ld = static_cast<double>(l);
    const double log_choose =
        lgk - boost::math::lgamma(ld + 1.0) - boost::math::lgamma(kd - ld + 1.0);
    log_weight_[l] = log_choose + (kd - ld) * epsilon - log_norm;
  }
}

double OptimalHomogeneousComposition::log_pure_delta(double epsilon_g) const {
  // Terms with loss (k − 2ℓ)ε > ε_g, i.e. ℓ < (kε − ε_g)/(2ε); their weight times
  // (1 − e^{ε_g − (k−2ℓ)ε}) is positive, summed by a streaming log-sum-exp.
  if (epsilon_ == 0.0) return -kInf;
  const double kd = static_cast<double>(k_);
  double max_term = -kInf, scaled_sum = 0.0;
  for (std::uint64_t l = 0; l < log_weight_.size(); ++l) {
    const double loss = (kd - 2.0 * static_cast<double>(l)) * epsilon_;
    if (!(loss > epsilon_g)) break;  // losses decrease in ℓ
    const double term = log_weight_[l] + std::log(-std::expm1(epsilon_g - loss));
    if (term > max_term) {
      scaled_sum = scaled_sum * std::exp(max_term - term) + 1.0;
      max_term = term;
    } else {
      scaled_sum += std::exp(term - max_term);
    }
  }
  return max_term == -kInf ? -kInf : max_term + std::log(scaled_sum);
}

double OptimalHomogeneousComposition::delta(double epsilon_g) const {
  if (!(epsilon_g >= 0.0))
    throw ConfigError(fmt::format("optimal composition δ(ε): ε must be ≥ 0, got {}", epsilon_g));
  // 1 − (1 − δ)^k (1 − δ₀) = −expm1(k log1p(−δ) + log1p(−δ₀)).
  const double pure = std::exp(log_pure_delta(epsilon_g));
  const double d = -std::expm1(static_cast<double>(k_) * std::log1p(-delta_) + std::log1p(-pure));
  return std::clamp(d, 0.0, 1.0);
}

double OptimalHomogeneousComposition::epsilon(double delta_total) const {
  if (!(delta_total > 0.0 && delta_total < 1.0))
    throw ConfigError(
        fmt::format("optimal composition ε(δ): δ must be in (0, 1), got {}", delta_total));
  // δ₀ target from 1 − δ_total = (1 − δ)^k (1 − δ₀).
  const double pure_target =
      -std::expm1(std::log1p(-delta_total) - static_cast<double>(k_) * std::log1p(-delta_));
  const double kd = static_cast<double>(k_);
  if (pure_target < 0.0) return kInf;  // δ_total < 1 − (1 − δ)^k: not reachable at any ε
  if (pure_target == 0.0 || epsilon_ == 0.0) return kd * epsilon_;
  const double log_target = std::log(pure_target);
  if (log_pure_delta(0.0) <= log_target) return 0.0;
  // log δ₀ is continuous and strictly decreasing on [0, kε], and −∞ at kε: bisection (which only
  // uses signs) to a relative width of 2⁻⁴⁸ of the bracket.
  auto f = [&](double e) { return log_pure_delta(e) - log_target; };
  std::uintmax_t max_iter = 400;
  const auto root = boost::math::tools::bisect(
      f, 0.0, kd * epsilon_, boost::math::tools::eps_tolerance<double>(48), max_iter);
  return root.second;  // the side where δ₀ ≤ target
}

}  // namespace dpmcmc
