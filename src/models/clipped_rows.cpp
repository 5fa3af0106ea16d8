#include "models/clipped_rows.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"

namespace dpmcmc {

std::size_t llr_rows_mapped(const Model& model, const Vec& theta, const Vec& theta_prime,
                            const RowBlock& rows, Eigen::Ref<Vec> r) {
  model.log_lik_ratio_rows(theta, theta_prime, rows, r);
  // ±∞ (a row impossible under one of θ, θ′) has a clipped value; NaN has none and becomes 0.
  const auto nan = r.array().isNaN();
  const auto count = static_cast<std::size_t>(nan.count());
  if (count > 0) r = nan.select(0.0, r.array());
  return count;
}

void add_clipped_llr(const Model& model, const Vec& theta, const Vec& theta_prime,
                     const RowBlock& rows, double bound, Eigen::Ref<Vec> r, ClippedLlr& acc) {
  acc.clipped += llr_rows_mapped(model, theta, theta_prime, rows, r);
  acc.clipped += static_cast<std::size_t>((r.array().abs() > bound).count());
  acc.sum += r.array().max(-bound).min(bound).sum();
  acc.rows += static_cast<std::size_t>(rows.rows());
}

ClippedLlr clipped_llr_sum(const Model& model, const Dataset& data, const Vec& theta,
                           const Vec& theta_prime, double bound, Vec& scratch) {
  ClippedLlr out;
  const std::size_t n = data.rows();
  const auto block =
      static_cast<Eigen::Index>(std::min(kClipBlockRows, std::max<std::size_t>(1, n)));
  if (scratch.size() < block) scratch.resize(block);
  for (std::size_t begin = 0; begin < n; begin += kClipBlockRows) {
    const std::size_t count = std::min(kClipBlockRows, n - begin);
    add_clipped_llr(model, theta, theta_prime, data.block(begin, count), bound,
                    scratch.head(static_cast<Eigen::Index>(count)), out);
  }
  return out;
}

void add_clipped_grads(const Model& model, const Vec& theta, const RowBlock& rows, double bound,
                       Eigen::Ref<Mat> g, Eigen::Ref<Vec> norms, Vec& sum, std::size_t& clipped) {
  model.grad_log_lik_rows(theta, rows, g);
  // Scale factor min(1, bound/‖g_i‖) per row; the clipped sum is then Gᵀ·factor. A row whose
  // gradient is not finite (its norm is NaN or ∞) gets factor 0 and its values are zeroed (0·∞ is
  // NaN): it contributes the zero vector, which is inside the clip ball.
  norms = g.rowwise().norm();
  const auto broken = !norms.array().isFinite();
  if (broken.any()) {
    for (Eigen::Index i = 0; i < g.rows(); ++i) {
      if (!std::isfinite(norms[i])) g.row(i).setZero();
    }
  }
  clipped += static_cast<std::size_t>((broken || norms.array() > bound).count());
  norms = broken.select(0.0, (norms.array() > bound).select(bound / norms.array(), 1.0));
  // The block's sum first, then one addition into the total: the summation structure that
  // blocked_sum_float_error (privacy/grid_noise.hpp) bounds, whatever order the product uses
  // within the block.
  const Vec block_sum = g.transpose() * norms;
  sum += block_sum;
}

}  // namespace dpmcmc
