// Per-row clipping over blocks of data rows, shared by the clipped sums of the releases and of the
// clipping study (DP-Fast MH's per-row bound c_i·M is of another kind and lives with it, and the
// batch moments of the minibatch penalty and DP Barker share only the checked ratios).
//   log-likelihood ratios  r_i = log p(x_i|θ′) − log p(x_i|θ), clipped to ±bound
//     (DP penalty's release, [Raisa2021] Section 3.1 with bound = b‖θ′ − θ‖₂; the
//     accept step of DP HMC, [RaisaKoskelaHonkela2021] Algorithm 4; the non-private clipping
//     study, [Raisa2021] Section 6.2; the minibatch penalty and DP Barker's batch moments);
//   gradients  g_i = ∇_θ log p(x_i|θ), scaled by min(1, bound/‖g_i‖₂)
//     (DP HMC's gradient release; DP-SGLD and DP-SGNHT).
// The full-data releases and the gradient releases (privacy/private_data) and the non-private
// clipping rule (samplers/clipped_llr) call these, so the clipped value a release adds noise to
// and the one the clipping study measures are the same function.
//
// Non-finite values (issue #23, docs/decisions.md "Non-finite private values"): a private row must
// never decide, outside a release, whether a release happens or a run fails — an exception or a
// skipped release triggered by one row would reveal that row without noise. So every row gets a
// value inside the clip range: ±∞ ratios are clipped like any large value, a NaN ratio counts as
// 0, and a per-row gradient that is not finite (NaN or ±∞ in some component) counts as the zero
// vector. Such rows are counted with the clipped ones (curator diagnostics only).
#pragma once

#include <cstddef>
#include <string_view>

#include "core/types.hpp"
#include "data/dataset.hpp"
#include "models/model.hpp"

namespace dpmcmc {

// Rows per evaluated block: large enough that the per-block call overhead vanishes, small enough
// that a block of values (and a block × d gradient) stays in cache.
inline constexpr std::size_t kClipBlockRows = 4096;

struct ClippedLlr {
  double sum = 0.0;         // Σ_i clip(r_i, ±bound), untempered
  std::size_t clipped = 0;  // rows with |r_i| > bound or r_i NaN
  std::size_t rows = 0;
};

// r_i of every row of `rows` into r (r.size() == rows.rows()), a NaN r_i replaced by 0; returns
// how many were NaN.
std::size_t llr_rows_mapped(const Model& model, const Vec& theta, const Vec& theta_prime,
                            const RowBlock& rows, Eigen::Ref<Vec> r);

// Adds the block's Σ clip(r_i, ±bound) and its count of |r_i| > bound to acc (r is scratch of
// rows.rows() values).
void add_clipped_llr(const Model& model, const Vec& theta, const Vec& theta_prime,
                     const RowBlock& rows, double bound, Eigen::Ref<Vec> r, ClippedLlr& acc);

// Σ_i clip(r_i, ±bound) over all rows of `data`, block by block (scratch is resized as needed).
ClippedLlr clipped_llr_sum(const Model& model, const Dataset& data, const Vec& theta,
                           const Vec& theta_prime, double bound, Vec& scratch);

// Adds Σ_i g_i·min(1, bound/‖g_i‖₂) over the block's rows to sum (non-finite g_i as 0) and its
// count of rows with ‖g_i‖₂ > bound or non-finite to clipped (g: rows.rows() × d scratch, norms:
// rows.rows() scratch).
void add_clipped_grads(const Model& model, const Vec& theta, const RowBlock& rows, double bound,
                       Eigen::Ref<Mat> g, Eigen::Ref<Vec> norms, Vec& sum, std::size_t& clipped);

}  // namespace dpmcmc
