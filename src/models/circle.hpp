// The circle model ([Raisa2021] Section 5.1, "Circle Model"): one observed scalar r
// per row and parameters θ = (θ1, θ2) with
//   log p(r | θ) = −a (θ1² + θ2² − r²)²,   flat (improper) prior p(θ) = 1,
// so the posterior is a thin ring around the origin; the thesis shows it is normalisable and has
// mean (0, 0). The log-likelihood is not a normalised density in r (the thesis gives no
// generating model), so there is no normalising constant here either.
//
// simulate() ignores θ: the thesis draws r ~ N(3, 1) (Section 5.1, last paragraph), independent
// of any parameter. There is no exact posterior sampler.
#pragma once

#include "models/model.hpp"

namespace dpmcmc {

class CircleModel : public Model {
 public:
  // a > 0 (thesis: 1e-5); simulate draws r ~ N(r_mean, r_sd²) (thesis: 3, 1); T ∈ (0, 1].
  // Throws ConfigError otherwise.
  explicit CircleModel(double a = 1e-5, double r_mean = 3.0, double r_sd = 1.0,
                       double temperature = 1.0);

  std::string name() const override { return "circle"; }
  int dim() const override { return 2; }
  // "r".
  std::vector<std::string> data_columns() const override { return {"r"}; }

  // Flat prior: 0 everywhere, gradient 0.
  double log_prior(const Vec& theta) const override;
  void grad_log_prior(const Vec& theta, Eigen::Ref<Vec> out) const override;
  double temperature() const override { return temperature_; }

  void log_lik_rows(const Vec& theta, const RowBlock& rows, Eigen::Ref<Vec> out) const override;
  // With s = |θ|², s′ = |θ′|²: −a[(s′ − r²)² − (s − r²)²] = −a(s′ − s)(s′ + s) + 2a(s′ − s) r²,
  // linear in r².
  void log_lik_ratio_rows(const Vec& theta, const Vec& theta_prime, const RowBlock& rows,
                          Eigen::Ref<Vec> out) const override;
  // −4a(|θ|² − r²) θ.
  void grad_log_lik_rows(const Vec& theta, const RowBlock& rows,
                         Eigen::Ref<Mat> out) const override;

  // r_i ~ N(r_mean, r_sd²) independently of θ (θ is only checked for its size).
  Dataset simulate(const Vec& theta, std::size_t n, Rng& rng) const override;

  double a() const { return a_; }

 private:
  double a_, r_mean_, r_sd_, temperature_;
};

}  // namespace dpmcmc
