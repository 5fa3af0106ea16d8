// The non-private maximum a posteriori estimate of Bayesian logistic regression: the baseline
// against which private runs are judged, and a starting point for experiments on public data.
// It reads every row directly, so it is NOT private: never use it on data whose privacy matters
// unless its output is discarded (e.g. in tests and in the accuracy reference of a report).
#pragma once

#include "data/dataset.hpp"
#include "models/logistic_regression.hpp"

namespace dpmcmc {

struct LogisticMap {
  Vec theta;               // the maximiser of log p(θ) + T Σ_i log p(y_i | x_i, θ)
  double log_density = 0;  // its value
  int iterations = 0;      // Newton steps taken
};

// Damped Newton's method from θ = 0: the log posterior is strictly concave (Gaussian prior plus
// concave log-likelihood), so Newton with Armijo backtracking converges to the unique maximum.
// Stops when the Newton decrement gᵀH⁻¹g falls below `tolerance` (it estimates twice the gap to
// the maximum). SoftwareError if not converged within max_iterations.
LogisticMap logistic_map(const LogisticRegressionModel& model, const Dataset& data,
                         double tolerance = 1e-10, int max_iterations = 100);

}  // namespace dpmcmc
