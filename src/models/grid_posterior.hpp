// A reference posterior for two-parameter models, by brute force on a fine grid: the exact
// target of evaluation when no closed form exists (the Gaussian mixture of
// [ZhangZhang2023] Section 6.1). The log density log p(θ) + T Σ log p(x_i | θ) is
// evaluated at every cell centre and normalised with log-sum-exp; the reference is the
// piecewise-constant density equal to that value on each cell. Its moments, its draws and its
// histograms are exact for that density, which differs from the true posterior by O(h²) in the
// moments for cells of width h. Its exact bin probabilities (histogram()) are the reference of
// DP-Fast MH's accuracy metric, the symmetric KL of 2-d histograms (diagnostics/histogram_kl.hpp,
// which also defines Box2d and Histogram2d).
#pragma once

#include <cstddef>
#include <optional>

#include "core/alias_table.hpp"
#include "core/rng.hpp"
#include "core/types.hpp"
#include "data/dataset.hpp"
#include "diagnostics/histogram_kl.hpp"
#include "models/model.hpp"

namespace dpmcmc {

class GridPosterior {
 public:
  // Evaluates the posterior of `model` (dim() == 2) given `data` on cells × cells equal cells of
  // `box`, on `threads` threads (0: all hardware threads). ConfigError when the model is not
  // 2-d, the box is empty or not finite, cells < 2, or the log density is −∞ on every cell;
  // SoftwareError when the log density is NaN or +∞ somewhere (a broken model).
  GridPosterior(const Model& model, const Dataset& data, const Box2d& box, std::size_t cells,
                unsigned threads = 1);

  const Box2d& box() const { return box_; }
  std::size_t cells() const { return cells_; }
  // Cell width along θ1 and θ2.
  double width1() const { return h1_; }
  double width2() const { return h2_; }
  // cells × cells probabilities, prob(i, j) for θ1 cell i, θ2 cell j; sums to 1.
  const Mat& probabilities() const { return prob_; }
  // log ∫ exp(log density) over the box by the midpoint rule (the log evidence up to the model's
  // constants when the box holds the mass).
  double log_normaliser() const { return log_normaliser_; }

  // Mean and covariance of the piecewise-constant density (the within-cell uniform spread
  // h²/12 included), the distribution sample() draws from.
  Vec mean() const;
  Mat covariance() const;
  // Mass on the outermost ring of cells: a box that cuts the posterior off shows here (it should
  // be negligible, e.g. < 1e-6, for the reference to be trusted).
  double edge_mass() const;

  // `draws` independent draws (rows, draws × 2): a cell by the alias method, then a uniform
  // point in the cell.
  Mat sample(std::size_t draws, Rng& rng) const;

  // The exact bin probabilities of the piecewise-constant density on a bins × bins histogram over
  // `box` (each cell's mass split between the bins it overlaps, in proportion to the overlap).
  Histogram2d histogram(const Box2d& box, std::size_t bins) const;

 private:
  Box2d box_;
  std::size_t cells_;
  double h1_, h2_;
  Mat prob_;
  double log_normaliser_ = 0.0;
  std::optional<AliasTable> alias_;
};

}  // namespace dpmcmc
