#include "diagnostics/sample_error.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"

namespace dpmcmc {
namespace {

// Hand-computed values.
// sample rows (1,2), (3,4), (5,9): mean (3, 5); centred (−2,−3), (0,−1), (2,4);
// cov = [[8, 14], [14, 26]] / 2 = [[4, 7], [7, 13]].
Mat sample() {
  Mat s(3, 2);
  s << 1, 2, 3, 4, 5, 9;
  return s;
}

TEST(SampleError, MeanAndCovariance) {
  EXPECT_TRUE(sample_mean(sample()).isApprox(Vec{{3.0, 5.0}}));
  Mat cov(2, 2);
  cov << 4, 7, 7, 13;
  EXPECT_TRUE(sample_covariance(sample()).isApprox(cov, 1e-15));
}

TEST(SampleError, MeanErrorIsEuclidean) {
  // ‖(3,5) − (0,1)‖ = 5.
  EXPECT_DOUBLE_EQ(mean_error_from_mean(sample(), Vec{{0.0, 1.0}}), 5.0);
  Mat reference(2, 2);
  reference << 0, 0, 0, 2;  // mean (0, 1)
  EXPECT_DOUBLE_EQ(mean_error(sample(), reference), 5.0);
}

TEST(SampleError, CovErrorIsFrobenius) {
  // cov − I = [[3, 7], [7, 12]]: Frobenius √(9 + 49 + 49 + 144) = √251.
  EXPECT_NEAR(cov_error_from_cov(sample(), Mat::Identity(2, 2)), std::sqrt(251.0), 1e-12);
  Mat reference(2, 2);
  reference << 0, 0, 1, 1;  // cov [[0.5, 0.5], [0.5, 0.5]]
  // diff [[3.5, 6.5], [6.5, 12.5]]: √(12.25 + 42.25 + 42.25 + 156.25) = √253.
  EXPECT_NEAR(cov_error(sample(), reference), std::sqrt(253.0), 1e-12);
}

TEST(SampleError, BadInput) {
  EXPECT_THROW(mean_error(sample(), Mat::Zero(3, 3)), DataError);
  EXPECT_THROW(mean_error_from_mean(sample(), Vec::Zero(3)), DataError);
  EXPECT_THROW(cov_error(sample(), Mat::Zero(1, 2)), DataError);
  EXPECT_THROW(cov_error_from_cov(sample(), Mat::Zero(2, 3)), DataError);
  Mat bad = sample();
  bad(0, 0) = INFINITY;
  EXPECT_THROW(sample_mean(bad), DataError);
}

}  // namespace
}  // namespace dpmcmc
