// The linear and normal regression families as exponential families, so that the penalty
// algorithm for exponential families ([Yildirim2020] Section 3.3, Algorithm 3;
// samplers/dp_penalty_expfam.hpp) runs on a user's design (issue 26).
//
// With t = y − m (m the middle of y's declared range when there is an intercept, else 0; the
// intercept absorbs it: β′₀ = β₀ − m, β′_j = β_j otherwise) and σ known or exp(θ_last), one row's
// log-likelihood (models/glm.hpp) expands as
//   ℓ = −(t − xᵀβ′)²/(2σ²) − log σ − ½ log 2π
//     = Σ_j (β′_j/σ²) x_j t − Σ_{j<k} (β′_jβ′_k/σ²) x_j x_k − Σ_j (β′_j²/(2σ²)) x_j²
//       − t²/(2σ²) − log σ − ½ log 2π,
// which is η(θ)ᵀ s(x, t) − A(θ) for the statistic of models/noisy_statistics.hpp
// (RegressionStatistic: the upper triangle of x xᵀ without the intercept's 1·1, x t, and t² when
// σ is sampled), with
//   η: −β′_j²/(2σ²) on x_j², −β′_jβ′_k/σ² on x_j x_k (j < k), β′_j/σ² on x_j t, −1/(2σ²) on t²;
//   A(θ) = β′₀²/(2σ²) (the unreleased 1·1 entry; 0 without an intercept) + log σ + ½ log 2π.
// With σ known, −t²/(2σ²) does not depend on θ: it is h(x), and t² is not released.
// The statistic is released in units of each component's declared width w_c, so η is returned
// in those units too (η_c · w_c): then ηᵀ(s/w) is the same number.
#pragma once

#include <string>
#include <vector>

#include "models/expfam_model.hpp"
#include "models/glm.hpp"
#include "models/noisy_statistics.hpp"

namespace dpmcmc {

class GlmExpFamModel final : public ExpFamModel {
 public:
  // `glm` must be of the linear or normal family (UsageError naming --sampler otherwise) and
  // outlive this view.
  explicit GlmExpFamModel(const GlmModel& glm);

  // The GLM's model, delegated.
  std::string name() const override { return glm_.name(); }
  int dim() const override { return glm_.dim(); }
  std::vector<std::string> param_names() const override { return glm_.param_names(); }
  std::vector<std::string> data_columns() const override { return glm_.data_columns(); }
  double log_prior(const Vec& theta) const override { return glm_.log_prior(theta); }
  void grad_log_prior(const Vec& theta, Eigen::Ref<Vec> out) const override {
    glm_.grad_log_prior(theta, out);
  }
  void log_lik_rows(const Vec& theta, const RowBlock& rows, Eigen::Ref<Vec> out) const override {
    glm_.log_lik_rows(theta, rows, out);
  }
  void grad_log_lik_rows(const Vec& theta, const RowBlock& rows,
                         Eigen::Ref<Mat> out) const override {
    glm_.grad_log_lik_rows(theta, rows, out);
  }
  Dataset simulate(const Vec& theta, std::size_t n, Rng& rng) const override {
    return glm_.simulate(theta, n, rng);
  }

  // The statistic (RegressionStatistic), delegated.
  int stat_dim() const override { return stat_.stat_dim(); }
  std::vector<std::string> stat_names() const override { return stat_.stat_names(); }
  void stat_rows(const RowBlock& rows, Eigen::Ref<Mat> out) const override {
    stat_.stat_rows(rows, out);
  }
  const Vec& stat_lower() const override { return stat_.stat_lower(); }
  const Vec& stat_upper() const override { return stat_.stat_upper(); }

  // η(θ) and A(θ) of the header, η in the released units.
  Vec natural_parameter(const Vec& theta) const override;
  double log_partition(const Vec& theta) const override;

 private:
  struct Coefficients {
    Vec beta;  // β′: the intercept shifted by the centre m
    double inv_var = 1.0;
    double log_sigma = 0.0;
  };
  Coefficients coefficients(const Vec& theta) const;

  const GlmModel& glm_;
  RegressionStatistic stat_;
};

}  // namespace dpmcmc
