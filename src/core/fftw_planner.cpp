#include "core/fftw_planner.hpp"

namespace dpmcmc {

std::mutex& fftw_planner_mutex() {
  static std::mutex m;
  return m;
}

}  // namespace dpmcmc
