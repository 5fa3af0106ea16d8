#include "diagnostics/sample_error.hpp"

#include <fmt/core.h>

#include "core/error.hpp"

namespace dpmcmc {

namespace {

void check(const Eigen::Ref<const Mat>& s, Eigen::Index min_rows, const char* what) {
  if (s.rows() < min_rows) {
    throw DataError(
        fmt::format("{}: the sample has {} draws, need at least {}", what, s.rows(), min_rows));
  }
  if (!s.allFinite()) throw DataError(fmt::format("{}: the sample has a non-finite value", what));
}

void check_dims(Eigen::Index a, Eigen::Index b, const char* what) {
  if (a != b) {
    throw DataError(fmt::format("{}: dimensions differ ({} and {})", what, a, b));
  }
}

}  // namespace

Vec sample_mean(const Eigen::Ref<const Mat>& sample) {
  check(sample, 1, "sample_mean");
  return sample.colwise().mean().transpose();
}

Mat sample_covariance(const Eigen::Ref<const Mat>& sample) {
  check(sample, 2, "sample_covariance");
  const Mat centred = sample.rowwise() - sample.colwise().mean();
  return (centred.transpose() * centred) / static_cast<double>(sample.rows() - 1);
}

double mean_error(const Eigen::Ref<const Mat>& sample, const Eigen::Ref<const Mat>& reference) {
  check_dims(sample.cols(), reference.cols(), "mean_error");
  return (sample_mean(sample) - sample_mean(reference)).norm();
}

double mean_error_from_mean(const Eigen::Ref<const Mat>& sample,
                            const Eigen::Ref<const Vec>& reference_mean) {
  check_dims(sample.cols(), reference_mean.size(), "mean_error");
  if (!reference_mean.allFinite()) throw DataError("mean_error: the reference mean is not finite");
  return (sample_mean(sample) - reference_mean).norm();
}

double cov_error(const Eigen::Ref<const Mat>& sample, const Eigen::Ref<const Mat>& reference) {
  check_dims(sample.cols(), reference.cols(), "cov_error");
  return (sample_covariance(sample) - sample_covariance(reference)).norm();
}

double cov_error_from_cov(const Eigen::Ref<const Mat>& sample,
                          const Eigen::Ref<const Mat>& reference_cov) {
  check_dims(reference_cov.rows(), reference_cov.cols(), "cov_error (reference not square)");
  check_dims(sample.cols(), reference_cov.rows(), "cov_error");
  if (!reference_cov.allFinite()) {
    throw DataError("cov_error: the reference covariance is not finite");
  }
  return (sample_covariance(sample) - reference_cov).norm();  // Eigen's norm() is Frobenius
}

}  // namespace dpmcmc
