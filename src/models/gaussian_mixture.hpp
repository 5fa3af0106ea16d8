// The truncated two-component Gaussian mixture of the minibatch-MH literature (Welling & Teh
// 2011; DP Barker; TunaMH; [ZhangZhang2023] Section 6.1 and Appendix E.1):
//   x_i | θ ~ ½ N(θ1, σx²) + ½ N(θ1 + θ2, σx²),   σx² = 2,   θ ~ N(0, diag(10, 1)),
// true θ = (0, 1); the posterior has modes near (0, 1) and (1, −1).
//
// Tempering. [ZhangZhang2023] generates N = 50 000 rows "and use[s] a temperature 500". In the
// minibatch-MH papers it builds on, a temperature τ divides the log-likelihood (π ∝ p(θ) Π
// p(x_i|θ)^{1/τ}), which in our convention log π = log p(θ) + T Σ log p(x_i|θ) is T = 1/τ = 1/500.
// This matches the DP Barker setting T = 100/N (docs/references.md, "DP Barker setting"): both give
// an effective sample size of N·T = 100 rows. kDpFastMhTemperature below is that value.
//
// Truncation and Assumption 1 ([ZhangZhang2023] Assumption 1; Appendix E.1). [ZhangZhang2023]'s
// text restricts the data to x_i ∈ [−3, 3] (its code does not) and uses the *untruncated* mixture
// density as the likelihood; we do the same with a configurable range [−R, R]. The default R = 8
// removes a negligible mass under the true θ:
// P(|x| > 8) = ½[P(|N(0,2)| > 8) + P(|N(1,2)| > 8)] ≈ ½[1.6e-8 + 3.7e-7] ≈ 2e-7, i.e. about 0.01 of
// the 50 000 rows, so the density used as likelihood is the one that generated the data up to that
// mass. (R = 3, [ZhangZhang2023]'s text, truncates ≈ 5.7% of the mass and shrinks the rows'
// variance below σx², which turns the two modes into one ridge: docs/decisions.md.)
//
// The per-row bound. With r1 = x − θ1, r2 = x − θ1 − θ2 and w2 ∈ (0, 1) the responsibility of the
// second component (w1 = 1 − w2),
//   ∇_θ log p(x|θ) = (w1 r1 + w2 r2, w2 r2) / σx².
// |∇|² = (w1 r1 + w2 r2)² + w2² r2² is convex in w2 (a sum of squares of affine functions), so
// its maximum over w2 ∈ [0, 1] is at an end: r1² (w2 = 0) or 2 r2² (w2 = 1). The prior support is
// unbounded, so (like [ZhangZhang2023], whose c_i of Appendix E.1 is a bound over |θ1|, |θ2| ≤ 3)
// we restrict θ to a declared box |θ1| ≤ a1, |θ2| ≤ a2: the prior is the N(0, diag(10, 1)) density
// truncated to the box (log prior −∞ outside). On the box |r1| ≤ |x| + a1 and
// |r2| ≤ |x| + a1 + a2, so
//   ‖∇_θ log p(x|θ)‖₂ ≤ √2 (|x| + a1 + a2) / σx² =: c(x),
// and since the box is convex the mean-value theorem along the segment θ → θ′ gives
//   |log p(x|θ′) − log p(x|θ)| ≤ c(x) ‖θ′ − θ‖₂,   i.e. c_i = c(x_i), M(θ, θ′) = ‖θ − θ′‖₂.
// This is tighter than [ZhangZhang2023]'s c_i = √(((2|x|+9)/σx²)² + ((|x|+6)/σx²)²) (their
// a1 = a2 = 3, |∂θ1| bounded by |r1| + |r2|): at x = 0, 4.24 against 5.41. Default box a1 = a2 = 3
// ([ZhangZhang2023]'s): with N·T = 100 the posterior sds are ≈ 0.2–0.4, far inside it.
//
// Exact posterior (for evaluation: MMD reference draws and the presets' starting deviation).
// There is no closed form; sample_posterior draws from the grid reference of
// models/adaptive_grid.hpp over the prior's box (outside which the posterior is zero), with its
// default resolution (32² coarse cells, then 100² fine cells around the mass). At N = 50 000 rows
// that is ≈ 11 000 evaluations of the whole data set, ≈ 10 s on the development machine, so
// grids are kept in the model's ReferenceCache (models/reference_cache.hpp), keyed on the
// model's parameters and the data values themselves: a run asks twice (starting deviation, MMD
// reference), and an experiment hands one cache to the models of all its cells.
#pragma once

#include <numbers>

#include <memory>

#include "models/grid_posterior.hpp"
#include "models/model.hpp"
#include "models/ratio_bound.hpp"
#include "models/reference_cache.hpp"

namespace dpmcmc {

// [ZhangZhang2023] Section 6.1 "temperature 500" in our convention (see above).
inline constexpr double kDpFastMhTemperature = 1.0 / 500.0;

class GaussianMixtureModel : public Model, public RatioBound {
 public:
  struct Params {
    double sigma_x2 = 2.0;      // σx², the variance of each component
    double prior_var1 = 10.0;   // prior variance of θ1
    double prior_var2 = 1.0;    // prior variance of θ2
    double temperature = 1.0;   // T ∈ (0, 1]; [ZhangZhang2023]'s setting is kDpFastMhTemperature
    double data_range = 8.0;    // R: rows must lie in [−R, R] for the ratio bound
    double theta_bound1 = 3.0;  // a1: the box |θ1| ≤ a1 of the prior's support
    double theta_bound2 = 3.0;  // a2: |θ2| ≤ a2
  };

  // Throws ConfigError naming the parameter unless every value is finite and positive and
  // T ∈ (0, 1].
  explicit GaussianMixtureModel(Params params);
  GaussianMixtureModel() : GaussianMixtureModel(Params{}) {}

  std::string name() const override { return "gaussian-mixture"; }
  int dim() const override { return 2; }
  // "x".
  std::vector<std::string> data_columns() const override { return {"x"}; }

  // The N(0, diag(v1, v2)) density truncated to the box, normalised on it; −∞ outside.
  double log_prior(const Vec& theta) const override;
  // −θ_j / v_j, the Gaussian's gradient. Outside the box the density is 0 and the value has no
  // meaning; it is still finite, and kernels reject such points on their log density.
  void grad_log_prior(const Vec& theta, Eigen::Ref<Vec> out) const override;
  double temperature() const override { return p_.temperature; }

  // log(½ N(x; θ1, σx²) + ½ N(x; θ1 + θ2, σx²)), with the two terms combined as
  // m + log1p(exp(−|a − b|)), m = max(a, b) (the stable log-sum-exp, vectorised).
  void log_lik_rows(const Vec& theta, const RowBlock& rows, Eigen::Ref<Vec> out) const override;
  // (w1 r1 + w2 r2, w2 r2) / σx² (see above).
  void grad_log_lik_rows(const Vec& theta, const RowBlock& rows,
                         Eigen::Ref<Mat> out) const override;

  bool has_exact_posterior() const override { return true; }
  // The adaptive grid's coarse and fine points, each a full pass over the rows.
  double reference_row_evaluations(std::size_t rows) const override;
  // `draws` draws from the grid reference (see above); grid_reference(data).sample(draws, rng).
  Mat sample_posterior(const Dataset& data, std::size_t draws, Rng& rng) const override;
  // The grid reference posterior given `data`: computed once per (parameters, data) and kept in
  // the model's reference cache (its own, or one shared with share_reference_cache).
  std::shared_ptr<const GridPosterior> grid_reference(const Dataset& data) const;
  void share_reference_cache(std::shared_ptr<ReferenceCache> cache) override;
  // The prior's box [−a1, a1] × [−a2, a2].
  Box2d support() const;

  // n rows from the mixture truncated to [−R, R] (each row redrawn until it lies in range).
  // ConfigError if θ puts less than 1e-3 of its mass in range (rejection would not end).
  Dataset simulate(const Vec& theta, std::size_t n, Rng& rng) const override;

  // RatioBound: c_i = √2 (|x_i| + a1 + a2) / σx² (untempered); DataError naming the row (1-based
  // position in `rows`; the whole dataset when TunaMH calls it) when x_i ∉ [−R, R] or is not
  // finite.
  void row_bounds(const RowBlock& rows, Eigen::Ref<Vec> out) const override;
  // ‖θ − θ′‖₂.
  double bound_distance(const Vec& theta, const Vec& theta_prime) const override;
  // c̄ = √2 (data_range + theta_bound1 + theta_bound2) / σ_x² (the c_i above at their largest).
  std::optional<double> public_row_bound() const override {
    return std::numbers::sqrt2 * (p_.data_range + p_.theta_bound1 + p_.theta_bound2) / p_.sigma_x2;
  }

  // Whether θ lies in the prior's box.
  bool in_support(const Vec& theta) const;
  const Params& params() const { return p_; }

 private:
  Params p_;
  double lik_const_;    // −log(2 √(2π σx²)): the ½ weights and the normal constant
  double prior_const_;  // −log of the truncated prior's normaliser
  // Grid references (shared by the copies of this model, and with whoever shares a cache).
  std::shared_ptr<ReferenceCache> references_ = std::make_shared<ReferenceCache>();
};

}  // namespace dpmcmc
