// Composition of discretised PLDs: zero-padded (linear, never circular) convolution by FFTW's
// real-to-complex transforms, repeated squaring for k identical releases, and truncation after
// every product (rules and error budget in numerical_pld.hpp).
#include <fftw3.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "core/fftw_planner.hpp"
#include "privacy/numerical_pld.hpp"
#include "privacy/numerical_pld_truncate.hpp"

namespace dpmcmc {
namespace {

constexpr double kUnitRoundoff = std::numeric_limits<double>::epsilon() / 2;

// The transform length for a linear convolution of n outputs: the smallest power of two ≥ n.
// Planning a length costs FFTW far more than transforming it here (the PLDs are short), so the
// lengths come from a coarse set whose plans are made once per process and reused by every
// later composition (core/fftw_planner.hpp). Powers of two alone beat adding 3·2^a (measured:
// fewer plans outweigh the larger padding; docs/benchmarks.md).
std::size_t fft_length(std::size_t n) {
  std::size_t p = 2;
  while (p < n) p *= 2;
  return p;
}

// This thread's FFT work arrays, grown as needed and reused (allocating and faulting in fresh
// pages for every convolution cost as much as the transforms).
struct WorkArrays {
  std::size_t size = 0;
  FftwBuffer<double> in;
  FftwBuffer<fftw_complex> fa, fb;

  void reserve(std::size_t n) {
    if (n <= size) return;
    in = fftw_buffer<double>(n);
    fa = fftw_buffer<fftw_complex>(n / 2 + 1);
    fb = fftw_buffer<fftw_complex>(n / 2 + 1);
    size = n;
  }
};

double l2_norm(const std::vector<double>& v) {
  long double s = 0;
  for (double x : v) s += static_cast<long double>(x) * x;
  return static_cast<double>(std::sqrt(s));
}

double l1_norm(const std::vector<double>& v) {
  long double s = 0;
  for (double x : v) s += x;
  return static_cast<double>(s);
}

// Linear convolution of a and b; adds a bound on its ℓ1 round-off to `roundoff`.
std::vector<double> convolve(const std::vector<double>& a, const std::vector<double>& b,
                             double& roundoff) {
  const std::size_t la = a.size(), lb = b.size(), n = la + lb - 1;
  std::vector<double> out(n, 0.0);
  if (std::min(la, lb) <= 32 || static_cast<double>(la) * static_cast<double>(lb) < 2e5) {
    for (std::size_t i = 0; i < la; ++i) {
      if (a[i] == 0.0) continue;
      for (std::size_t j = 0; j < lb; ++j) out[i + j] += a[i] * b[j];
    }
    // Each output is a sum of ≤ m = min(la, lb) non-negative products: relative error ≤ m·u,
    // so the ℓ1 error is ≤ m·u·‖a‖₁‖b‖₁.
    roundoff += static_cast<double>(std::min(la, lb)) * kUnitRoundoff * l1_norm(a) * l1_norm(b);
    return out;
  }
  const std::size_t N = fft_length(n);
  const std::size_t nc = N / 2 + 1;
  const bool square = &a == &b;
  thread_local WorkArrays work;
  work.reserve(N);
  double* in = work.in.get();
  fftw_complex* fa = work.fa.get();
  fftw_complex* fb = work.fb.get();
  const RealFftPlans& plans = real_fft_plans(static_cast<int>(N));
  std::copy(a.begin(), a.end(), in);
  std::fill(in + la, in + N, 0.0);
  fftw_execute_dft_r2c(plans.forward, in, fa);
  if (!square) {
    std::copy(b.begin(), b.end(), in);
    std::fill(in + lb, in + N, 0.0);
    fftw_execute_dft_r2c(plans.forward, in, fb);
  }
  const fftw_complex* g = square ? fa : fb;
  for (std::size_t k = 0; k < nc; ++k) {
    const double re = fa[k][0] * g[k][0] - fa[k][1] * g[k][1];
    const double im = fa[k][0] * g[k][1] + fa[k][1] * g[k][0];
    fa[k][0] = re;
    fa[k][1] = im;
  }
  fftw_execute_dft_c2r(plans.backward, fa, in);  // c2r overwrites its input; fa is not used again
  const double scale = 1.0 / static_cast<double>(N);
  for (std::size_t i = 0; i < n; ++i) out[i] = in[i] * scale;
  // Arrays beyond 2²² doubles (32 MiB) are not kept for the thread's next convolution.
  if (N > (std::size_t{1} << 22)) work = WorkArrays{};
  // Round-off (numerical_pld.hpp): a computed FFT of length N has relative ℓ2 error
  // ≤ η·log₂N with η ≈ 7u (Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed.,
  // Theorem 24.2). With ‖FFT(a)‖_∞ ≤ ‖a‖₁ and Parseval, the two forward transforms, the product
  // and the inverse contribute at most 14u·log₂N·(‖a‖₁‖b‖₂ + ‖a‖₂‖b‖₁) to the ℓ2 error of the
  // n outputs, hence √n times that to their ℓ1 error, which bounds the change of any δ(ε).
  const double an1 = l1_norm(a), bn1 = l1_norm(b);
  roundoff += 14.0 * kUnitRoundoff * std::log2(static_cast<double>(N)) *
              std::sqrt(static_cast<double>(n)) * (an1 * l2_norm(b) + l2_norm(a) * bn1);
  return out;
}

}  // namespace

void truncate_pld(DiscretePld& d, const NumericalPldOptions& o) {
  auto& p = d.pmf;
  const bool pess = d.rounding == PldRounding::pessimistic;
  for (double& x : p) x = std::max(0.0, x);
  const double h = d.interval;
  // Hard window.
  if (std::isfinite(o.loss_max)) {
    const auto k_max = static_cast<std::int64_t>(std::floor(o.loss_max / h));
    const std::int64_t top = d.min_index + static_cast<std::int64_t>(p.size()) - 1;
    if (top > k_max) {
      const auto keep =
          static_cast<std::size_t>(std::max<std::int64_t>(k_max - d.min_index + 1, 0));
      double cut = 0.0;
      for (std::size_t i = keep; i < p.size(); ++i) cut += p[i];
      p.resize(keep);
      if (pess) {
        d.infinity_mass += cut;
      } else {
        if (p.empty()) p.push_back(0.0), d.min_index = k_max;
        p.back() += cut;
      }
    }
  }
  if (std::isfinite(o.loss_min)) {
    const auto k_min = static_cast<std::int64_t>(std::ceil(o.loss_min / h));
    if (d.min_index < k_min) {
      const auto drop = static_cast<std::size_t>(
          std::min<std::int64_t>(k_min - d.min_index, static_cast<std::int64_t>(p.size())));
      double cut = 0.0;
      for (std::size_t i = 0; i < drop; ++i) cut += p[i];
      p.erase(p.begin(), p.begin() + static_cast<std::ptrdiff_t>(drop));
      d.min_index += static_cast<std::int64_t>(drop);
      if (p.empty()) p.push_back(0.0), d.min_index = k_min;
      if (pess) p.front() += cut;
    }
  }
  // Tails of total mass ≤ tail_mass.
  std::size_t last = p.size();
  double top_cut = 0.0;
  while (last > 1 && top_cut + p[last - 1] <= o.tail_mass) top_cut += p[--last];
  std::size_t first = 0;
  double bottom_cut = 0.0;
  while (first + 1 < last && bottom_cut + p[first] <= o.tail_mass) bottom_cut += p[first++];
  std::vector<double> kept(p.begin() + static_cast<std::ptrdiff_t>(first),
                           p.begin() + static_cast<std::ptrdiff_t>(last));
  d.min_index += static_cast<std::int64_t>(first);
  if (pess) {
    d.infinity_mass += top_cut;
    kept.front() += bottom_cut;
  } else {
    kept.back() += top_cut;
  }
  p = std::move(kept);
  d.infinity_mass = std::min(1.0, d.infinity_mass);
  if (p.size() > o.max_bins) {
    throw ConfigError(fmt::format(
        "numerical PLD: the composed privacy loss spans {} bins at interval {} (limit {}): "
        "increase the interval or the tail mass",
        p.size(), h, o.max_bins));
  }
}

DiscretePld compose(const DiscretePld& a, const DiscretePld& b, const NumericalPldOptions& o) {
  if (a.interval != b.interval || a.rounding != b.rounding)
    throw SoftwareError("numerical PLD: composing PLDs of different interval or rounding");
  if (a.pmf.size() + b.pmf.size() - 1 > 2 * o.max_bins) {
    throw ConfigError(fmt::format(
        "numerical PLD: composing PLDs of {} and {} bins exceeds the limit of {} bins: increase "
        "the interval",
        a.pmf.size(), b.pmf.size(), o.max_bins));
  }
  DiscretePld out;
  out.interval = a.interval;
  out.rounding = a.rounding;
  out.min_index = a.min_index + b.min_index;
  out.roundoff_mass = a.roundoff_mass + b.roundoff_mass;
  out.pmf = convolve(a.pmf, b.pmf, out.roundoff_mass);
  out.infinity_mass = a.infinity_mass + b.infinity_mass - a.infinity_mass * b.infinity_mass;
  truncate_pld(out, o);
  return out;
}

DiscretePld self_compose(const DiscretePld& a, std::uint64_t k, const NumericalPldOptions& o) {
  DiscretePld result = identity_pld(a.interval, a.rounding);
  bool is_identity = true;
  DiscretePld base = a;
  while (k > 0) {
    if (k & 1u) {
      result = is_identity ? base : compose(result, base, o);
      is_identity = false;
    }
    k >>= 1u;
    if (k > 0) base = compose(base, base, o);
  }
  return result;
}

}  // namespace dpmcmc
