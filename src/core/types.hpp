// Linear-algebra vocabulary shared by every layer.
#pragma once

#include <Eigen/Dense>

namespace dpmcmc {

using Vec = Eigen::VectorXd;
// Column-major: in an n×d data matrix each column (one variable over all rows) is contiguous, so
// per-row kernels over a block of rows vectorise along the rows.
using Mat = Eigen::MatrixXd;
// A block of consecutive rows of a data matrix (a strided view, no copy).
using RowBlock = Eigen::Ref<const Mat>;

}  // namespace dpmcmc
