// "Release once, sample forever" for regression families (issue 26; Bernstein and Sheldon 2018,
// 2019, "Differentially private Bayesian inference for exponential families" and "... linear
// regression"): the rows are released once as noisy sufficient statistics; every draw after that
// is post-processing of the release, so a chain may run as long as the user wants at no further
// cost.
//
// Per row, with design row x (p columns, |x_j| ≤ B_j public) and target t:
//   s(x, t) = (upper triangle of x xᵀ, row by row, without the intercept's 1·1; x t; t²)
// t = y − m for linear and normal (m the middle of y's declared range when there is an intercept,
// which absorbs it; else 0; t² only when σ is sampled: it informs σ alone), t = y − ½ for
// logistic. (Without centring a target declared on [100, 110] would be released with noise for
// a range of 110 instead of 5.) Each component lies in a declared interval from the public bounds
// (x_j x_k ∈ [−B_jB_k, B_jB_k], x_j² ∈ [0, B_j²], x_j t ∈ [−B_jT, B_jT] with T = max |t|, t² ∈ [0,
// T²]) of width w. The released vector is s_j / w_j: every component then has width 1, the L2
// sensitivity under substitution is √k (models/expfam_model.hpp, stat_sensitivity), and the
// isotropic Gaussian noise of the release has sd σ_j = σ·w_j in the statistic's own units. (The
// cross products x t are released in units of w_j/2 where x xᵀ has entries to trade against:
// width 2, so Δ = √(k + 3p); see kCrossProductUnit.) Without
// this scaling one noise level served every component and the widest (t², width T²) set it: at
// ε = 10, n = 2000 the released XᵀX was off by 20 and the slope 4 posterior sds from the truth.
//
// Posteriors given the release (A, b, c its three parts in the statistic's units; Ã the
// symmetric A with negative eigenvalues raised to 0; E = Ã − A the noise of A, entries of sd
// σ_jk):
//   linear / normal (noise-aware, conditional on the design as regression is): given β and σ,
//     b = Xᵀy and c = yᵀy have mean (Aβ, βᵀAβ + nσ²) and covariance
//     [[σ²A, 2σ²Aβ], [2σ²βᵀA, 4σ²βᵀAβ + 2nσ⁴]] (exact moments for Gaussian errors); the release
//     adds its noise to b and c, and writing Ãβ for Aβ adds the errors-in-variables terms of Eβ
//     (to first order: V_jl = σ²_jl β_j β_l for j ≠ l, V_jj = Σ_k σ²_jk β_k²; for c, Σ_{j≤k}
//     (m_jk β_j β_k)² σ²_jk with m = 1 on the diagonal and 2 off it, and their covariances). The
//     likelihood is this Gaussian (a CLT approximation for c, as Bernstein and Sheldon's). With
//     σ known only b is used: given b, c carries no information about β.
//   logistic (PASS-GLM, Huggins et al. 2017, with the second-order expansion at 0):
//     log p(y | η) = (y − ½)η − log(2 cosh(η/2)) ≈ (y − ½)η − η²/8 − log 2, so the
//     log-likelihood is βᵀb − βᵀAβ/8 up to a constant: in β, that of a Gaussian observation
//     b ~ N(Aβ/4, A/4). With the release's noise and Eβ/4 as above, b̃ ~ N(Ãβ/4, Ã/4 + D + V/16):
//     directions the noise swamps carry no pull on β (the plug-in βᵀb̃ − βᵀÃβ/8 drove
//     coefficients into the prior's tails there). The expansion is exact only near η = 0 and
//     shrinks large coefficients: an approximation, documented as such (docs/user-guide.md,
//     "Release once, sample forever").
//   logistic, expanded at a public centre β₀ (a pilot release's estimate, issue 60): the same
//     second-order expansion at η₀ = xᵀβ₀ instead of 0. With s₀ = σ(η₀), u = 4s₀(1 − s₀) and
//     r = y − s₀, ℓ(η) ≈ ℓ(η₀) + r(η − η₀) − (u/8)(η − η₀)², so the released
//       A = Σ u x xᵀ (the intercept's Σ u released too once β₀ ≠ 0),  b = Σ r x
//     give b ~ N(A(β − β₀)/4, A/4) (E r = σ(η) − s₀ ≈ (u/4)(η − η₀), var r ≈ u/4): at β₀ = 0 this
//     is the expansion above, bit for bit. The remainder is cubic in η − η₀, so a centre within a
//     posterior sd or two of the answer leaves no visible bias; each pilot release is one Newton
//     step of iteratively reweighted least squares (Newton's quadratic convergence). The bounds
//     hold for every row: with R = Σ_j |β₀_j| B_j ≥ |η₀|, r ∈ [−σ(R), σ(R)] and u ∈ [4σ(R)(1 −
//     σ(R)), 1], so x_j r ∈ ±B_j σ(R) and u x_j x_k ∈ ±B_j B_k, as at 0.
//   poisson, expanded at a public centre β₀ (pilot releases, as for logistic): with
//     m₀ = e^{η₀} ∈ [e^{−R}, e^R], ℓ(η) ≈ ℓ(η₀) + (y − m₀)(η − η₀) − (m₀/2)(η − η₀)², so the
//     released A = Σ u x xᵀ with u = m₀ e^{−R} ∈ [e^{−2R}, 1] (the intercept's Σ u too) and
//     b = Σ (y − m₀) x, y − m₀ ∈ [y_low − e^R, y_high − e^{−R}], give b ~ N(e^R A(β − β₀),
//     e^R A) (E y = e^η ≈ m₀(1 + η − η₀), var y = e^η ≈ m₀). No model of the covariates is
//     needed: the rows' own Σ m₀ x xᵀ is released. The first pilot is the release above (the
//     Gaussian covariates' model), whose posterior mode is its centre.
//   linear / normal, centred at a public β₀ (a pilot release's estimate, issue 60): the target
//     is the residual t = clip(y − xᵀβ₀, ±T), T from the pilot (residual_centre: three upper σs
//     and the pilot's uncertainty in xᵀβ). Unclipped, t = xᵀ(β − β₀) + e, so the likelihood is
//     the one above in Δ = β − β₀. The release's noise on b scales with T: against the declared
//     range's half-width it shrinks by that range over a few σ (at y on ±8, σ = 1: 8 against
//     about 5), and the errors-in-variables terms shrink with Δ. The clip is modelled, for
//     Gaussian errors and to first order in xᵀΔ (which the pilot makes small): with
//     k = clipped_normal(T/σ), b has mean k.inside·AΔ and covariance σ²k.second·A, c mean
//     k.curve·ΔᵀAΔ + nσ²k.second and variance σ²k.spread()·ΔᵀAΔ + nσ⁴(k.fourth − k.second²),
//     and Cov(b, c) = σ²k.cross()·AΔ (unclipped: 4σ²ΔᵀAΔ + 2nσ⁴ and 2σ²AΔ). As σ grows past T,
//     curve, spread and cross all vanish with the share of unclipped rows: c then says nothing of
//     Δ, and no large Δ can explain it.
//     At T = 3σ that is 0.27 % of rows clipped and E t² = 0.995σ², which unmodelled would move
//     log σ by 0.25 % (3.5 of its posterior sds at 10⁶ rows). Errors with heavier tails than
//     Gaussian are clipped more than the model says.
//   poisson (log link; needs the intercept, whose column gives X ᵀ1 = n m̄): Xᵀy has no finite
//     sufficient statistic to stand on, so the covariates are modelled as Gaussian with the
//     released moments, mean m̄ = A e₀/n and covariance S = A/n − m̄m̄ᵀ (negative eigenvalues
//     raised to 0), as Bernstein and Sheldon (2019) model the covariates of linear regression.
//     Then η = xᵀβ ~ N(ρ, βᵀSβ) with ρ = m̄ᵀβ, and with λ = n e^c, c = ρ + ½βᵀSβ, u = m̄ + Sβ:
//       E[Xᵀy] = Σ x e^η ≈ λu,  Cov[Xᵀy] = Σ x xᵀ e^η ≈ λ(uuᵀ + S)
//     (the moments of x e^{xᵀβ} under that Gaussian; Poisson's variance equals its mean). The
//     rows are conditioned on, as in the other families: over samples of covariates Σ x e^η
//     varies much more, but almost all of that is the variation of Σx and Σxxᵀ, which the
//     release fixes (a variance term over new samples made the slope's posterior sd about 2×
//     too wide). The
//     released b = Xᵀ(y − m) (m the middle of y's declared range) has mean λu − m A e₀, and the
//     likelihood is the Gaussian with these moments plus the release's noise D and the
//     errors-in-variables term of A's noise E, to first order dμ = E w + g₁ e₀ᵀEβ + g₂ βᵀEβ with
//     w = e^c((1 − ρ)e₀ + β) − m e₀, g₁ = e^c((1 − ρ)u − m̄), g₂ = ½e^c u. With the intercept
//     alone this is the central-limit Gaussian of Σy ~ Poisson(n e^β₀), the exact family's
//     statistic; with covariates it is exact for Gaussian covariates only, and bounded ones
//     (lighter tails) shrink large effects (docs/user-guide.md, "Release once, sample forever",
//     measures by how much).
// Gradients: analytic where the mean is linear in β (logistic; linear and normal with σ known),
// central differences where σ or the rate moves the covariance too (σ sampled, poisson).
#pragma once

#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/expfam_model.hpp"
#include "models/glm.hpp"

namespace dpmcmc {

class RegressionStatistic final : public SufficientStatistic {
 public:
  // The unit of the cross products x t, as a share of their declared width (see the .cpp).
  static constexpr double kCrossProductUnit = 0.5;

  // The family (linear, normal, logistic or poisson), the design's coefficient names and public
  // bounds. ConfigError for another family, or poisson without an intercept or with a target
  // declared below 0.
  // expansion_centre: logistic and poisson, the public β₀ of the expansion (the header); none is
  // the expansion at 0 (logistic) or the Gaussian covariates' model (poisson). Linear and
  // normal: the centre of the residuals t = clip(y − xᵀβ₀, ±residual_bound) (the header; no
  // bound: the declared ranges' own, which never clips). ConfigError for a centre of the wrong
  // size or not finite, or a bound without a centre, on another family or not positive.
  explicit RegressionStatistic(const GlmSpec& glm,
                               std::optional<Vec> expansion_centre = std::nullopt,
                               std::optional<double> residual_bound = std::nullopt);

  int stat_dim() const override { return static_cast<int>(names_.size()); }
  std::vector<std::string> stat_names() const override { return names_; }
  void stat_rows(const RowBlock& rows, Eigen::Ref<Mat> out) const override;
  const Vec& stat_lower() const override { return lower_; }
  const Vec& stat_upper() const override { return upper_; }

  int coefficients() const { return p_; }
  // w: the widths of the declared intervals; a released component times w_j is in the
  // statistic's units.
  const Vec& widths() const { return widths_; }
  // A released vector (as stat_rows writes it) in the statistic's units.
  Vec to_units(const Vec& released) const;
  // The design's first column is the intercept: Σ 1 = n is public and not released, and for
  // linear and normal t = y − centre(), the middle of y's declared range.
  bool has_intercept() const { return intercept_; }
  double centre() const { return centre_; }
  double shift() const { return shift_; }      // t = y − shift()
  bool has_square() const { return square_; }  // Σ t² released (linear, normal with σ sampled)
  // Σ u of the intercept's column is released (logistic expanded at β₀ ≠ 0), not the public n.
  bool releases_intercept_weight() const { return intercept_weight_; }
  // β₀ of the expansion (zero without a centre).
  const Vec& expansion_centre() const { return centre_beta_; }
  // The statistic is a centred second-order expansion (logistic at β₀ ≠ 0, poisson with a
  // centre): b ~ N(c·A(β − β₀), c·A) with c = curvature(): ¼ for logistic, e^R for poisson.
  bool is_expansion() const { return expansion_; }
  double curvature() const { return curvature_; }
  // Linear and normal centred at β₀: t is the residual y − xᵀβ₀ clipped at ±residual_bound().
  bool is_residual() const { return residual_; }
  double residual_bound() const { return residual_bound_; }

 private:
  int p_ = 0;
  bool square_ = false, intercept_ = false, intercept_weight_ = false;
  double shift_ = 0.0;   // t = y − shift
  double centre_ = 0.0;  // the shift the intercept absorbs (linear, normal)
  Vec centre_beta_;      // β₀ of the expansion; zero: none
  bool weighted_ = false, expansion_ = false, poisson_ = false, residual_ = false;
  double residual_bound_ = 0.0;  // T = max |t|
  double curvature_ = 0.25;      // c (is_expansion)
  std::vector<std::string> names_;
  Vec lower_, upper_, widths_;
};

// The posterior given a release: the data are one public row, the released S̃ in the
// statistic's units (columns stat_names()). Parameters and priors are the family's (the GLM
// model's; its log_prior is used).
class NoisyStatisticsModel final : public Model {
 public:
  // glm: the family's model on the design (priors, names); n: public rows; noise_sd: the sd of
  // each released component in the statistic's units (the release's sd times widths()).
  // released: the release the chains will read, if known; its decomposition of Ã is then
  // computed once instead of at every evaluation (any other row is decomposed when read).
  NoisyStatisticsModel(std::shared_ptr<const GlmModel> glm, const RegressionStatistic& stat,
                       double n, Vec noise_sd, std::optional<Vec> released = std::nullopt);

  std::string name() const override;
  int dim() const override { return glm_->dim(); }
  std::vector<std::string> param_names() const override { return glm_->param_names(); }
  std::vector<std::string> data_columns() const override { return columns_; }
  double log_prior(const Vec& theta) const override { return glm_->log_prior(theta); }
  void grad_log_prior(const Vec& theta, Eigen::Ref<Vec> out) const override {
    glm_->grad_log_prior(theta, out);
  }
  void log_lik_rows(const Vec& theta, const RowBlock& rows, Eigen::Ref<Vec> out) const override;
  void grad_log_lik_rows(const Vec& theta, const RowBlock& rows,
                         Eigen::Ref<Mat> out) const override;
  // The release is not a sample of rows: refused (ConfigError).
  Dataset simulate(const Vec& theta, std::size_t n, Rng& rng) const override;

  // The log-likelihood of a released statistic row (public: tests).
  double log_lik(const Vec& theta, const Eigen::Ref<const Vec>& released) const;
  // Its Gaussian: the released (b, c) minus their mean given θ, and their covariance
  // (public: tests compare it with simulated releases).
  struct Observation {
    Vec residual;
    Mat covariance;
  };
  Observation observation(const Vec& theta, const Eigen::Ref<const Vec>& released) const;

  // Logistic and centred poisson: the mean of the posterior given the release with the
  // likelihood linearised at the expansion centre β₀ and each prior replaced by a Gaussian of its
  // mean and scale — the next pilot's centre (post-processing). With H = Ã/4, C = H + D (the
  // release's noise on b) and Λ, m the priors' precisions and means:
  //   β₀ + (H C⁻¹ H + Λ)⁻¹ (H C⁻¹ b + Λ (m − β₀)),
  // one regularised Newton step of the rows' log-likelihood where the noise is small (C ≈ H),
  // and no step where it swamps b (C ≈ D). ConfigError for another family.
  Vec linearised_mean(const Eigen::Ref<const Vec>& released) const;
  // The next pilot's centre: linearised_mean for an expansion; for poisson's first release (the
  // Gaussian covariates' model, not linear in β) its posterior mode (posterior_mode) from the
  // intercept of the released mean count; for linear and normal residual_centre's.
  Vec pilot_centre(const Eigen::Ref<const Vec>& released) const;

  // Linear and normal: the next release's centre and residual bound (the header), from the
  // posterior mode (β̂, σ̂) given this release and the curvature there: β₀ = β̂ and
  // T = kResidualSigmas σ_hi + 2 s, with σ_hi = σ̂ e^{2 sd(log σ̂)} (σ when known) and
  // s = √(λ_max(Cov β̂) Σ_j B_j²), at least the sd of xᵀ(β − β̂) at any x in the box. No bound
  // (infinity) where the curvature is not negative definite or Newton stopped short of the mode.
  // Post-processing of the release.
  static constexpr double kResidualSigmas = 3.0;
  struct ResidualCentre {
    Vec centre;
    double bound = 0.0;
    Vec mode;  // the posterior mode θ (β̂ and, where sampled, log σ̂)
    double log_sigma_sd = std::numeric_limits<double>::quiet_NaN();  // σ sampled: sd of log σ̂
    Vec sd;  // every parameter's sd at the mode (from the curvature; empty without one)
  };
  ResidualCentre residual_centre(const Eigen::Ref<const Vec>& released) const;

  // The moments of clip(e, ±t) for e ~ N(0, 1) (the residuals' clip in units of σ), and their
  // derivatives in a shift μ at μ = 0 (a row's xᵀ(β − β₀)/σ), from d²/dμ² E h(μ + e) = E h''(e)
  // with h'' carrying the jumps of h' at ±t:
  //   inside = P(|e| < t) = 2Φ(t) − 1, the slope of E clip(μ + e);
  //   second = E clip(e)² = curve + 2t²(1 − Φ(t));
  //   curve = ½ d²/dμ² E clip(μ + e)² = E[e²; |e| < t] = inside − 2tφ(t);
  //   fourth = E clip(e)⁴ = inner_fourth + 2t⁴(1 − Φ(t)), inner_fourth = E[e⁴; |e| < t] =
  //     3·inside − 2φ(t)(t³ + 3t);
  //   cross() = d/dμ Cov(clip, clip²) = 3·curve − inside·second (2 unclipped);
  //   spread() = ½ d²/dμ² Var(clip²) = 2(inner_fourth − second·curve) (4 unclipped).
  // e's own from t = 40.
  struct ClippedNormal {
    double inside = 1.0, second = 1.0, fourth = 3.0, curve = 1.0, inner_fourth = 3.0;
    double cross() const { return 3.0 * curve - inside * second; }
    double spread() const { return 2.0 * (inner_fourth - second * curve); }
  };
  static ClippedNormal clipped_normal(double t);

  // The log-likelihood's gradient is analytic for logistic and for linear and normal with σ
  // known (the .cpp gives it), central differences otherwise.
  bool has_analytic_gradient() const;
  Vec analytic_gradient(const Vec& theta, const Eigen::Ref<const Vec>& released) const;

 private:
  struct Parts {
    Mat a;  // Ã
    Vec b;
    double c = 0.0;
    Vec mean_x;  // poisson: m̄ and S (the header)
    Mat cov_x;
  };
  // The errors-in-variables covariance of (Eβ, βᵀEβ) added to (b, c).
  struct Errors {
    Mat bb;
    Vec bc;
    double cc = 0.0;
  };
  Errors errors_in_variables(const Vec& beta) const;
  // The posterior's mode from theta by damped Newton steps of norm ≤ 1 (gradient steps where the
  // Hessian is not negative definite), derivatives by central differences; with the Hessian there.
  struct Mode {
    Vec theta;
    Mat hessian;
    bool converged = false;  // the Newton decrement is small there
  };
  Mode posterior_mode(const Eigen::Ref<const Vec>& released, Vec theta) const;
  Observation poisson_observation(const Vec& beta, const Parts& q) const;
  Parts parts(const Eigen::Ref<const Vec>& released) const;
  Parts decompose(const Eigen::Ref<const Vec>& released) const;
  // log N(residual; 0, cov); −∞ when cov is not positive definite.
  static double gaussian_log_density(const Vec& residual, const Mat& cov);

  std::shared_ptr<const GlmModel> glm_;
  GlmFamily family_;
  int p_ = 0;
  bool square_ = false, intercept_ = false;
  bool n_public_ = false;  // the intercept's Σ 1 = n is not released
  double centre_ = 0.0;
  Vec centre_beta_;          // β₀ of the expansion
  bool expansion_ = false;   // logistic, or poisson with a centre: the Gaussian of the header
  double curvature_ = 0.25;  // c of b ~ N(cA(β − β₀), cA)
  double shift_ = 0.0;       // t = y − shift_
  double n_ = 0.0;
  Mat a_var_;                                 // σ²_jk of A's entries (symmetric)
  Vec b_var_;                                 // of b's
  double c_var_ = 0.0;                        // of c
  std::optional<double> sigma_;               // known σ (linear, normal)
  std::optional<double> residual_bound_;      // T of clipped residuals (linear, normal centred)
  ClippedNormal clipped(double sigma) const;  // clipped_normal(T/σ); e's own without a clip
  std::vector<std::string> columns_;
  std::optional<Vec> released_;
  Parts released_parts_;
};

}  // namespace dpmcmc
