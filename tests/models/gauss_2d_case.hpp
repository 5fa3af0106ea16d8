// A tempered 2-d Gaussian model with correlated likelihood and prior, 40 simulated rows: its
// posterior is known in closed form (GaussianModel::posterior_moments). Shared by the tests of
// the grid reference and of the posterior figure.
#pragma once

#include <cmath>
#include <utility>

#include "core/rng.hpp"
#include "diagnostics/histogram_kl.hpp"
#include "models/gaussian.hpp"

namespace dpmcmc::test {

struct GaussCase {
  GaussianModel model;
  Dataset data;
  GaussianModel::Moments exact;
};

// rho: the likelihood's covariance between the two coordinates.
inline GaussCase gauss_case(double rho) {
  Mat cov(2, 2), cov0(2, 2);
  cov << 1.0, rho, rho, 2.0;
  cov0 << 4.0, 0.5, 0.5, 3.0;
  Vec mu0(2);
  mu0 << 0.5, -1.0;
  GaussianModel model(mu0, cov0, cov, 0.5);
  Rng rng = make_rng(21, 0, Stream::data);
  Vec truth(2);
  truth << 1.0, -0.5;
  Dataset data = model.simulate(truth, 40, rng);
  auto exact = model.posterior_moments(data);
  return {std::move(model), std::move(data), std::move(exact)};
}

// A box of ±k posterior sds around the exact mean (k = 8: the mass outside is ~1e-15).
inline Box2d box_around(const GaussianModel::Moments& m, double k = 8.0) {
  const double s1 = std::sqrt(m.cov(0, 0)), s2 = std::sqrt(m.cov(1, 1));
  return {m.mean(0) - k * s1, m.mean(0) + k * s1, m.mean(1) - k * s2, m.mean(1) + k * s2};
}

}  // namespace dpmcmc::test
