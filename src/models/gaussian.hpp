// Gaussian likelihood with known covariance and a Gaussian prior ([Raisa2021] Section 5.1,
// "The Gaussian Model"; [RaisaKoskelaHonkela2021] Section 4):
//   θ ~ N_d(μ0, Σ0),   x_i | θ ~ N_d(θ, Σ),   posterior tempered by T.
// The tempered posterior is Gaussian with precision Λ = Σ0⁻¹ + T n Σ⁻¹ and mean
// Λ⁻¹(Σ0⁻¹ μ0 + T Σ⁻¹ Σ_i x_i) (conjugate update, Gelman et al., BDA Section 3.5), so it has an
// exact sampler.
#pragma once

#include "models/model.hpp"

namespace dpmcmc {

class GaussianModel : public Model {
 public:
  // prior_cov and cov must be symmetric positive definite d × d; temperature ∈ (0, 1]. Throws
  // ConfigError naming the offending parameter otherwise.
  GaussianModel(Vec prior_mean, Mat prior_cov, Mat cov, double temperature = 1.0);

  std::string name() const override { return "gaussian"; }
  int dim() const override { return static_cast<int>(mu0_.size()); }
  // "x.1", …, "x.d".
  std::vector<std::string> data_columns() const override;

  double log_prior(const Vec& theta) const override;
  void grad_log_prior(const Vec& theta, Eigen::Ref<Vec> out) const override;
  double temperature() const override { return temperature_; }

  // Normalised: log N(x_i; θ, Σ).
  void log_lik_rows(const Vec& theta, const RowBlock& rows, Eigen::Ref<Vec> out) const override;
  // (θ′ − θ)ᵀ Σ⁻¹ (x_i − (θ + θ′)/2): linear in x_i.
  void log_lik_ratio_rows(const Vec& theta, const Vec& theta_prime, const RowBlock& rows,
                          Eigen::Ref<Vec> out) const override;
  // Σ⁻¹ (x_i − θ).
  void grad_log_lik_rows(const Vec& theta, const RowBlock& rows,
                         Eigen::Ref<Mat> out) const override;

  // Σ_i log N(x_i; θ, Σ) = n c − ½[S + n (x̄ − θ)ᵀ Σ⁻¹ (x̄ − θ)], S = Σ_i (x_i − x̄)ᵀ Σ⁻¹ (x_i − x̄):
  // centred, so nothing cancels when the data sit far from 0. nullptr for an empty dataset.
  std::unique_ptr<const LikelihoodSummary> summarize(const Dataset& data) const override;

  // Rows x_i = θ + L z_i, Σ = L Lᵀ, z_i standard normal drawn row by row (so the first m rows of
  // a larger dataset are the same m rows).
  Dataset simulate(const Vec& theta, std::size_t n, Rng& rng) const override;

  bool has_exact_posterior() const override { return true; }
  Mat sample_posterior(const Dataset& data, std::size_t draws, Rng& rng) const override;

  // The closed-form tempered posterior given data.
  struct Moments {
    Vec mean;
    Mat cov;
  };
  Moments posterior_moments(const Dataset& data) const;

  const Vec& prior_mean() const { return mu0_; }
  const Mat& prior_covariance() const { return cov0_; }
  const Mat& covariance() const { return cov_; }

 private:
  // The posterior's precision Λ = Σ0⁻¹ + T n Σ⁻¹ (factored) and mean given data.
  struct Conditioned {
    Eigen::LLT<Mat> precision;
    Vec mean;
  };
  Conditioned condition(const Dataset& data) const;

  Vec mu0_;
  Mat cov0_, cov_;
  double temperature_;
  Mat prec0_;           // Σ0⁻¹
  Mat prec_;            // Σ⁻¹
  Mat chol_;            // L, Σ = L Lᵀ (lower)
  Mat whiten_;          // L⁻¹ (lower): |L⁻¹(x − θ)|² = (x − θ)ᵀ Σ⁻¹ (x − θ)
  double lik_const_;    // −½ log det(2π Σ)
  double prior_const_;  // −½ log det(2π Σ0)
};

}  // namespace dpmcmc
