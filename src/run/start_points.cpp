#include "run/start_points.hpp"

#include <fmt/format.h>
#include <cmath>

#include "core/error.hpp"
#include "core/rng.hpp"

namespace dpmcmc {

void validate_init(const InitConfig& init, int dim, int chains) {
  if (!init.points.empty()) {
    if (init.points.size() != 1 && init.points.size() != static_cast<std::size_t>(chains)) {
      throw ConfigError(fmt::format(
          "init points: expected 1 starting point (shared) or {} (one per chain), got {}", chains,
          init.points.size()));
    }
    for (std::size_t i = 0; i < init.points.size(); ++i) {
      const Vec& p = init.points[i];
      if (p.size() != dim) {
        throw ConfigError(fmt::format("init points: point {} has {} components, expected {}", i + 1,
                                      p.size(), dim));
      }
      if (!p.allFinite()) {
        throw ConfigError(fmt::format("init points: point {} has a non-finite component", i + 1));
      }
    }
    return;
  }
  if (init.centre.size() != 0) {
    if (init.centre.size() != dim) {
      throw ConfigError(
          fmt::format("init centre: has {} components, expected {}", init.centre.size(), dim));
    }
    if (!init.centre.allFinite()) {
      throw ConfigError("init centre: has a non-finite component");
    }
  }
  if (!std::isfinite(init.spread) || init.spread < 0.0) {
    throw ConfigError(
        fmt::format("init spread: got {}, expected a finite number >= 0", init.spread));
  }
}

Vec starting_point(const InitConfig& init, int dim, std::uint64_t seed, int chain_id, int index) {
  if (!init.points.empty()) {
    return init.points.size() == 1 ? init.points[0] : init.points[static_cast<std::size_t>(index)];
  }
  Vec theta = init.centre.size() == 0 ? Vec::Zero(dim) : init.centre;
  Rng rng = make_rng(seed, static_cast<std::uint64_t>(chain_id), Stream::start);
  for (int j = 0; j < dim; ++j) theta[j] += init.spread * rng.normal();
  return theta;
}

}  // namespace dpmcmc
