// The random covariance of the 10-d Gaussian of [RaisaKoskelaHonkela2021] Section 4 (after
// Hoffman and Gelman): Σ = Q diag(λ) Qᵀ with eigenvalues λ_j ~ Gamma(shape, 1) and eigenvectors
// Q from orthonormalising (Householder QR) a d × d matrix of Uniform[0, 1) entries.
#pragma once

#include "core/rng.hpp"
#include "core/types.hpp"

namespace dpmcmc {

// Draws, in this order, λ_1 … λ_d, then the uniform matrix column by column. Deterministic given
// the generator's state. Throws ConfigError when d < 1 or shape ≤ 0.
Mat random_eigen_covariance(int d, double gamma_shape, Rng& rng);

}  // namespace dpmcmc
