// Moment errors of a sample against a reference, the thesis' secondary accuracy metrics
// ([Raisa2021] Section 6.3: "the distance of the sample mean from the true mean"
// for the circle model, where no reference sample exists).
// Samples are n × d matrices, one draw per row.
#pragma once

#include "core/types.hpp"

namespace dpmcmc {

// Sample mean (column means) and sample covariance (denominator n − 1, like numpy.cov).
Vec sample_mean(const Eigen::Ref<const Mat>& sample);
Mat sample_covariance(const Eigen::Ref<const Mat>& sample);

// Euclidean distance ‖mean(sample) − mean(reference)‖₂ (the thesis code's mean_error).
double mean_error(const Eigen::Ref<const Mat>& sample, const Eigen::Ref<const Mat>& reference);
// Against a known mean: ‖mean(sample) − reference_mean‖₂ (e.g. the origin for the circle).
double mean_error_from_mean(const Eigen::Ref<const Mat>& sample,
                            const Eigen::Ref<const Vec>& reference_mean);

// Frobenius norm ‖cov(sample) − cov(reference)‖_F (the thesis code's cov_error; for d = 1 the
// absolute difference of the variances).
double cov_error(const Eigen::Ref<const Mat>& sample, const Eigen::Ref<const Mat>& reference);
// Against a known covariance matrix (d × d): ‖cov(sample) − reference_cov‖_F.
double cov_error_from_cov(const Eigen::Ref<const Mat>& sample,
                          const Eigen::Ref<const Mat>& reference_cov);

// All functions throw DataError when a sample has too few rows (1 for the mean, 2 for the
// covariance), the dimensions differ, or a value is non-finite.

}  // namespace dpmcmc
