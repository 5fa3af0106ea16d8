// out(i) = c + Σ_j w_j x_ij over a block of rows: the fused log-likelihood ratio of every model
// whose log-likelihood is quadratic in the data with θ-independent curvature (Gaussian, banana:
// the quadratic terms in x cancel in log p(x | θ′) − log p(x | θ), leaving a linear function of
// x). Columns are contiguous (core/types.hpp), so each pass is a vectorised axpy over the block;
// columns are taken two at a time to halve the passes over `out`. No allocation.
#pragma once

#include "core/types.hpp"

namespace dpmcmc {

// `weight(j)` returns w_j; it is called once per column, outside the row loop.
template <class Weight>
inline void linear_rows(const RowBlock& rows, Weight&& weight, double c, Eigen::Ref<Vec> out) {
  const Eigen::Index d = rows.cols();
  if (d == 1) {
    out.array() = rows.col(0).array() * weight(0) + c;
    return;
  }
  out.array() = rows.col(0).array() * weight(0) + rows.col(1).array() * weight(1) + c;
  Eigen::Index j = 2;
  for (; j + 1 < d; j += 2) {
    out.array() += rows.col(j).array() * weight(j) + rows.col(j + 1).array() * weight(j + 1);
  }
  if (j < d) out.array() += rows.col(j).array() * weight(j);
}

}  // namespace dpmcmc
