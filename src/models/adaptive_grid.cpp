#include "models/adaptive_grid.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace dpmcmc {

Box2d mass_box(const GridPosterior& coarse, const Box2d& support, double cell_tail,
               std::size_t margin) {
  if (!(cell_tail > 0.0 && cell_tail < 1.0)) {
    throw ConfigError(fmt::format("adaptive grid: cell_tail must be in (0, 1), got {}", cell_tail));
  }
  const Mat& p = coarse.probabilities();
  const auto n = static_cast<Eigen::Index>(coarse.cells());
  Eigen::Index i0 = n, i1 = -1, j0 = n, j1 = -1;
  for (Eigen::Index j = 0; j < n; ++j) {
    for (Eigen::Index i = 0; i < n; ++i) {
      if (p(i, j) > cell_tail) {
        i0 = std::min(i0, i);
        i1 = std::max(i1, i);
        j0 = std::min(j0, j);
        j1 = std::max(j1, j);
      }
    }
  }
  // The n² probabilities sum to 1, so some cell exceeds cell_tail when cell_tail < 1/n²; with a
  // larger cell_tail and a flat density none may, and then the whole grid is kept.
  if (i1 < 0) return coarse.box();
  const auto m = static_cast<Eigen::Index>(margin);
  i0 = std::max<Eigen::Index>(0, i0 - m);
  j0 = std::max<Eigen::Index>(0, j0 - m);
  i1 = std::min<Eigen::Index>(n - 1, i1 + m);
  j1 = std::min<Eigen::Index>(n - 1, j1 + m);
  const Box2d& b = coarse.box();
  const double h1 = coarse.width1(), h2 = coarse.width2();
  Box2d kept{b.lo1 + static_cast<double>(i0) * h1, b.lo1 + static_cast<double>(i1 + 1) * h1,
             b.lo2 + static_cast<double>(j0) * h2, b.lo2 + static_cast<double>(j1 + 1) * h2};
  // The last cell's edge by the formula may differ from the support's by rounding.
  kept.lo1 = std::max(kept.lo1, support.lo1);
  kept.hi1 = std::min(kept.hi1, support.hi1);
  kept.lo2 = std::max(kept.lo2, support.lo2);
  kept.hi2 = std::min(kept.hi2, support.hi2);
  return kept;
}

GridPosterior adaptive_grid_posterior(const Model& model, const Dataset& data, const Box2d& support,
                                      const AdaptiveGridOptions& options) {
  const GridPosterior coarse(model, data, support, options.coarse_cells, options.threads);
  const Box2d kept = mass_box(coarse, support, options.cell_tail, options.margin);
  return GridPosterior(model, data, kept, options.fine_cells, options.threads);
}

}  // namespace dpmcmc
