#include "core/numeric.hpp"

#include <algorithm>
#include <boost/math/special_functions/erf.hpp>
#include <cmath>
#include <limits>
#include <numbers>

namespace dpmcmc {

double log_add_exp(double a, double b) {
  if (a < b) std::swap(a, b);
  if (b == -std::numeric_limits<double>::infinity()) return a;
  return a + std::log1p(std::exp(b - a));
}

double log_sub_exp(double a, double b) {
  if (b == -std::numeric_limits<double>::infinity()) return a;
  if (a == b) return -std::numeric_limits<double>::infinity();
  return a + std::log(-std::expm1(b - a));
}

double log_sum_exp(std::span<const double> x) {
  if (x.empty()) return -std::numeric_limits<double>::infinity();
  const double m = *std::max_element(x.begin(), x.end());
  if (!std::isfinite(m)) return m;
  double s = 0.0;
  for (double v : x) s += std::exp(v - m);
  return m + std::log(s);
}

namespace {

constexpr double kErfcSeriesFrom = 26.0;

// Σ_k (−1)^k (2k−1)!! / (2x²)^k, the factor of erfc(x) = exp(−x²)/(x√π) · Σ (Abramowitz & Stegun
// 7.1.23). For x ≥ 26 the terms fall below 1e-17 within a few steps, far before the series
// diverges.
double erfc_series_sum(double x) {
  const double inv = 1.0 / (2.0 * x * x);
  double term = 1.0, sum = 1.0;
  for (int k = 1; k < 12; ++k) {
    term *= -(2.0 * k - 1.0) * inv;
    sum += term;
    if (std::abs(term) < 1e-17) break;
  }
  return sum;
}

}  // namespace

double log_erfc(double x) {
  if (x < kErfcSeriesFrom) return std::log(boost::math::erfc(x));
  return -x * x - std::log(x) - 0.5 * std::log(std::numbers::pi) + std::log(erfc_series_sum(x));
}

double log_mills_ratio(double t) {
  const double x = t / std::numbers::sqrt2;
  // Φ(−t) = erfc(x)/2 and φ(t) = e^{−x²}/√(2π): beyond the series' start their ratio is
  // Σ/(x√π)·√(2π)/2 = Σ/t, with no e^{−x²} to cancel.
  if (x >= kErfcSeriesFrom) return -std::log(t) + std::log(erfc_series_sum(x));
  // Here t²/2 < 676, so the sum loses at most ~1e-13 to cancellation.
  return log_normal_cdf(-t) + 0.5 * t * t + 0.5 * std::log(2.0 * std::numbers::pi);
}

double log_normal_cdf(double x) {
  return std::log(0.5) + log_erfc(-x / std::numbers::sqrt2);
}

}  // namespace dpmcmc
