#include "privacy/rdp.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <boost/math/tools/minima.hpp>
#include <cmath>
#include <numbers>
#include <vector>

#include "core/error.hpp"
#include "core/numeric.hpp"

namespace dpmcmc {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

void check_order(double alpha) {
  if (!(alpha > 1.0) || std::isnan(alpha))
    throw ConfigError(fmt::format("RDP order α must be > 1, got {}", alpha));
}
void check_rate(double q) {
  if (!(q > 0.0 && q <= 1.0))
    throw ConfigError(fmt::format("sampling rate q must be in (0, 1], got {}", q));
}
void check_multiplier(double z) {
  if (!(z > 0.0 && std::isfinite(z)))
    throw ConfigError(fmt::format("noise multiplier σ/Δ must be finite and > 0, got {}", z));
}

// log(e^x − 1) for x ≥ 0 (−∞ at 0).
double log_expm1(double x) {
  if (x == kInf) return kInf;
  if (x > 40.0) return x + std::log1p(-std::exp(-x));
  return std::log(std::expm1(x));
}

// log(1 + e^t).
double log1p_exp(double t) {
  if (t > 0.0) return t + std::log1p(std::exp(-t));
  return std::log1p(std::exp(t));
}

double log_binomial(double n, double k) {
  return std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0);
}

bool is_integer(double a) {
  return std::floor(a) == a;
}

// Signed sum of terms given as (log|t|, sign), kept as two log-space accumulators.
struct SignedLogSum {
  double pos = -kInf, neg = -kInf;
  void add(double log_abs, int sign) {
    if (log_abs == -kInf) return;
    if (sign > 0) {
      pos = log_add_exp(pos, log_abs);
    } else {
      neg = log_add_exp(neg, log_abs);
    }
  }
};

}  // namespace

double rdp_gaussian(double alpha, double z) {
  check_order(alpha);
  check_multiplier(z);
  return alpha / (2.0 * z * z);
}

double rdp_poisson_subsampled_gaussian_integer(std::uint64_t alpha, double q, double z) {
  if (alpha < 2) throw ConfigError(fmt::format("integer RDP order must be ≥ 2, got {}", alpha));
  check_rate(q);
  check_multiplier(z);
  const double a = static_cast<double>(alpha);
  if (q == 1.0) return rdp_gaussian(a, z);
  const double log_q = std::log(q), log_1mq = std::log1p(-q);
  const double inv2z2 = 1.0 / (2.0 * z * z);
  std::vector<double> terms;
  terms.reserve(alpha);
  for (std::uint64_t k = 2; k <= alpha; ++k) {
    const double kk = static_cast<double>(k);
    terms.push_back(log_binomial(a, kk) + (a - kk) * log_1mq + kk * log_q +
                    log_expm1((kk * kk - kk) * inv2z2));
  }
  const double log_a_minus_1 = log_sum_exp(terms);
  return log1p_exp(log_a_minus_1) / (a - 1.0);
}

double rdp_poisson_subsampled_gaussian_fractional(double alpha, double q, double z) {
  check_order(alpha);
  check_rate(q);
  check_multiplier(z);
  if (q == 1.0) return rdp_gaussian(alpha, z);
  if (alpha == kInf) return kInf;
  const double log_q = std::log(q), log_1mq = std::log1p(-q);
  const double inv2z2 = 1.0 / (2.0 * z * z);
  const double z0 = z * z * (log_1mq - log_q) + 0.5;
  const double s = std::numbers::sqrt2 * z;
  const double log_half = -std::numbers::ln2;

  SignedLogSum sum;
  double log_abs_c = 0.0;  // log|C(α, i)|
  int sign_c = 1;
  double last = -kInf;      // largest |term| of the last step
  bool terminated = false;  // integer α: the series is a finite sum, nothing omitted
  constexpr std::int64_t kMaxTerms = 2'000'000;
  std::int64_t i = 0;
  for (; i < kMaxTerms; ++i) {
    const double di = static_cast<double>(i);
    if (i > 0) {
      const double factor = (alpha - di + 1.0) / di;
      if (factor == 0.0) {  // integer α: every later coefficient is 0
        terminated = true;
        break;
      }
      log_abs_c += std::log(std::abs(factor));
      if (factor < 0.0) sign_c = -sign_c;
    }
    const double j = alpha - di;
    const double t1 = log_abs_c + (alpha - di) * log_1mq + di * log_q + (di * di - di) * inv2z2 +
                      log_half + log_erfc((di - z0) / s);
    const double t2 = log_abs_c + di * log_1mq + j * log_q + (j * j - j) * inv2z2 + log_half +
                      log_erfc((z0 - j) / s);
    sum.add(t1, sign_c);
    sum.add(t2, sign_c);
    last = std::max(t1, t2);
    // Past i > α the terms alternate in sign and shrink: stop when the next ones cannot move the
    // sum (A_α ≥ 1, so e^{-44} ≈ 8e-20 relative).
    if (di > alpha + 1.0 && last < sum.pos - 44.0) break;
  }
  if (i == kMaxTerms) {
    // Not converged (extreme q, z): fall back on the convex interpolation of the exact integer
    // orders, a valid upper bound (see rdp_wbk_subsampled for the argument).
    const double lo = std::floor(alpha), hi = lo + 1.0, t = alpha - lo;
    const double c_hi =
        (hi - 1.0) * rdp_poisson_subsampled_gaussian_integer(static_cast<std::uint64_t>(hi), q, z);
    const double c_lo = lo < 2.0 ? 0.0
                                 : (lo - 1.0) * rdp_poisson_subsampled_gaussian_integer(
                                                    static_cast<std::uint64_t>(lo), q, z);
    return ((1.0 - t) * c_lo + t * c_hi) / (alpha - 1.0);
  }
  // The first omitted term bounds the alternating remainder: add it on the safe side.
  if (!terminated) sum.add(last, +1);
  // Rounding: the summed terms have total magnitude e^{pos} + e^{neg}; a margin of 4 units of
  // round-off on it keeps log A_α on the safe side (it matters only when A_α − 1 < 1e-12).
  const double log_margin =
      std::log(4.0 * std::numeric_limits<double>::epsilon()) + log_add_exp(sum.pos, sum.neg);
  const double log_a = log_add_exp(log_sub_exp(sum.pos, sum.neg), log_margin);
  return std::max(0.0, log_a) / (alpha - 1.0);
}

double rdp_poisson_subsampled_gaussian(double alpha, double q, double z) {
  check_order(alpha);
  if (is_integer(alpha) && alpha <= 1e7) {
    return rdp_poisson_subsampled_gaussian_integer(static_cast<std::uint64_t>(alpha), q, z);
  }
  return rdp_poisson_subsampled_gaussian_fractional(alpha, q, z);
}

namespace {

// (m−1)·ε'(m) of WBK19 Theorem 9 at integer m ≥ 2, in log space (the log of the moment bound).
double wbk_cumulant_integer(std::uint64_t m, double q, const std::function<double(double)>& base,
                            double base_inf) {
  const double mm = static_cast<double>(m);
  const double log_q = std::log(q);
  const double eps2 = base(2.0);
  const double log_em1_inf = log_expm1(base_inf);  // log(e^{ε(∞)} − 1)
  std::vector<double> terms{0.0};
  // j = 2: min{4(e^{ε(2)}−1), e^{ε(2)} min{2, (e^{ε(∞)}−1)²}}.
  const double two = std::min(std::log(4.0) + log_expm1(eps2),
                              eps2 + std::min(std::numbers::ln2, 2.0 * log_em1_inf));
  terms.push_back(2.0 * log_q + log_binomial(mm, 2.0) + two);
  for (std::uint64_t j = 3; j <= m; ++j) {
    const double jj = static_cast<double>(j);
    const double ej = base(jj);
    if (ej == kInf) return kInf;
    terms.push_back(jj * log_q + log_binomial(mm, jj) + (jj - 1.0) * ej +
                    std::min(std::numbers::ln2, jj * log_em1_inf));
  }
  const double theorem9 = log_sum_exp(terms);
  // Joint convexity: E[(M(X)/M(X'))^m] ≤ 1 − q + q e^{(m−1)ε(m)}.
  const double base_m = (mm - 1.0) * base(mm);
  const double convexity = log1p_exp(log_q + log_expm1(base_m));
  return std::min({theorem9, convexity, base_m});
}

}  // namespace

double rdp_wbk_subsampled(double alpha, double q, const std::function<double(double)>& base,
                          double base_inf) {
  check_order(alpha);
  check_rate(q);
  if (q == 1.0) return base(alpha);
  if (alpha == kInf) return kInf;
  if (alpha > 1e6)
    throw ConfigError(fmt::format("RDP order α = {} is too large for WBK19 Theorem 9", alpha));
  double cumulant;
  if (is_integer(alpha)) {
    cumulant = wbk_cumulant_integer(static_cast<std::uint64_t>(alpha), q, base, base_inf);
  } else {
    const double lo = std::floor(alpha), t = alpha - lo;
    const double c_lo =
        lo < 2.0 ? 0.0 : wbk_cumulant_integer(static_cast<std::uint64_t>(lo), q, base, base_inf);
    const double c_hi = wbk_cumulant_integer(static_cast<std::uint64_t>(lo) + 1, q, base, base_inf);
    cumulant = (1.0 - t) * c_lo + t * c_hi;
    // The joint-convexity bound holds at every real order.
    const double base_a = (alpha - 1.0) * base(alpha);
    cumulant = std::min({cumulant, log1p_exp(std::log(q) + log_expm1(base_a)), base_a});
  }
  return cumulant / (alpha - 1.0);
}

double rdp_wbk_subsampled_gaussian(double alpha, double q, double z) {
  check_multiplier(z);
  return rdp_wbk_subsampled(alpha, q, [z](double a) { return a / (2.0 * z * z); });
}

namespace {

// log g(r) with g(r) = r^α + r^{1−α} − r − 1 and r = 1 + q·expm1(v), v ≥ 0 (g ≥ 0,
// g(1) = g'(1) = 0); log r is formed without overflow for large v.
double log_g(double alpha, double q, double v) {
  if (v <= 0.0) return -kInf;
  double lr;  // log r
  if (v < 700.0) {
    const double u = q * std::expm1(v);
    if (u * alpha < 0.25 && u < 0.25) {
      // g = Σ_{k≥2} [C(α,k) + C(1−α,k)] u^k: no cancellation for small u.
      double ca = alpha * (alpha - 1.0) / 2.0, cb = (1.0 - alpha) * (-alpha) / 2.0;
      double uk = u * u, sum = 0.0;
      for (int k = 2; k < 200; ++k) {
        const double term = (ca + cb) * uk;
        sum += term;
        if (std::abs(term) <= 1e-18 * std::abs(sum)) break;
        ca *= (alpha - k) / (k + 1.0);
        cb *= (1.0 - alpha - k) / (k + 1.0);
        uk *= u;
      }
      return std::log(sum);
    }
    lr = std::log1p(u);
  } else {
    lr = std::log(q) + v + std::log1p((1.0 - q) / q * std::exp(-v));
  }
  const double big = alpha * lr;  // log r^α
  if (big < 600.0)
    return std::log(std::exp(big) + std::exp((1.0 - alpha) * lr) - std::exp(lr) - 1.0);
  // g / r^α = 1 + r^{1−2α} − r^{1−α} − r^{−α}, the last three tiny.
  return big + std::log1p(std::exp((1.0 - 2.0 * alpha) * lr) - std::exp((1.0 - alpha) * lr) -
                          std::exp(-big));
}

}  // namespace

double rdp_wor_subsampled_gaussian(double alpha, double q, double z) {
  check_order(alpha);
  check_rate(q);
  check_multiplier(z);
  if (q == 1.0) return rdp_gaussian(alpha, z);
  if (alpha == kInf) return kInf;
  const double inv2z2 = 1.0 / (2.0 * z * z);
  const double log_norm = -std::log(z * std::sqrt(2.0 * std::numbers::pi));
  auto log_f = [&](double x) {
    return log_norm - x * x * inv2z2 + log_g(alpha, q, (2.0 * x - 1.0) * inv2z2);
  };
  // The log-integrand rises from −∞ at x = 1/2 to a peak near max(2, α) and then falls like a
  // Gaussian of sd z; locate the peak on a coarse grid, then refine it (Brent).
  const double x_right = std::max(2.0, alpha) + 4.0 + 10.0 * z;
  constexpr int kGrid = 128;
  double best_x = 0.5, best = -kInf;
  for (int k = 1; k <= kGrid; ++k) {
    const double x = 0.5 + (x_right - 0.5) * k / kGrid;
    const double f = log_f(x);
    if (f > best) best = f, best_x = x;
  }
  const double step = (x_right - 0.5) / kGrid;
  const auto refined = boost::math::tools::brent_find_minima(
      [&](double x) { return -log_f(x); }, std::max(0.5 + 1e-12, best_x - step), best_x + step, 52);
  double peak_x = best_x, peak = best;
  if (-refined.second > best) peak_x = refined.first, peak = -refined.second;
  if (!std::isfinite(peak)) {
    throw SoftwareError(
        fmt::format("rdp_wor_subsampled_gaussian: no finite peak (α={}, q={}, z={})", alpha, q, z));
  }
  auto scaled = [&](double x) { return std::exp(log_f(x) - peak); };
  using GK = boost::math::quadrature::gauss_kronrod<double, 61>;
  // Beyond peak + 40z + 40 the integrand is below e^{-800} of its peak.
  const double x_end = peak_x + 40.0 * z + 40.0;
  double err_left = 0.0, err_right = 0.0;
  double integral = GK::integrate(scaled, 0.5, peak_x, 12, 1e-12, &err_left) +
                    GK::integrate(scaled, peak_x, x_end, 12, 1e-12, &err_right);
  // Add the quadrature's absolute error estimates (and 1e-14 relative for rounding) on the
  // safe side.
  integral += err_left + err_right + 1e-14 * integral;
  const double log_i = peak + std::log(integral);
  return log1p_exp(log_i) / (alpha - 1.0);
}

}  // namespace dpmcmc
