#include "privacy/rdp_conversion.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <boost/math/tools/minima.hpp>
#include <cmath>
#include <limits>

#include "core/error.hpp"

namespace dpmcmc {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::vector<double> checked_orders(std::span<const double> orders) {
  if (orders.empty()) throw ConfigError("RDP order grid is empty");
  std::vector<double> out(orders.begin(), orders.end());
  for (double a : out) {
    if (!(a > 1.0) || !std::isfinite(a))
      throw ConfigError(fmt::format("RDP orders must be finite and > 1, got {}", a));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// Minimises objective(α) over the grid, then by Brent's method between the grid neighbours of
// the best order. Non-finite objective values (an order where the curve overflows) are skipped.
RdpOptimum minimise_over_orders(const std::function<double(double)>& objective,
                                const std::vector<double>& orders, bool refine) {
  RdpOptimum best{kInf, 0.0};
  std::size_t best_i = 0;
  for (std::size_t i = 0; i < orders.size(); ++i) {
    const double v = objective(orders[i]);
    if (v < best.value) best = {v, orders[i]}, best_i = i;
  }
  best.at_grid_edge = best.value != kInf && (best_i == 0 || best_i + 1 == orders.size());
  if (!refine || best.value == kInf || orders.size() < 2) return best;
  const double lo = orders[best_i == 0 ? 0 : best_i - 1];
  const double hi = orders[std::min(best_i + 1, orders.size() - 1)];
  const auto r = boost::math::tools::brent_find_minima(
      [&](double a) {
        const double v = objective(a);
        return std::isnan(v) ? kInf : v;
      },
      lo, hi, 40);
  if (r.second < best.value) best.value = r.second, best.order = r.first;
  return best;
}

}  // namespace

const char* to_string(RdpConversion c) {
  return c == RdpConversion::classical ? "classical" : "improved (Canonne-Kamath-Steinke)";
}

double rdp_to_epsilon(double alpha, double rdp, double delta, RdpConversion conversion) {
  if (!(delta > 0.0 && delta < 1.0))
    throw ConfigError(fmt::format("δ must be in (0, 1), got {}", delta));
  if (rdp == kInf) return kInf;
  const double log_delta = std::log(delta);
  double eps;
  if (conversion == RdpConversion::classical) {
    eps = rdp - log_delta / (alpha - 1.0);
  } else {
    eps = rdp + std::log1p(-1.0 / alpha) - (log_delta + std::log(alpha)) / (alpha - 1.0);
  }
  return std::max(0.0, eps);
}

double rdp_to_log_delta(double alpha, double rdp, double epsilon, RdpConversion conversion) {
  if (!(epsilon >= 0.0) || std::isnan(epsilon))
    throw ConfigError(fmt::format("ε must be ≥ 0, got {}", epsilon));
  if (rdp == kInf) return 0.0;
  double ld = (alpha - 1.0) * (rdp - epsilon);
  if (conversion == RdpConversion::improved) {
    ld += (alpha - 1.0) * std::log(alpha - 1.0) - alpha * std::log(alpha);
  }
  return std::min(0.0, ld);
}

std::vector<double> default_rdp_orders() {
  std::vector<double> o{1.01, 1.02, 1.05, 1.1, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 2.75};
  for (double a = 3.0; a <= 8.0; a += 0.5) o.push_back(a);
  for (double a = 9.0; a <= 32.0; a += 1.0) o.push_back(a);
  for (double a : {36., 40., 48., 56., 64., 80., 96., 112., 128., 160., 192., 256., 320., 384.,
                   512., 768., 1024.})
    o.push_back(a);
  return o;
}

RdpOptimum rdp_curve_epsilon(const std::function<double(double)>& curve,
                             std::span<const double> orders, double delta, RdpConversion conversion,
                             bool refine) {
  if (!(delta > 0.0 && delta < 1.0))
    throw ConfigError(fmt::format("δ must be in (0, 1), got {}", delta));
  const auto grid = checked_orders(orders);
  return minimise_over_orders(
      [&](double a) { return rdp_to_epsilon(a, curve(a), delta, conversion); }, grid, refine);
}

RdpOptimum rdp_curve_delta(const std::function<double(double)>& curve,
                           std::span<const double> orders, double epsilon, RdpConversion conversion,
                           bool refine) {
  if (!(epsilon >= 0.0) || std::isnan(epsilon))
    throw ConfigError(fmt::format("ε must be ≥ 0, got {}", epsilon));
  const auto grid = checked_orders(orders);
  // Minimise log δ (better conditioned than δ, which underflows), exponentiate at the end.
  auto r = minimise_over_orders(
      [&](double a) { return rdp_to_log_delta(a, curve(a), epsilon, conversion); }, grid, refine);
  r.value = r.value == kInf ? 1.0 : std::exp(r.value);
  return r;
}

}  // namespace dpmcmc
