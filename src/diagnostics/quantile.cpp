#include "diagnostics/quantile.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/error.hpp"

namespace dpmcmc {

namespace {

std::vector<double> sorted_values(const Eigen::Ref<const Mat>& draws) {
  if (draws.size() == 0) throw DataError("quantile: no draws");
  std::vector<double> v(draws.data(), draws.data() + draws.size());
  if (!draws.allFinite()) {
    for (double x : v) {
      if (std::isnan(x)) return {};  // signals NaN to the callers
    }
  }
  std::sort(v.begin(), v.end());
  return v;
}

void check_probability(double p) {
  if (!(p >= 0.0 && p <= 1.0)) {
    throw UsageError(fmt::format("quantile: probability {} is outside [0, 1]", p));
  }
}

// Type 7 on a sorted sample, written as R's quantile.default does: (1 − f) lo + f hi.
double type7(const std::vector<double>& s, double p) {
  const double index = static_cast<double>(s.size() - 1) * p;  // 0-based h
  const auto lo = static_cast<std::size_t>(std::floor(index));
  const auto hi = static_cast<std::size_t>(std::ceil(index));
  const double f = index - static_cast<double>(lo);
  if (hi == lo || s[hi] == s[lo]) return s[lo];
  return (1.0 - f) * s[lo] + f * s[hi];
}

}  // namespace

double quantile(const Eigen::Ref<const Mat>& draws, double p) {
  check_probability(p);
  const auto s = sorted_values(draws);
  if (s.empty()) return std::numeric_limits<double>::quiet_NaN();
  return type7(s, p);
}

Vec quantiles(const Eigen::Ref<const Mat>& draws, const Vec& probs) {
  for (double p : probs) check_probability(p);
  const auto s = sorted_values(draws);
  Vec out(probs.size());
  for (Eigen::Index i = 0; i < probs.size(); ++i) {
    out(i) = s.empty() ? std::numeric_limits<double>::quiet_NaN() : type7(s, probs(i));
  }
  return out;
}

double stansummary_quantile(const Eigen::Ref<const Mat>& draws, double p) {
  check_probability(p);
  const auto s = sorted_values(draws);
  if (s.empty()) return std::numeric_limits<double>::quiet_NaN();
  const double n = static_cast<double>(s.size());
  const bool left = p < 0.5;
  const double k_real = std::ceil(n * (left ? p : 1.0 - p));
  const auto k = static_cast<std::size_t>(std::clamp(k_real, 1.0, n));
  return left ? s[k - 1] : s[s.size() - k];
}

}  // namespace dpmcmc
