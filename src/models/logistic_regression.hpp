// Bayesian logistic regression ([ZhangZhang2023] Section 6 and Appendix E.2: MNIST 7 vs
// 9 on 50 principal components; here Fashion-MNIST, see data/fashion_mnist.hpp).
//
// Each data row is (x_i, y_i) with x_i ∈ R^d and y_i ∈ {0, 1}; with the logit z = x_iᵀθ,
//   p(y_i = 1 | x_i, θ) = σ(z) = 1 / (1 + e^{−z}),
//   log p(y_i | x_i, θ) = y_i z − log(1 + e^z) = y_i z − softplus(z),
//   ∇_θ log p(y_i | x_i, θ) = (y_i − σ(z)) x_i,
// and the prior is θ ~ N(0, s² I). The likelihood is tempered by T ∈ (0, 1] (model.hpp).
// softplus(z) = max(z, 0) + log1p(e^{−|z|}) never overflows (e^{−|z|} ≤ 1) and keeps full
// relative accuracy for z ≪ 0 (where it is ≈ e^z); σ is evaluated from e^{−|z|} on both sides.
//
// Per-row bound (Assumption 1 of [ZhangZhang2023]; the paper's Appendix E.2 bounds each partial
// derivative, the derivation here is the same in norm form): ℓ(z) = yz − softplus(z) has
// ℓ′(z) = y − σ(z) ∈ (−1, 1) for y ∈ {0, 1}, so ℓ is 1-Lipschitz in z and, by the mean-value
// theorem and Cauchy–Schwarz,
//   |log p(y_i|x_i,θ′) − log p(y_i|x_i,θ)| ≤ |x_iᵀ(θ′ − θ)| ≤ ‖x_i‖₂ ‖θ′ − θ‖₂,
// i.e. c_i = ‖x_i‖₂ and M(θ, θ′) = ‖θ − θ′‖₂, for every θ (no restriction on the parameter).
// For privacy the c_i must be bounded by a public constant: the model declares a norm bound R
// and row_bounds refuses any row with ‖x_i‖ > R (DataError) instead of clipping it silently.
#pragma once

#include "models/model.hpp"
#include "models/ratio_bound.hpp"

namespace dpmcmc {

class LogisticRegressionModel : public Model, public RatioBound {
 public:
  struct Params {
    int dim = 50;              // d: number of features (= parameters)
    double prior_sd = 10.0;    // s of the prior N(0, s² I)
    double norm_bound = 1.0;   // R: rows must satisfy ‖x_i‖₂ ≤ R
    double temperature = 1.0;  // T ∈ (0, 1]
  };

  // ConfigError naming the parameter when d < 1, s or R is not positive and finite, or
  // T ∉ (0, 1].
  explicit LogisticRegressionModel(Params params);

  std::string name() const override { return "logistic"; }
  int dim() const override { return p_.dim; }
  // "x.1", …, "x.d", "y".
  std::vector<std::string> data_columns() const override;

  // Normalised Gaussian: −‖θ‖²/(2s²) − (d/2) log(2π s²).
  double log_prior(const Vec& theta) const override;
  void grad_log_prior(const Vec& theta, Eigen::Ref<Vec> out) const override;
  double temperature() const override { return p_.temperature; }

  // The three kernels below refuse (DataError naming the row of the block) a label y ∉ {0, 1}:
  // a vectorised check of one column, negligible beside the d-column product.
  void log_lik_rows(const Vec& theta, const RowBlock& rows, Eigen::Ref<Vec> out) const override;
  // y(z′ − z) − (softplus(z′) − softplus(z)) with one pass over the block.
  void log_lik_ratio_rows(const Vec& theta, const Vec& theta_prime, const RowBlock& rows,
                          Eigen::Ref<Vec> out) const override;
  void grad_log_lik_rows(const Vec& theta, const RowBlock& rows,
                         Eigen::Ref<Mat> out) const override;

  // Public synthetic design: x_i uniform in the ball of radius R (direction a normalised
  // standard normal vector, radius R·u^{1/d}), y_i ~ Bernoulli(σ(x_iᵀθ)); row by row.
  Dataset simulate(const Vec& theta, std::size_t n, Rng& rng) const override;

  // c_i = ‖x_i‖₂; DataError naming the row when ‖x_i‖ > R or y_i ∉ {0, 1}.
  void row_bounds(const RowBlock& rows, Eigen::Ref<Vec> out) const override;
  // ‖θ − θ′‖₂.
  double bound_distance(const Vec& theta, const Vec& theta_prime) const override;
  std::optional<double> public_row_bound() const override { return p_.norm_bound; }

  // Posterior predictive P(y = 1 | x_i) = (1/S) Σ_s σ(x_iᵀθ_s) for every row of `rows` (columns
  // x.1..x.d, y; y is ignored), the θ_s being the rows of `draws` (S × d). Test rows may exceed
  // the norm bound (public evaluation data).
  Vec predictive_probabilities(const Mat& draws, const RowBlock& rows) const;
  // Fraction of rows of `test` whose predicted class (1 when P(y = 1 | x) > ½, else 0) equals y.
  double predictive_accuracy(const Mat& draws, const Dataset& test) const;

  const Params& params() const { return p_; }

 private:
  // z = X θ of a block into the per-thread scratch; validates sizes and labels.
  const Vec& logits(const Vec& theta, const RowBlock& rows, Eigen::Index out_rows) const;

  Params p_;
  double prior_const_;  // −(d/2) log(2π s²)
};

}  // namespace dpmcmc
