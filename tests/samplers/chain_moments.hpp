// Runs a kernel directly (no runner) and summarises its draws: the sampler tests compare these
// moments with the closed-form posterior of gaussian_test_model.hpp.
#pragma once

#include <cstdint>
#include <vector>

#include "core/rng.hpp"
#include "core/types.hpp"
#include "samplers/kernel.hpp"

namespace dpmcmc::testing {

struct ChainMoments {
  Mat draws;  // n × dim, after burn-in
  Vec mean;
  Mat cov;  // sample covariance (denominator n − 1)
  double acceptance = 0.0;
  Mat extras;  // n × extra_columns
};

inline ChainMoments run_kernel(Kernel& kernel, const Vec& start, std::size_t burn, std::size_t n,
                               std::uint64_t seed) {
  Rng rng = make_rng(seed, 0);
  kernel.init(start);
  std::vector<double> extras(kernel.extra_columns().size());
  for (std::size_t i = 0; i < burn; ++i) kernel.transition(rng, extras);
  ChainMoments m;
  m.draws.resize(static_cast<Eigen::Index>(n), kernel.dim());
  m.extras.resize(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(extras.size()));
  std::size_t accepted = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const auto row = static_cast<Eigen::Index>(i);
    accepted += kernel.transition(rng, extras).accepted;
    m.draws.row(row) = kernel.position().transpose();
    for (std::size_t e = 0; e < extras.size(); ++e) {
      m.extras(row, static_cast<Eigen::Index>(e)) = extras[e];
    }
  }
  m.mean = m.draws.colwise().mean().transpose();
  const Mat centred = m.draws.rowwise() - m.mean.transpose();
  m.cov = centred.transpose() * centred / static_cast<double>(n - 1);
  m.acceptance = static_cast<double>(accepted) / static_cast<double>(n);
  return m;
}

}  // namespace dpmcmc::testing
