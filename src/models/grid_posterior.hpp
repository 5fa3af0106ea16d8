// A reference posterior for two-parameter models, by brute force on a fine grid: the exact
// target of evaluation when no closed form exists (the Gaussian mixture of
// 003_d4664856a36907c9.txt Section 6.1). The log density log p(θ) + T Σ log p(x_i | θ) is
// evaluated at every cell centre and normalised with log-sum-exp; the reference is the
// piecewise-constant density equal to that value on each cell. Its moments, its draws and its
// histograms are exact for that density, which differs from the true posterior by O(h²) in the
// moments for cells of width h. Also: 2-d histograms and the symmetric KL divergence between two
// histograms, DP-Fast MH's accuracy metric (003, Figure 1: 100 bins per axis).
#pragma once

#include <cstddef>
#include <optional>

#include "core/alias_table.hpp"
#include "core/rng.hpp"
#include "core/types.hpp"
#include "data/dataset.hpp"
#include "models/model.hpp"

namespace dpmcmc {

// The rectangle [lo1, hi1] × [lo2, hi2] of parameter space.
struct Box2d {
  double lo1 = 0.0, hi1 = 1.0, lo2 = 0.0, hi2 = 1.0;
};

// Bin probabilities of a bins × bins histogram over a box; prob(i, j) is the bin of θ1 in
// [lo1 + i h1, lo1 + (i+1) h1) and θ2 in the j-th interval. prob sums to 1 over the box;
// `outside` is the fraction of draws (or of mass) that fell outside it and was left out.
struct Histogram2d {
  Box2d box;
  std::size_t bins = 0;
  Mat prob;
  double outside = 0.0;
};

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

// Histogram of the rows of draws (n × 2) over `box` with bins × bins bins. Draws outside the box
// are counted in `outside` and left out of prob. ConfigError for a bad box or bins < 1;
// DataError when draws is not n × 2 with n ≥ 1, holds a non-finite value, or no draw falls in
// the box.
Histogram2d histogram2d(const Eigen::Ref<const Mat>& draws, const Box2d& box, std::size_t bins);

// Symmetric KL divergence KL(p‖q) + KL(q‖p) = Σ_b (p_b − q_b) log(p_b / q_b) between two
// histograms on the same box and bins (ConfigError otherwise). Smoothing for empty bins: each
// histogram becomes p̃_b = (p_b + s)/(1 + B s), B = bins², i.e. a mass s is added to every bin and
// the histogram renormalised — the additive (Lidstone) estimator; s = 0 gives the plain
// divergence, +∞ when one histogram is empty where the other is not. 003 states no smoothing;
// values are comparable only at the same s and bins. s must be finite and ≥ 0 (ConfigError).
double symmetric_kl(const Histogram2d& p, const Histogram2d& q, double smoothing = 1e-6);

}  // namespace dpmcmc
