#include "privacy/fastmh_guarantee.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <boost/math/special_functions/gamma.hpp>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "privacy/composition.hpp"
#include "privacy/event_names.hpp"
#include "privacy/gaussian_calibration.hpp"

namespace dpmcmc {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// 1 − (1 − q)^B without cancellation.
double hit_probability(double q, std::uint64_t draws) {
  if (draws == 0 || q <= 0.0) return 0.0;
  if (q >= 1.0) return 1.0;
  return -std::expm1(static_cast<double>(draws) * std::log1p(-q));
}

// log C(B, k) + k log q + (B − k) log(1 − q).
double log_binomial_pmf(std::uint64_t draws, std::uint64_t k, double q) {
  const double b = static_cast<double>(draws), kk = static_cast<double>(k);
  return boost::math::lgamma(b + 1.0) - boost::math::lgamma(kk + 1.0) -
         boost::math::lgamma(b - kk + 1.0) + kk * std::log(q) + (b - kk) * std::log1p(-q);
}

}  // namespace

double fastmh_minibatch_sensitivity(double total_bound, double distance, double lambda) {
  return 2.0 * std::log1p(total_bound * distance / lambda);
}

double fastmh_fullbatch_sensitivity(double row_bound, double distance) {
  return 2.0 * row_bound * distance;
}

double fastmh_amplified_epsilon(double inner_epsilon, double hit_rate, std::uint64_t draws) {
  const double g = hit_probability(hit_rate, draws);
  if (g == 0.0) return 0.0;
  return std::log1p(g * std::expm1(inner_epsilon));
}

double fastmh_inner_epsilon(double epsilon, double hit_rate, std::uint64_t draws) {
  const double g = hit_probability(hit_rate, draws);
  if (g == 0.0) return kInf;
  return std::log1p(std::expm1(epsilon) / g);
}

double fastmh_amplified_delta(double inner_epsilon, double noise_multiplier, double hit_rate,
                              std::uint64_t draws) {
  if (draws == 0 || hit_rate <= 0.0) return 0.0;
  if (hit_rate >= 1.0)
    return analytic_gaussian_delta(static_cast<double>(draws), noise_multiplier, inner_epsilon);
  const double q = hit_rate;
  double sum = 0.0;
  for (std::uint64_t k = 1; k <= draws; ++k) {
    const double log_w = log_binomial_pmf(draws, k, q);
    const double w = std::exp(log_w);
    const double dg =
        analytic_gaussian_delta(static_cast<double>(k), noise_multiplier, inner_epsilon);
    sum += w * std::min(1.0, dg);
    // Past the mode the pmf ratio r_k = (B − k)q / ((k + 1)(1 − q)) decreases, so the tail
    // Σ_{j>k} pmf(j) ≤ pmf(k)·r_k/(1 − r_k). Stop once that bound (counted with δ_G = 1) is
    // negligible against the sum and add it: the result stays an upper bound.
    const double r = static_cast<double>(draws - k) * q / (static_cast<double>(k + 1) * (1.0 - q));
    if (r < 0.5) {
      const double tail = w * r / (1.0 - r);
      if (tail <= 1e-12 * sum || tail < 1e-300) {
        sum += tail;
        break;
      }
    }
  }
  return std::min(1.0, sum);
}

double fastmh_free_fullbatch_delta(double sensitivity) {
  return -std::expm1(-sensitivity);
}

double fastmh_free_minibatch_delta(double sensitivity, double hit_rate, std::uint64_t draws) {
  if (draws == 0) return 0.0;
  const double per_draw = hit_rate * -std::expm1(-sensitivity);  // q(1 − e^{−Δ1})
  if (per_draw >= 1.0) return 1.0;
  return -std::expm1(static_cast<double>(draws) * std::log1p(-per_draw));
}

FastMhCalibration calibrate_fastmh(double epsilon, double delta, std::size_t n,
                                   std::uint64_t max_batch) {
  if (!(epsilon > 0.0) || !std::isfinite(epsilon)) {
    throw ConfigError(fmt::format(
        "dp-fast-mh: epsilon (the per-iteration ε) must be finite and > 0, got {}", epsilon));
  }
  if (!(delta > 0.0 && delta < 1.0)) {
    throw ConfigError(
        fmt::format("dp-fast-mh: delta (the per-iteration δ) must be in (0, 1), got {}", delta));
  }
  if (n == 0) throw ConfigError("dp-fast-mh: the dataset has no rows (n = 0)");
  if (max_batch < 1) {
    throw ConfigError(fmt::format(
        "dp-fast-mh: max_batch (K, the batch-size cap) must be a whole number >= 1, got {}",
        max_batch));
  }
  FastMhCalibration c;
  c.epsilon = epsilon;
  c.delta = delta;
  c.n = n;
  c.max_batch = max_batch;
  c.hit_rate = fastmh_hit_rate(n);
  c.fullbatch_multiplier = analytic_gaussian_sigma(1.0, epsilon, delta);
  const std::uint64_t worst = max_batch - 1;  // the largest B of the minibatch branch
  c.inner_epsilon = fastmh_inner_epsilon(epsilon, c.hit_rate, worst);
  if (worst == 0) {
    c.minibatch_multiplier = 0.0;  // B = 0: no row is read, nothing to hide
    return c;
  }
  const auto delta_at = [&](double nu) {
    return fastmh_amplified_delta(c.inner_epsilon, nu, c.hit_rate, worst);
  };
  double hi = 1.0;
  while (delta_at(hi) > delta) {
    hi *= 2.0;
    if (hi > 1e12) {
      throw ConfigError(fmt::format(
          "dp-fast-mh: no noise level gives (ε = {}, δ = {}) per iteration with K = {} and "
          "n = {}",
          epsilon, delta, max_batch, n));
    }
  }
  double lo = hi / 2.0;
  while (lo > 1e-12 && delta_at(lo) <= delta) {
    hi = lo;
    lo /= 2.0;
  }
  while (hi / lo > 1.0 + 1e-9) {
    const double mid = std::sqrt(lo * hi);
    (delta_at(mid) <= delta ? hi : lo) = mid;
  }
  c.minibatch_multiplier = hi;  // the safe side
  return c;
}

std::vector<PrivacyEvent> fastmh_template(double epsilon, double delta) {
  PrivacyEvent e;
  e.mechanism = Mechanism::approximate_dp;
  e.epsilon = epsilon;
  e.delta = delta;
  e.relation = Neighbouring::substitute;
  e.sampling = Sampling::none;
  e.sampling_rate = 1.0;
  e.count = 1;
  e.kind = ReleaseKind::fastmh;
  return {e};
}

double fastmh_composed_epsilon(std::span<const PrivacyEvent> events, double delta_total) {
  ApproxDpSums sums;
  double max_eps = 0.0, max_delta = 0.0;
  std::uint64_t total = 0;
  for (const PrivacyEvent& e : events) {
    if (e.mechanism != Mechanism::approximate_dp) {
      throw ConfigError(
          fmt::format("dp-fast-mh composition: event {} is not approximate_dp", describe(e)));
    }
    sums.add(e.epsilon, e.delta, e.count);
    max_eps = std::max(max_eps, e.epsilon);
    max_delta = std::max(max_delta, e.delta);
    total += e.count;
  }
  if (total == 0) return 0.0;
  double eps = composed_epsilon_basic_advanced(sums, delta_total);
  if (total <= kOptimalCompositionMaxK) {
    eps = std::min(eps,
                   OptimalHomogeneousComposition(max_eps, max_delta, total).epsilon(delta_total));
  }
  return eps;
}

}  // namespace dpmcmc
