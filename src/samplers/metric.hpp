// The metric of HMC and NUTS: the inverse mass matrix M⁻¹, diagonal (diag(m)) or dense (Σ,
// symmetric positive definite), with what the integrators need of it: momenta p ~ N(0, M), the
// kinetic energy ½ pᵀM⁻¹p and the velocity M⁻¹p. The diagonal case computes exactly what the
// diagonal helpers of leapfrog.hpp compute (the same operations in the same order), so a
// diagonal run is bit for bit what it was before dense metrics existed.
#pragma once

#include "core/rng.hpp"
#include "core/types.hpp"
#include "samplers/leapfrog.hpp"
#include "samplers/tuning.hpp"

namespace dpmcmc {

class Metric {
 public:
  // M⁻¹ = diag(m), entries finite and > 0 (not checked: callers pass validated values).
  explicit Metric(Vec inverse_mass_diagonal = Vec());
  // M = diag(mass), as configured (--mass): M⁻¹ and √M computed from the mass itself.
  static Metric from_mass(const Vec& mass);
  // The tuning's metric: dense when tuning.dense is set (ConfigError unless it is symmetric
  // positive definite of size dim), diagonal otherwise. The step and diagonal are checked first
  // (tuned_scale: SoftwareError naming `kernel`).
  static Metric from_tuning(const Tuning& tuning, int dim, const char* kernel);

  bool dense() const { return dense_; }
  // diag(M⁻¹) (for reporting and for Tuning::metric).
  const Vec& diagonal() const { return inv_mass_; }
  // The dense M⁻¹ (empty when diagonal).
  const Mat& matrix() const { return sigma_; }

  // p ~ N(0, M) from the algorithm stream, one normal per component: diagonal p_j = √(1/m_j)·z_j;
  // dense p = L⁻ᵀz with Σ = LLᵀ.
  void draw_momentum(Vec& p, Rng& rng) const;
  double kinetic(const Vec& p) const;
  // M⁻¹p into out (sized like p).
  void velocity(const Vec& p, Vec& out) const;

  // `steps` leapfrog steps (leapfrog.hpp's scheme) with this metric.
  template <class Gradient>
  LeapfrogResult leapfrog(Vec& theta, Vec& p, Vec& grad, double step, int steps,
                          Gradient&& gradient) const {
    if (!dense_) return dpmcmc::leapfrog(theta, p, grad, inv_mass_, step, steps, gradient);
    return leapfrog_with(
        theta, p, grad, step, steps, gradient,
        [this](Vec& th, const Vec& mom, double eta) { th.noalias() += eta * (sigma_ * mom); });
  }

 private:
  bool dense_ = false;
  Vec inv_mass_, sqrt_mass_;  // diagonal: m and √(1/m); dense: diag(Σ) and unused
  Mat sigma_, chol_;          // dense: Σ and its lower Cholesky factor L
};

}  // namespace dpmcmc
