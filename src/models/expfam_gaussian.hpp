// Gaussian mean with known covariance as an exponential family, for the exponential-family
// penalty algorithm ([Yildirim2020] Section 3.3, Algorithm 3):
//   θ ~ N_d(μ0, Σ0),   x_i | θ ~ N_d(θ, Σ),   every x_i declared to lie in the box [lo, hi].
// log p(x|θ) = θᵀΣ⁻¹x − ½θᵀΣ⁻¹θ + log h(x): s(x) = x, η(θ) = Σ⁻¹θ, A(θ) = ½θᵀΣ⁻¹θ.
// The box is a declaration about the data, not a truncation of the likelihood: it bounds s(x),
// so S = Σ x_i has L2 sensitivity Δ = ‖hi − lo‖₂ under substitution (one row moves anywhere in
// the box). Data outside the box are refused by PrivateData::suff_stat (DataError naming the
// row). The posterior given the data is the conjugate Gaussian of GaussianModel (T = 1).
#pragma once

#include "models/expfam_model.hpp"
#include "models/gaussian.hpp"

namespace dpmcmc {

class ExpFamGaussianModel final : public ExpFamModel {
 public:
  // GaussianModel's requirements on μ0, Σ0, Σ (ConfigError), plus lo, hi of size d, finite,
  // lo < hi componentwise (ConfigError naming "box lower/upper bound" and the component).
  ExpFamGaussianModel(Vec prior_mean, Mat prior_cov, Mat cov, Vec lower, Vec upper);

  std::string name() const override { return "gaussian-box"; }
  int dim() const override { return inner_.dim(); }
  std::vector<std::string> data_columns() const override { return inner_.data_columns(); }
  double log_prior(const Vec& theta) const override { return inner_.log_prior(theta); }
  void grad_log_prior(const Vec& theta, Eigen::Ref<Vec> out) const override {
    inner_.grad_log_prior(theta, out);
  }
  void log_lik_rows(const Vec& theta, const RowBlock& rows, Eigen::Ref<Vec> out) const override {
    inner_.log_lik_rows(theta, rows, out);
  }
  void log_lik_ratio_rows(const Vec& theta, const Vec& theta_prime, const RowBlock& rows,
                          Eigen::Ref<Vec> out) const override {
    inner_.log_lik_ratio_rows(theta, theta_prime, rows, out);
  }
  void grad_log_lik_rows(const Vec& theta, const RowBlock& rows,
                         Eigen::Ref<Mat> out) const override {
    inner_.grad_log_lik_rows(theta, rows, out);
  }
  // Rows of GaussianModel::simulate with every coordinate clamped into [lo, hi], so that
  // simulated data always satisfy the declaration (the exact posterior is that of the clamped
  // rows, which is what the sampler sees).
  Dataset simulate(const Vec& theta, std::size_t n, Rng& rng) const override;
  bool has_exact_posterior() const override { return true; }
  Mat sample_posterior(const Dataset& data, std::size_t draws, Rng& rng) const override {
    return inner_.sample_posterior(data, draws, rng);
  }
  GaussianModel::Moments posterior_moments(const Dataset& data) const {
    return inner_.posterior_moments(data);
  }

  int stat_dim() const override { return dim(); }
  std::vector<std::string> stat_names() const override { return data_columns(); }
  void stat_rows(const RowBlock& rows, Eigen::Ref<Mat> out) const override;
  const Vec& stat_lower() const override { return lower_; }
  const Vec& stat_upper() const override { return upper_; }

  Vec natural_parameter(const Vec& theta) const override { return prec_ * theta; }
  double log_partition(const Vec& theta) const override { return 0.5 * theta.dot(prec_ * theta); }

 private:
  GaussianModel inner_;
  Vec lower_, upper_;
  Mat prec_;  // Σ⁻¹
};

}  // namespace dpmcmc
