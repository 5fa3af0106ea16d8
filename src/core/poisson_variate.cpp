#include "core/poisson_variate.hpp"

#include <fmt/format.h>

#include <boost/math/special_functions/gamma.hpp>
#include <cmath>

#include "core/error.hpp"

namespace dpmcmc {
namespace {

// Inversion by sequential search (Devroye 1986, X.3.2). The partial sums of the pmf can stop
// short of 1 by rounding (≈ 1e-16 relative); a uniform beyond the last representable sum would
// search forever, so the search restarts with a fresh uniform once the terms have underflowed —
// an event of probability ~1e-16 that leaves the distribution exact up to that rounding.
std::uint64_t poisson_inversion(Rng& rng, double mean) {
  const double p0 = std::exp(-mean);
  for (;;) {
    const double u = rng.uniform();
    double p = p0, cdf = p0;
    std::uint64_t k = 0;
    while (u >= cdf) {
      ++k;
      p *= mean / static_cast<double>(k);
      cdf += p;
      if (p == 0.0 && u >= cdf) break;  // underflowed: restart
    }
    if (u < cdf) return k;
  }
}

// PTRS (Hörmann 1993, Section 3 "Algorithm PTRS"), for mean ≥ 10.
std::uint64_t poisson_ptrs(Rng& rng, double mean) {
  const double log_mean = std::log(mean);
  const double b = 0.931 + 2.53 * std::sqrt(mean);
  const double a = -0.059 + 0.02483 * b;
  const double inv_alpha = 1.1239 + 1.1328 / (b - 3.4);
  const double v_r = 0.9277 - 3.6224 / (b - 2.0);
  for (;;) {
    const double u = rng.uniform() - 0.5;
    const double v = rng.uniform_pos();
    const double us = 0.5 - std::abs(u);
    const double k = std::floor((2.0 * a / us + b) * u + mean + 0.43);
    // Squeeze: inside this region the hat lies below the pmf, accept at once.
    if (us >= 0.07 && v <= v_r) return static_cast<std::uint64_t>(k);
    if (k < 0.0 || (us < 0.013 && v > us)) continue;
    // Exact test: v · α⁻¹ / (a/us² + b) ≤ p(k)/e^{…}, in logs.
    const double lhs = std::log(v * inv_alpha / (a / (us * us) + b));
    const double rhs = -mean + k * log_mean - boost::math::lgamma(k + 1.0);
    if (lhs <= rhs) return static_cast<std::uint64_t>(k);
  }
}

}  // namespace

std::uint64_t poisson_variate(Rng& rng, double mean) {
  if (!(mean >= 0.0) || !std::isfinite(mean)) {
    throw ConfigError(fmt::format("poisson variate: mean must be finite and >= 0, got {}", mean));
  }
  if (mean == 0.0) return 0;
  return mean < 10.0 ? poisson_inversion(rng, mean) : poisson_ptrs(rng, mean);
}

}  // namespace dpmcmc
