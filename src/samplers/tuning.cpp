#include "samplers/tuning.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/error.hpp"

namespace dpmcmc {

Vec tuned_scale(const Tuning& tuning, int dim, const char* kernel) {
  if (!std::isfinite(tuning.step) || tuning.step <= 0.0 || tuning.metric.size() != dim ||
      !tuning.metric.allFinite() || (tuning.metric.array() <= 0.0).any()) {
    throw SoftwareError(fmt::format("{}: invalid tuning (step {}, metric of size {})", kernel,
                                    tuning.step, tuning.metric.size()));
  }
  return tuning.step * tuning.metric.cwiseSqrt();
}

double random_walk_restart_step(int moved_dims) {
  return 2.38 / std::sqrt(static_cast<double>(moved_dims < 1 ? 1 : moved_dims));
}

double random_walk_target_accept(int dim) {
  // 0.44 in one dimension and 0.234 from five on (Gelman, Roberts and Gilks 1996; Roberts and
  // Rosenthal 2001, Section 4, who note 0.234 is already close to optimal for d ≥ 5); linear in d
  // between them (our interpolation, not a published value).
  constexpr double kOne = 0.44, kMany = 0.234;
  if (dim <= 1) return kOne;
  if (dim >= 5) return kMany;
  return kOne + (kMany - kOne) * (dim - 1) / 4.0;
}

}  // namespace dpmcmc
