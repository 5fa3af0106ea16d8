#include "models/expfam_gaussian.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/error.hpp"

namespace dpmcmc {

ExpFamGaussianModel::ExpFamGaussianModel(Vec prior_mean, Mat prior_cov, Mat cov, Vec lower,
                                         Vec upper)
    : inner_(std::move(prior_mean), std::move(prior_cov), std::move(cov)),
      lower_(std::move(lower)),
      upper_(std::move(upper)) {
  const Eigen::Index d = inner_.dim();
  if (lower_.size() != d || upper_.size() != d) {
    throw ConfigError(fmt::format(
        "gaussian-box model: box lower and upper bounds must have {} components, got {} and {}", d,
        lower_.size(), upper_.size()));
  }
  for (Eigen::Index j = 0; j < d; ++j) {
    if (!std::isfinite(lower_[j]) || !std::isfinite(upper_[j]) || !(lower_[j] < upper_[j])) {
      throw ConfigError(fmt::format(
          "gaussian-box model: box component {} must have finite lower < upper, got [{}, {}]",
          j + 1, lower_[j], upper_[j]));
    }
  }
  prec_ = inner_.covariance().llt().solve(Mat::Identity(d, d));
}

Dataset ExpFamGaussianModel::simulate(const Vec& theta, std::size_t n, Rng& rng) const {
  Dataset data = inner_.simulate(theta, n, rng);
  for (Eigen::Index j = 0; j < data.x.cols(); ++j) {
    data.x.col(j) = data.x.col(j).cwiseMax(lower_[j]).cwiseMin(upper_[j]);
  }
  return data;
}

void ExpFamGaussianModel::stat_rows(const RowBlock& rows, Eigen::Ref<Mat> out) const {
  out = rows;
}

}  // namespace dpmcmc
