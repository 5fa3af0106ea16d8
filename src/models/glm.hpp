// Regression families on a user's design (data/design.hpp: columns x.1..x.p and y), each row's
// log-likelihood a function of the linear predictor z_i = x_iᵀβ (docs/user-guide.md, "Your data,
// your model"):
//   logistic  y ∈ {0, 1}: ℓ = y z − softplus(z)                       ∂ℓ/∂z = y − σ(z)
//   probit    y ∈ {0, 1}: ℓ = log Φ((2y − 1) z)                       ∂ℓ/∂z = (2y−1) φ/Φ
//   poisson   y ∈ ℕ (log link): ℓ = y z − e^z − log y!                ∂ℓ/∂z = y − e^z
//   linear    y ∈ ℝ: ℓ = −(y − z)²/(2σ²) − log σ − ½ log 2π          ∂ℓ/∂z = (y − z)/σ²
//   normal    the linear family with the intercept only (mean and sd of one column)
// σ is either known (`--sigma`) or a parameter: the last coordinate is s = log σ, with
// ∂ℓ/∂s = (y − z)²/σ² − 1. Priors are independent per parameter (models/coefficient_prior.hpp).
//
// Per-row bounds for the private samplers. With ‖x_i‖₂ ≤ R (public, from the schema) and a
// family whose ℓ is L-Lipschitz in z,
//   |ℓ(y, x_iᵀβ′) − ℓ(y, x_iᵀβ)| ≤ L |x_iᵀ(β′ − β)| ≤ L R ‖β′ − β‖₂            (Cauchy–Schwarz)
// for all β, β′: the log-likelihood-ratio bound per unit step of the DP penalty (its clip) and of
// TunaMH / DP-Fast MH ([ZhangZhang2023] Assumption 1, c_i = L‖x_i‖), and L R bounds each row's
// gradient norm. Only the logistic family is globally Lipschitz (L = 1, |y − σ(z)| < 1); its model
// implements RatioBound. For the others the derivative grows with |z| (probit's inverse Mills
// ratio, the Poisson rate, the Gaussian residual), so the private samplers clip at a public
// constant that holds only on a region of β (glm_lipschitz_guess) and the curator's clip fraction
// says how often it did not.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "models/coefficient_prior.hpp"
#include "models/model.hpp"
#include "models/ratio_bound.hpp"

namespace dpmcmc {

enum class GlmFamily { logistic, probit, poisson, linear, normal };

// "logistic", …; UsageError listing the families for an unknown name.
GlmFamily parse_glm_family(const std::string& name);
std::string to_string(GlmFamily family);
const std::vector<std::string>& glm_family_names();
// One line per family for `dpmcmc models`.
std::string glm_family_description(GlmFamily family);

struct GlmSpec {
  GlmFamily family = GlmFamily::logistic;
  std::vector<std::string> coefficient_names;   // p names (x.1..x.p of the design)
  std::vector<ScalarPrior> coefficient_priors;  // p priors
  std::optional<double> sigma;                  // linear/normal: known σ; none: log σ sampled
  ScalarPrior sigma_prior{ScalarPrior::Kind::half_normal, 1.0, 0.0, 1.0};
  std::vector<double> column_bounds;  // B_j ≥ |x_ij| (public), for simulate
  double row_norm_bound = 1.0;        // R ≥ ‖x_i‖₂ (public)
  double y_low = 0.0, y_high = 1.0;   // the target's declared bounds (public)
};

class GlmModel : public Model {
 public:
  // ConfigError for inconsistent sizes, a σ that is not positive, or σ with a family that has
  // none.
  explicit GlmModel(GlmSpec spec);

  std::string name() const override { return to_string(spec_.family); }
  int dim() const override {
    return static_cast<int>(spec_.coefficient_names.size()) + (sampled_sigma() ? 1 : 0);
  }
  // The coefficient names, then "log_sigma" when σ is sampled.
  std::vector<std::string> param_names() const override;
  std::vector<std::string> data_columns() const override;

  double log_prior(const Vec& theta) const override;
  void grad_log_prior(const Vec& theta, Eigen::Ref<Vec> out) const override;
  void log_lik_rows(const Vec& theta, const RowBlock& rows, Eigen::Ref<Vec> out) const override;
  void grad_log_lik_rows(const Vec& theta, const RowBlock& rows,
                         Eigen::Ref<Mat> out) const override;
  // A public synthetic design (each column uniform on [−B_j, B_j], the intercept 1) and y drawn
  // from the family at θ: for tests and `dpmcmc simulate`, never for the start rule.
  Dataset simulate(const Vec& theta, std::size_t n, Rng& rng) const override;

  const GlmSpec& spec() const { return spec_; }
  bool sampled_sigma() const;

 private:
  // z = X β for a block (validates the block's width); per-thread scratch.
  const Vec& linear_predictor(const Vec& theta, const RowBlock& rows) const;
  // log σ: the last coordinate when sampled, else log of the known σ (0 for the other families).
  double log_sigma(const Vec& theta) const;
  GlmSpec spec_;
};

// The logistic family, which also promises [ZhangZhang2023]'s Assumption 1 with c_i = ‖x_i‖₂ ≤ R
// and M = ‖β′ − β‖₂ (see above).
class LogisticGlmModel final : public GlmModel, public RatioBound {
 public:
  explicit LogisticGlmModel(GlmSpec spec);
  void row_bounds(const RowBlock& rows, Eigen::Ref<Vec> out) const override;
  double bound_distance(const Vec& theta, const Vec& theta_prime) const override;
  std::optional<double> public_row_bound() const override { return spec().row_norm_bound; }
};

std::unique_ptr<GlmModel> make_glm_model(GlmSpec spec);

// The family's mean E[y | z] at the linear predictor z: σ(z), Φ(z), e^z, or z (linear, normal).
double glm_mean(GlmFamily family, double z);

// L of the family (see above): exact for logistic (1); for the others a public guess that holds
// where the fit is reasonable: probit |z| ≤ 3 (φ/Φ at −3 ≈ 3.28), poisson rates up to the target's
// declared high bound, linear residuals within the target's declared range over σ².
double glm_lipschitz_guess(const GlmSpec& spec);

}  // namespace dpmcmc
