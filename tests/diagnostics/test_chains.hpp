// Synthetic chains with known properties for the diagnostics tests.
#pragma once

#include <cmath>

#include "core/rng.hpp"
#include "core/types.hpp"

namespace dpmcmc::testing {

// M independent stationary Gaussian AR(1) chains x_t = φ x_{t−1} + ε_t, ε ~ N(0, 1), started
// from the stationary law N(0, 1/(1−φ²)). Their integrated autocorrelation time is
// τ = (1 + φ)/(1 − φ), so the ESS of the mean of N·M draws is N·M (1 − φ)/(1 + φ).
inline Mat ar1_chains(Rng& rng, int draws, int chains, double phi, double mean = 0.0,
                      double scale = 1.0) {
  Mat x(draws, chains);
  for (int c = 0; c < chains; ++c) {
    double v = rng.normal() / std::sqrt(1.0 - phi * phi);
    for (int i = 0; i < draws; ++i) {
      v = phi * v + rng.normal();
      x(i, c) = mean + scale * v;
    }
  }
  return x;
}

inline double ar1_ess(int draws, int chains, double phi) {
  return draws * chains * (1.0 - phi) / (1.0 + phi);
}

}  // namespace dpmcmc::testing
