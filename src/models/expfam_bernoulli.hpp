// Bernoulli likelihood with a conjugate Beta prior, the discrete exponential-family model of
// issue 4 item 4 ([Yildirim2020] Section 3.3):
//   p ~ Beta(a, b),   y_i | p ~ Bernoulli(p),   y_i ∈ {0, 1}.
// log p(y|p) = y logit(p) + log(1 − p): s(y) = y ∈ [0, 1], η(p) = logit p, A(p) = −log(1 − p).
// S = Σ y_i has L2 sensitivity Δ = 1 under substitution. The posterior is
// Beta(a + S, b + n − S) (BDA, Section 2.4). θ = (p), one parameter; the prior is −∞ outside
// (0, 1), so a sampler rejects such proposals without touching the data.
#pragma once

#include "models/expfam_model.hpp"

namespace dpmcmc {

class ExpFamBernoulliModel final : public ExpFamModel {
 public:
  // a, b finite and > 0 (ConfigError naming the parameter).
  ExpFamBernoulliModel(double a, double b);

  std::string name() const override { return "bernoulli-beta"; }
  int dim() const override { return 1; }
  std::vector<std::string> param_names() const override { return {"p"}; }
  std::vector<std::string> data_columns() const override { return {"y"}; }
  double log_prior(const Vec& theta) const override;
  void grad_log_prior(const Vec& theta, Eigen::Ref<Vec> out) const override;
  // y log p + (1 − y) log(1 − p).
  void log_lik_rows(const Vec& theta, const RowBlock& rows, Eigen::Ref<Vec> out) const override;
  void grad_log_lik_rows(const Vec& theta, const RowBlock& rows,
                         Eigen::Ref<Mat> out) const override;
  Dataset simulate(const Vec& theta, std::size_t n, Rng& rng) const override;
  bool has_exact_posterior() const override { return true; }
  // Beta(a + S, b + n − S) draws as G₁/(G₁ + G₂), G ~ Gamma. DataError naming the row unless
  // every y is 0 or 1.
  Mat sample_posterior(const Dataset& data, std::size_t draws, Rng& rng) const override;
  // (a + S, b + n − S), with the same check.
  std::pair<double, double> posterior_parameters(const Dataset& data) const;

  int stat_dim() const override { return 1; }
  std::vector<std::string> stat_names() const override { return {"y"}; }
  // y, or NaN when y is not 0 or 1.
  void stat_rows(const RowBlock& rows, Eigen::Ref<Mat> out) const override;
  const Vec& stat_lower() const override { return lower_; }
  const Vec& stat_upper() const override { return upper_; }
  std::string stat_expectation(int) const override { return "0 or 1"; }

  Vec natural_parameter(const Vec& theta) const override;
  double log_partition(const Vec& theta) const override;

  double a() const { return a_; }
  double b() const { return b_; }

 private:
  double a_, b_, log_beta_;
  Vec lower_ = Vec::Zero(1), upper_ = Vec::Ones(1);
};

}  // namespace dpmcmc
