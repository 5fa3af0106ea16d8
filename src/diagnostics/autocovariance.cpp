#include "diagnostics/autocovariance.hpp"

#include <fftw3.h>

#include "core/fftw_planner.hpp"

namespace dpmcmc {

namespace {

// posterior's fft_next_good_size: the smallest n' ≥ n of the form 2^a 3^b 5^c (2 for n ≤ 2).
int fft_next_good_size(int n) {
  if (n <= 2) return 2;
  for (;; ++n) {
    int m = n;
    while (m % 2 == 0) m /= 2;
    while (m % 3 == 0) m /= 3;
    while (m % 5 == 0) m /= 5;
    if (m <= 1) return n;
  }
}

}  // namespace

int autocovariance_fft_length(int n) {
  return 2 * fft_next_good_size(n);
}

Vec autocovariance(const Eigen::Ref<const Vec>& x) {
  const auto n = static_cast<int>(x.size());
  Vec acov = Vec::Zero(n);
  if (n == 0) return acov;
  const double mean = x.mean();
  const double sum_sq = (x.array() - mean).square().sum();
  if (!(sum_sq > 0.0)) return acov;  // constant chain: every autocovariance is 0

  const int length = autocovariance_fft_length(n);
  const RealFftPlans& plans = real_fft_plans(length);
  auto signal = fftw_buffer<double>(static_cast<std::size_t>(length));
  auto spectrum = fftw_buffer<fftw_complex>(static_cast<std::size_t>(length / 2 + 1));
  double* s = signal.get();
  for (int i = 0; i < n; ++i) s[i] = x(i) - mean;
  for (int i = n; i < length; ++i) s[i] = 0.0;
  fftw_execute_dft_r2c(plans.forward, s, spectrum.get());
  fftw_complex* f = spectrum.get();
  for (int k = 0; k <= length / 2; ++k) {
    f[k][0] = f[k][0] * f[k][0] + f[k][1] * f[k][1];
    f[k][1] = 0.0;
  }
  fftw_execute_dft_c2r(plans.backward, f, s);
  // s[t] = L · Σ_i c_i c_{i+t}; rescale so that lag 0 is the exact Σ c_i² / N.
  const double scale = sum_sq / static_cast<double>(n) / s[0];
  for (int t = 0; t < n; ++t) acov(t) = s[t] * scale;
  return acov;
}

}  // namespace dpmcmc
