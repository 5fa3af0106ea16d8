// DP Barker's correction distribution V_corr ([Raisa2021] Section 3.3, Algorithm 3;
// [Raisa2021short] Section 3.2, after Heikkilä et al. 2019 and Seita et al. 2017).
//
// Barker's test "λ + L > 0, L ~ Logistic(0, 1)" accepts with probability 1/(1 + e^{−λ}). DP Barker
// only sees λ + N(0, σ²) (the Gaussian mechanism's noise plus the subsampling error), so it adds a
// variate V_corr chosen such that N(0, σ²) + V_corr ≈ Logistic(0, 1). No exact V_corr exists: its
// characteristic function would be (πt / sinh πt)·e^{σ²t²/2}, which grows without bound. We fit
// V_corr as a symmetric mixture Σ w_k N(μ_k, s²) with centres on a uniform grid, so that the
// convolution Σ w_k N(μ_k, s² + σ²) matches the logistic density in least squares with w ≥ 0
// (Lawson–Hanson NNLS), and report the fit's distance to the logistic so that callers know the
// error of the approximate test. docs/algorithms.md, "DP Barker: the correction distribution",
// gives the choices and the measured errors.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "core/alias_table.hpp"
#include "core/rng.hpp"

namespace dpmcmc {

// The fit's knobs. The defaults were chosen by measurement (docs/algorithms.md).
struct CorrectionSettings {
  double spacing = 0.05;       // h: distance between neighbouring component centres
  double component_sd = 0.05;  // s: standard deviation of each component of V_corr
  double range = 15.0;         // centres lie in [−range, range]
  double fit_step = 0.1;       // step of the grid of x ≥ 0 on which the densities are matched
  // Reweighting passes after the least-squares fit that move it toward the L1 (total-variation)
  // optimum: each pass solves NNLS again with row weights 1/max(|residual|, floor).
  int l1_passes = 0;

  friend bool operator==(const CorrectionSettings&, const CorrectionSettings&) = default;
};

// How far N(0, σ²) + V_corr is from Logistic(0, 1), measured on a grid of step 1e-3 over
// [0, X] (by symmetry), X at least 40 and 12 convolved sds past the last centre; the mass beyond X
// of both densities is added to the TVD (an upper bound for the tail part, below 1e-15).
struct CorrectionFit {
  double tvd = 0.0;          // ½ ∫ |f_fit − f_logistic|
  double density_sup = 0.0;  // sup |f_fit − f_logistic|
  double cdf_sup = 0.0;      // sup |F_fit − F_logistic| (exactly 0 at x = 0 by symmetry)
  int components = 0;        // mixture components with positive weight
  int nnls_iterations = 0;   // Lawson–Hanson outer iterations, all passes
};

class LogisticCorrection {
 public:
  // ConfigError unless 0 < σ² < π²/3 (the logistic's variance; V_corr's variance is π²/3 − σ²)
  // and the settings are finite, positive and give at most 20001 centres.
  explicit LogisticCorrection(double sigma2, CorrectionSettings settings = {});

  double sigma2() const { return sigma2_; }
  const CorrectionSettings& settings() const { return settings_; }
  const CorrectionFit& fit() const { return fit_; }

  // The mixture, components of zero weight dropped: centres μ_k (ascending, symmetric about 0),
  // weights w_k (summing to 1, w(μ) = w(−μ)), common sd s.
  std::span<const double> centres() const { return centres_; }
  std::span<const double> weights() const { return weights_; }
  double component_sd() const { return settings_.component_sd; }

  // Var V_corr = Σ w_k μ_k² + s² (the mean is 0 by symmetry).
  double variance() const;

  double density(double v) const;            // of V_corr
  double convolved_density(double x) const;  // of N(0, σ²) + V_corr
  double convolved_cdf(double x) const;      // of N(0, σ²) + V_corr

  // One V_corr variate in O(1): a component by the alias method, then μ_k + s·z. DP Barker draws
  // it from the privacy noise stream (NoiseRng), since it is part of the test's noise.
  template <class E>
  double sample(Random<E>& rng) const {
    const std::size_t k = alias_.sample(rng);
    return centres_[k] + settings_.component_sd * rng.normal();
  }

 private:
  struct Mixture {
    std::vector<double> centres;
    std::vector<double> weights;
    CorrectionFit fit;
  };
  // Validates σ² and the settings (ConfigError), then fits.
  static Mixture fit_mixture(double sigma2, const CorrectionSettings& settings);
  LogisticCorrection(double sigma2, const CorrectionSettings& settings, Mixture&& mixture);

  double sigma2_;
  CorrectionSettings settings_;
  std::vector<double> centres_;
  std::vector<double> weights_;
  CorrectionFit fit_;
  AliasTable alias_;  // over weights_; declared last so that it is built from them
};

// The logistic Logistic(0, 1) density and CDF, written to stay accurate in the far tails.
double logistic_density(double x);
double logistic_cdf(double x);

}  // namespace dpmcmc
