// Autocovariance of one chain by FFT (FFTW3), as Stan and the posterior package compute it.
#pragma once

#include "core/types.hpp"

namespace dpmcmc {

// The "biased" autocovariance recommended by Geyer (1992) at every lag t = 0 … N−1:
//   γ̂_t = (1/N) Σ_{i=0}^{N−1−t} (x_i − x̄)(x_{i+t} − x̄),
// so γ̂_0 is the variance with denominator N. Computed by zero-padding the centred chain to
// 2·M (M = the smallest 2^a 3^b 5^c ≥ N, posterior's fft_next_good_size; the padding of at
// least N zeros makes the circular correlation linear), r2c FFT, |F|², c2r FFT. As in posterior,
// the FFT result is rescaled so that γ̂_0 equals the directly summed N-denominator variance.
// A constant chain gives all zeros. Thread-safe: FFTW plans are made once per padded length
// under a mutex (FFTW's planner is not thread-safe) and executed with the new-array interface.
Vec autocovariance(const Eigen::Ref<const Vec>& x);

// The padded FFT length used for a chain of n draws: 2 · fft_next_good_size(n).
int autocovariance_fft_length(int n);

}  // namespace dpmcmc
