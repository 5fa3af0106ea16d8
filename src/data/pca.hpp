// Principal component analysis of a data matrix (rows are observations): the k leading
// eigenvectors of the sample covariance S = (X − 1x̄ᵀ)ᵀ(X − 1x̄ᵀ) / (n − 1), by Eigen's
// SelfAdjointEigenSolver on the p × p matrix S (p = 784 for 28×28 images: a dense symmetric
// eigenproblem of that size takes well under a second, and is exact rather than iterative).
//
// Eigenvectors are defined up to sign only; to make the features reproducible across Eigen
// versions and machines, each component is flipped so that its entry of largest absolute value
// is positive (the first such entry on a tie).
#pragma once

#include "core/types.hpp"

namespace dpmcmc {

struct Pca {
  Vec mean;        // x̄, size p: the centre subtracted before projecting
  Mat components;  // p × k, orthonormal columns, in order of decreasing variance
  Vec variances;   // k eigenvalues of S (the variance along each component), decreasing

  // (x_i − x̄)ᵀ V for every row of `x` (n × p) → n × k. DataError when x has not p columns.
  Mat transform(const RowBlock& x) const;
};

// The first k components of the rows of `x` (n × p). Throws ConfigError when k ∉ [1, p] and
// DataError when n < 2 or x has non-finite entries.
Pca fit_pca(const RowBlock& x, int k);

}  // namespace dpmcmc
