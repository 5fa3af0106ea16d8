// A grid reference posterior (models/grid_posterior.hpp) that finds where the mass is first: a
// coarse grid over the whole support locates the cells that hold non-negligible mass, and a fine
// grid over the box around them is the reference. This is what makes the grid affordable as an
// "exact" sampler in every experiment cell for the mixture of [ZhangZhang2023] Section 6.1:
// its posterior (N·T = 100 effective rows) occupies a few percent of the prior's
// box [−3, 3]², so a uniform fine grid over the box would spend most of its N = 50 000-row
// evaluations where the density is below 1e-100.
//
// Rule. Coarse grid: `coarse_cells` per axis over `support` (a box outside which the model's
// prior is zero, so no mass is lost there). Kept region: the smallest block of coarse cells
// holding every cell whose probability exceeds `cell_tail`, widened by `margin` cells on every
// side and clipped to the support. Fine grid: `fine_cells` per axis over that block. The mass
// left out is at most (coarse cells outside the block) × cell_tail by the coarse midpoint rule
// (default: 32² × 1e-10 ≤ 1.1e-7), and the margin guards against the midpoint rule missing a
// peak between two coarse cell centres.
#pragma once

#include <cstddef>

#include "data/dataset.hpp"
#include "models/grid_posterior.hpp"
#include "models/model.hpp"

namespace dpmcmc {

struct AdaptiveGridOptions {
  std::size_t coarse_cells = 32;
  std::size_t fine_cells = 100;
  double cell_tail = 1e-10;
  std::size_t margin = 2;
  unsigned threads = 1;  // 1: an experiment already runs its cells in parallel
};

// The kept box of the rule above, from a coarse grid (exposed for tests).
Box2d mass_box(const GridPosterior& coarse, const Box2d& support, double cell_tail,
               std::size_t margin);

// ConfigError (from GridPosterior) for a model that is not 2-d, a bad support box, fewer than 2
// cells, or a density that is −∞ on the whole coarse grid; ConfigError when cell_tail is not in
// (0, 1).
GridPosterior adaptive_grid_posterior(const Model& model, const Dataset& data, const Box2d& support,
                                      const AdaptiveGridOptions& options = {});

}  // namespace dpmcmc
