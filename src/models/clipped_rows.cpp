#include "models/clipped_rows.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"

namespace dpmcmc {

void llr_rows_checked(const Model& model, const Vec& theta, const Vec& theta_prime,
                      const RowBlock& rows, Eigen::Ref<Vec> r, std::string_view who) {
  model.log_lik_ratio_rows(theta, theta_prime, rows, r);
  // ±∞ (a row impossible under one of θ, θ′) has a clipped value; NaN has none.
  if (r.hasNaN()) {
    throw SoftwareError(fmt::format("{}: model '{}' returned NaN for a row's log-likelihood ratio",
                                    who, model.name()));
  }
}

void add_clipped_llr(const Model& model, const Vec& theta, const Vec& theta_prime,
                     const RowBlock& rows, double bound, Eigen::Ref<Vec> r, ClippedLlr& acc,
                     std::string_view who) {
  llr_rows_checked(model, theta, theta_prime, rows, r, who);
  acc.clipped += static_cast<std::size_t>((r.array().abs() > bound).count());
  acc.sum += r.array().max(-bound).min(bound).sum();
  acc.rows += static_cast<std::size_t>(rows.rows());
}

ClippedLlr clipped_llr_sum(const Model& model, const Dataset& data, const Vec& theta,
                           const Vec& theta_prime, double bound, Vec& scratch,
                           std::string_view who) {
  ClippedLlr out;
  const std::size_t n = data.rows();
  const auto block =
      static_cast<Eigen::Index>(std::min(kClipBlockRows, std::max<std::size_t>(1, n)));
  if (scratch.size() < block) scratch.resize(block);
  for (std::size_t begin = 0; begin < n; begin += kClipBlockRows) {
    const std::size_t count = std::min(kClipBlockRows, n - begin);
    add_clipped_llr(model, theta, theta_prime, data.block(begin, count), bound,
                    scratch.head(static_cast<Eigen::Index>(count)), out, who);
  }
  return out;
}

void add_clipped_grads(const Model& model, const Vec& theta, const RowBlock& rows, double bound,
                       Eigen::Ref<Mat> g, Eigen::Ref<Vec> norms, Vec& sum, std::size_t& clipped,
                       std::string_view who) {
  model.grad_log_lik_rows(theta, rows, g);
  if (!g.allFinite()) {
    throw SoftwareError(
        fmt::format("{}: model '{}' returned a non-finite per-row gradient", who, model.name()));
  }
  // Scale factor min(1, bound/‖g_i‖) per row; the clipped sum is then Gᵀ·factor.
  norms = g.rowwise().norm();
  clipped += static_cast<std::size_t>((norms.array() > bound).count());
  norms = (norms.array() > bound).select(bound / norms.array(), 1.0);
  sum.noalias() += g.transpose() * norms;
}

}  // namespace dpmcmc
