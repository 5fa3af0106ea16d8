// The leapfrog integrator of Hamiltonian Monte Carlo with a diagonal mass matrix M, written once
// for every HMC variant: the non-private kernel passes the exact gradient of log π, DP HMC
// ([RaisaKoskelaHonkela2021] Algorithm 1) passes a callback returning noisy clipped gradient sums.
//
// Hamiltonian H(θ, p) = −log π(θ) + K(p), K(p) = ½ pᵀM⁻¹p. One trajectory of L steps of size η is
//   p ← p + (η/2)·g(θ);  then L−1 times { θ ← θ + η M⁻¹p;  p ← p + η·g(θ) };
//   θ ← θ + η M⁻¹p;  p ← p + (η/2)·g(θ),
// with g = ∇ log π: the composition l_{p,η/2} ∘ l_θ ∘ l_{p,η} ∘ … ∘ l_θ ∘ l_{p,η/2} of Algorithm 1.
// Each full momentum step uses the gradient of its position once, so a noisy gradient is drawn
// once per position: L+1 gradients per trajectory counting the one at the start, which the
// caller supplies (Algorithm 1 recomputes it every iteration; Theorem 3.5 counts L+1).
#pragma once

#include <cmath>

#include "core/rng.hpp"
#include "core/types.hpp"

namespace dpmcmc {

struct LeapfrogResult {
  // What the gradient callback returned at the final position: log π(θ_L) when the callback
  // knows it, NaN otherwise.
  double log_density = 0.0;
  // Steps actually taken: L, or fewer when a position or gradient became non-finite (the
  // trajectory is then abandoned; the proposal must be rejected).
  int steps = 0;
  bool finite = true;
};

// The scheme with any metric: drift(θ, p, η) performs θ ← θ + η M⁻¹p (samplers/metric.hpp
// passes a dense M⁻¹). Otherwise as leapfrog() below.
template <class Gradient, class Drift>
LeapfrogResult leapfrog_with(Vec& theta, Vec& p, Vec& grad, double step, int steps,
                             Gradient&& gradient, Drift&& drift) {
  LeapfrogResult result;
  const double half = 0.5 * step;
  for (int s = 0; s < steps; ++s) {
    p.noalias() += half * grad;
    drift(theta, static_cast<const Vec&>(p), step);
    result.log_density = gradient(static_cast<const Vec&>(theta), grad);
    p.noalias() += half * grad;
    result.steps = s + 1;
    if (!theta.allFinite() || !grad.allFinite()) {
      result.finite = false;
      break;
    }
  }
  return result;
}

// Integrates `steps` leapfrog steps of size `step` in place. On entry `grad` must hold g(θ) at the
// entry `theta`; on exit it holds g at the exit position. `gradient(θ, grad)` writes g(θ) into
// grad (already of the right size) and returns log π(θ) or NaN. inv_mass is the diagonal of M⁻¹.
// No allocation inside.
template <class Gradient>
LeapfrogResult leapfrog(Vec& theta, Vec& p, Vec& grad, const Vec& inv_mass, double step, int steps,
                        Gradient&& gradient) {
  return leapfrog_with(theta, p, grad, step, steps, gradient,
                       [&inv_mass](Vec& th, const Vec& mom, double eta) {
                         th.array() += eta * inv_mass.array() * mom.array();
                       });
}

// K(p) = ½ Σ_j p_j² / m_j.
inline double kinetic_energy(const Vec& p, const Vec& inv_mass) {
  return 0.5 * (p.array().square() * inv_mass.array()).sum();
}

// p ~ N(0, M): p_j = √m_j · z_j, drawn from the algorithm stream in coordinate order.
inline void draw_momentum(Vec& p, const Vec& sqrt_mass, Rng& rng) {
  for (Eigen::Index j = 0; j < p.size(); ++j) p[j] = sqrt_mass[j] * rng.normal();
}

}  // namespace dpmcmc
