#include "diagnostics/autocovariance.hpp"

#include <fftw3.h>

#include <memory>
#include <mutex>

#include <new>
#include <unordered_map>
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

struct Plans {
  fftw_plan forward = nullptr;   // real L → complex L/2+1
  fftw_plan backward = nullptr;  // complex L/2+1 → real L (unnormalised: result × L)
};

struct FftwFree {
  void operator()(void* p) const { fftw_free(p); }
};
template <class T>
using FftwBuffer = std::unique_ptr<T, FftwFree>;

template <class T>
FftwBuffer<T> fftw_buffer(std::size_t count) {
  void* p = fftw_malloc(sizeof(T) * count);
  if (p == nullptr) throw std::bad_alloc();
  return FftwBuffer<T>(static_cast<T*>(p));
}

// One plan pair per padded length, made under the lock and kept until the process exits (the
// destructor frees them, so leak checkers stay quiet). Plans are made with FFTW_ESTIMATE (no
// measurement runs, deterministic) on fftw_malloc'ed arrays; the executing code also uses
// fftw_malloc'ed arrays, so the alignment the plans assume holds for the new-array execute
// functions, which are thread-safe.
class PlanCache {
 public:
  ~PlanCache() {
    std::lock_guard<std::mutex> lock(fftw_planner_mutex());
    for (auto& [length, p] : plans_) {
      fftw_destroy_plan(p.forward);
      fftw_destroy_plan(p.backward);
    }
  }

  const Plans& get(int length) {
    std::lock_guard<std::mutex> lock(fftw_planner_mutex());
    auto it = plans_.find(length);
    if (it != plans_.end()) return it->second;
    auto in = fftw_buffer<double>(static_cast<std::size_t>(length));
    auto out = fftw_buffer<fftw_complex>(static_cast<std::size_t>(length / 2 + 1));
    Plans p;
    p.forward = fftw_plan_dft_r2c_1d(length, in.get(), out.get(), FFTW_ESTIMATE);
    p.backward = fftw_plan_dft_c2r_1d(length, out.get(), in.get(), FFTW_ESTIMATE);
    if (p.forward == nullptr || p.backward == nullptr) {
      if (p.forward != nullptr) fftw_destroy_plan(p.forward);
      if (p.backward != nullptr) fftw_destroy_plan(p.backward);
      throw std::bad_alloc();
    }
    return plans_.emplace(length, p).first->second;  // node-based: references stay valid
  }

 private:
  std::unordered_map<int, Plans> plans_;  // guarded by fftw_planner_mutex()
};

const Plans& plans_for(int length) {
  static PlanCache cache;
  return cache.get(length);
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
  const Plans& plans = plans_for(length);
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
