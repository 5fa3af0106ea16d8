#include "models/random_covariance.hpp"

#include <string>

#include "core/error.hpp"

namespace dpmcmc {

Mat random_eigen_covariance(int d, double gamma_shape, Rng& rng) {
  if (d < 1) throw ConfigError("random covariance: dimension must be at least 1");
  if (!(gamma_shape > 0.0)) {
    throw ConfigError("random covariance: gamma shape must be positive, got " +
                      std::to_string(gamma_shape));
  }
  Vec lambda(d);
  for (int j = 0; j < d; ++j) lambda(j) = rng.gamma(gamma_shape, 1.0);
  Mat u(d, d);
  for (int c = 0; c < d; ++c) {
    for (int r = 0; r < d; ++r) u(r, c) = rng.uniform();
  }
  // A uniform matrix is singular with probability 0; QR's Q is orthogonal in any case.
  const Mat q = Eigen::HouseholderQR<Mat>(u).householderQ();
  Mat sigma = q * lambda.asDiagonal() * q.transpose();
  return 0.5 * (sigma + sigma.transpose());
}

}  // namespace dpmcmc
