// Independent priors on regression coefficients and scale parameters, one per parameter, with the
// command-line syntax of `--prior` (docs/user-guide.md, "Your data, your model"):
//   normal(MEAN, SD)           N(MEAN, SD²)
//   student_t(NU, MEAN, SCALE) Student-t with NU degrees of freedom
//   half_normal(SD)            for a scale σ > 0 (sigma only); the sampler moves log σ, and the
//                              density includes the Jacobian |dσ/d log σ| = σ
// `--prior SPEC` sets every coefficient but the intercept; `--prior NAME=SPEC` one parameter
// ("intercept", a coefficient name, or "sigma"). Later options override earlier ones.
#pragma once

#include <string>
#include <vector>

#include "core/types.hpp"

namespace dpmcmc {

struct ScalarPrior {
  enum class Kind { normal, student_t, half_normal };
  Kind kind = Kind::normal;
  double nu = 1.0, mean = 0.0, scale = 1.0;

  // log density at x (normalised); for half_normal x is log σ and the value includes the
  // Jacobian.
  double log_density(double x) const;
  // d/dx of log_density.
  double grad(double x) const;
  std::string to_string() const;
};

// UsageError naming `option` and the expected syntax for anything else; positive finite scales
// and ν.
ScalarPrior parse_scalar_prior(const std::string& text, const std::string& option);

// A `--prior` option split into its target ("" for every coefficient but the intercept) and
// prior.
struct PriorOption {
  std::string target;
  ScalarPrior prior;
};
PriorOption parse_prior_option(const std::string& text);

}  // namespace dpmcmc
