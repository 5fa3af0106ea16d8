// Helpers shared by the model tests: central finite differences and sample moments.
#pragma once

#include <functional>

#include "core/types.hpp"

namespace dpmcmc::test {

// Central difference (f(θ + h e_j) − f(θ − h e_j)) / 2h for every j. Its error is
// h²/6·|f'''| (truncation) plus about ε_mach·|f|/h (rounding).
inline Vec central_difference(const std::function<double(const Vec&)>& f, const Vec& theta,
                              double h) {
  Vec g(theta.size());
  for (Eigen::Index j = 0; j < theta.size(); ++j) {
    Vec up = theta, down = theta;
    up(j) += h;
    down(j) -= h;
    g(j) = (f(up) - f(down)) / (2.0 * h);
  }
  return g;
}

inline Vec sample_mean(const Mat& draws) {
  return draws.colwise().mean().transpose();
}

inline Mat sample_cov(const Mat& draws) {
  const Mat centred = draws.rowwise() - draws.colwise().mean();
  return centred.transpose() * centred / static_cast<double>(draws.rows() - 1);
}

}  // namespace dpmcmc::test
