#include "data/pca.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace dpmcmc {

Pca fit_pca(const RowBlock& x, int k) {
  const Eigen::Index n = x.rows(), p = x.cols();
  if (k < 1 || k > p) {
    throw ConfigError(
        fmt::format("PCA: number of components k = {}, expected 1 to {} (the data width)", k, p));
  }
  if (n < 2) throw DataError(fmt::format("PCA: {} row(s), expected at least 2", n));
  if (!x.allFinite()) throw DataError("PCA: the data matrix has non-finite entries");

  Pca pca;
  pca.mean = x.colwise().mean().transpose();
  const Mat centred = x.rowwise() - pca.mean.transpose();
  // Only the lower triangle is formed (rankUpdate: half the flops of a full product); the
  // eigensolver reads only that triangle.
  Mat cov = Mat::Zero(p, p);
  cov.selfadjointView<Eigen::Lower>().rankUpdate(centred.transpose(),
                                                 1.0 / static_cast<double>(n - 1));
  const Eigen::SelfAdjointEigenSolver<Mat> eig(cov);
  if (eig.info() != Eigen::Success) {
    throw SoftwareError("PCA: the symmetric eigensolver did not converge");
  }
  // Eigen sorts eigenvalues increasingly: the leading components are the last columns.
  pca.components.resize(p, k);
  pca.variances.resize(k);
  for (int j = 0; j < k; ++j) {
    const Eigen::Index src = p - 1 - j;
    Vec v = eig.eigenvectors().col(src);
    Eigen::Index at = 0;
    v.cwiseAbs().maxCoeff(&at);  // first index of the largest |entry|
    if (v(at) < 0) v = -v;
    pca.components.col(j) = v;
    // Rounding can leave a zero eigenvalue slightly negative; a variance is never negative.
    pca.variances(j) = std::max(eig.eigenvalues()(src), 0.0);
  }
  return pca;
}

Mat Pca::transform(const RowBlock& x) const {
  if (x.cols() != mean.size()) {
    throw DataError(fmt::format("PCA transform: data have {} column(s), the components {}",
                                x.cols(), mean.size()));
  }
  Mat out = x * components;
  out.rowwise() -= (mean.transpose() * components);
  return out;
}

}  // namespace dpmcmc
