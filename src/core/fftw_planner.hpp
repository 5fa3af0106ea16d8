// FFTW's planner (plan creation and destruction) is not thread-safe and is shared by the whole
// process; every layer that plans FFTs (diagnostics' autocovariance, the numerical PLD
// accountant) takes this one lock. Executing an existing plan needs no lock.
//
// Planning is not free even with FFTW_ESTIMATE (it hashes the problem and computes twiddle
// factors): composing numerical PLDs spent more time planning than transforming (docs/
// benchmarks.md). So real-FFT plan pairs are made once per length and kept for the process.
#pragma once

#include <fftw3.h>

#include <cstddef>
#include <memory>
#include <mutex>
#include <new>

namespace dpmcmc {

std::mutex& fftw_planner_mutex();

struct FftwFree {
  void operator()(void* p) const { fftw_free(p); }
};
template <class T>
using FftwBuffer = std::unique_ptr<T[], FftwFree>;

// An fftw_malloc'ed array of `count` T (FFTW's alignment); std::bad_alloc when out of memory.
template <class T>
FftwBuffer<T> fftw_buffer(std::size_t count) {
  void* p = fftw_malloc(sizeof(T) * count);
  if (p == nullptr) throw std::bad_alloc();
  return FftwBuffer<T>(static_cast<T*>(p));
}

// The real-to-complex (L → L/2 + 1) and complex-to-real (unnormalised: result × L) plans of
// length L, made under the lock with FFTW_ESTIMATE (no measurement runs: deterministic) on
// fftw_malloc'ed arrays, and kept until the process exits. Execute them with the new-array
// functions (fftw_execute_dft_r2c / _c2r, thread-safe) on fftw_malloc'ed arrays, so the alignment
// the plans assume holds. The reference stays valid for the process.
struct RealFftPlans {
  fftw_plan forward = nullptr;
  fftw_plan backward = nullptr;
};
const RealFftPlans& real_fft_plans(int length);

}  // namespace dpmcmc
