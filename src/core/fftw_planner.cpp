#include "core/fftw_planner.hpp"

#include <unordered_map>

namespace dpmcmc {

std::mutex& fftw_planner_mutex() {
  static std::mutex m;
  return m;
}

namespace {

// The destructor frees the plans at exit, so leak checkers stay quiet.
class PlanCache {
 public:
  ~PlanCache() {
    std::lock_guard<std::mutex> lock(fftw_planner_mutex());
    for (auto& [length, p] : plans_) {
      fftw_destroy_plan(p.forward);
      fftw_destroy_plan(p.backward);
    }
  }

  const RealFftPlans& get(int length) {
    std::lock_guard<std::mutex> lock(fftw_planner_mutex());
    auto it = plans_.find(length);
    if (it != plans_.end()) return it->second;
    auto in = fftw_buffer<double>(static_cast<std::size_t>(length));
    auto out = fftw_buffer<fftw_complex>(static_cast<std::size_t>(length / 2 + 1));
    RealFftPlans p;
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
  std::unordered_map<int, RealFftPlans> plans_;  // guarded by fftw_planner_mutex()
};

}  // namespace

const RealFftPlans& real_fft_plans(int length) {
  static PlanCache cache;
  return cache.get(length);
}

}  // namespace dpmcmc
