// The Bayesian banana model ([Raisa2021] Definition 5.1, Theorem 5.2, Appendix A).
//
// g(φ) = (φ1, φ2 − a(φ1 − m)² − b, φ3, …, φd) maps a Gaussian to a banana; its inverse is
// φ(θ) = g⁻¹(θ) = (θ1, θ2 + a(θ1 − m)² + b, θ3, …, θd) with Jacobian determinant 1. The model is
//   θ ~ Ban(0, σ0² I, a, b, m)               i.e. φ(θ) ~ N(0, σ0² I),
//   x_ij | θ ~ N(φ_j(θ), σ_j²), j = 1…d       independent,
// so in φ it is a Gaussian model with diagonal covariance, and the posterior tempered by T is
// Ban(μ, diag(v), a, b, m) with, writing τ_j = 1/σ_j², τ0 = 1/σ0², S_j = Σ_i x_ij,
//   v_j = 1 / (T n τ_j + τ0),   μ_j = T τ_j S_j v_j                     (Theorem 5.2)
// (the theorem's T n τ_j x̄_j with x̄_j = S_j / n; the sum form also covers n = 0). Exact draws:
// φ ~ N(μ, diag v), θ = g(φ).
//
// a = 0 gives the Gaussian model with diagonal covariance (how the thesis builds its 30-d
// Gaussian, Table 5.1).
#pragma once

#include "models/model.hpp"

namespace dpmcmc {

class BananaModel : public Model {
 public:
  struct Params {
    double a = 20.0;           // curvature
    double b = 0.0;            // shift of the second coordinate
    double m = 0.0;            // centre of the parabola in θ1
    double prior_var = 1000;   // σ0²
    Vec lik_var;               // σ_j², j = 1…d (its size is the dimension, d ≥ 2)
    double temperature = 1.0;  // T = n0 / n, in (0, 1]
  };

  // Throws ConfigError naming the parameter when d < 2, a variance is not positive and finite,
  // a/b/m are not finite, or T ∉ (0, 1].
  explicit BananaModel(Params params);

  std::string name() const override { return "banana"; }
  int dim() const override { return static_cast<int>(p_.lik_var.size()); }
  // "x.1", …, "x.d".
  std::vector<std::string> data_columns() const override;

  // Normalised: log N(φ(θ); 0, σ0² I) (the Jacobian of φ is 1).
  double log_prior(const Vec& theta) const override;
  void grad_log_prior(const Vec& theta, Eigen::Ref<Vec> out) const override;
  double temperature() const override { return p_.temperature; }

  // Normalised: Σ_j log N(x_ij; φ_j(θ), σ_j²).
  void log_lik_rows(const Vec& theta, const RowBlock& rows, Eigen::Ref<Vec> out) const override;
  // Σ_j τ_j (φ′_j − φ_j)(x_ij − (φ_j + φ′_j)/2): linear in x_i (the x² terms cancel).
  void log_lik_ratio_rows(const Vec& theta, const Vec& theta_prime, const RowBlock& rows,
                          Eigen::Ref<Vec> out) const override;
  // r_j = τ_j (x_ij − φ_j(θ)); ∇ = (r_1 + 2a(θ1 − m) r_2, r_2, r_3, …, r_d).
  void grad_log_lik_rows(const Vec& theta, const RowBlock& rows,
                         Eigen::Ref<Mat> out) const override;

  // x_ij = φ_j(θ) + σ_j z_ij, z drawn row by row.
  Dataset simulate(const Vec& theta, std::size_t n, Rng& rng) const override;

  bool has_exact_posterior() const override { return true; }
  Mat sample_posterior(const Dataset& data, std::size_t draws, Rng& rng) const override;

  // The Gaussian of Theorem 5.2: φ(θ) | X ~ N(mean, diag(var)).
  struct GaussianPart {
    Vec mean;
    Vec var;
  };
  GaussianPart gaussian_posterior(const Dataset& data) const;

  // φ(θ) = g⁻¹(θ) and θ = g(φ).
  Vec to_gaussian(const Vec& theta) const;
  Vec from_gaussian(const Vec& phi) const;

  const Params& params() const { return p_; }

 private:
  // φ_2(θ) = θ2 + a(θ1 − m)² + b; every other φ_j is θ_j.
  double phi2(const Vec& theta) const {
    const double s = theta(0) - p_.m;
    return theta(1) + p_.a * s * s + p_.b;
  }

  Params p_;
  Vec prec_;            // τ_j = 1/σ_j²
  double lik_const_;    // −½ Σ_j log(2π σ_j²)
  double prior_const_;  // −(d/2) log(2π σ0²)
};

}  // namespace dpmcmc
