#include "models/glm_expfam.hpp"

#include <cmath>
#include <numbers>

#include "core/error.hpp"

namespace dpmcmc {
namespace {

const GlmModel& gaussian_family(const GlmModel& glm) {
  const GlmFamily f = glm.spec().family;
  if (f != GlmFamily::linear && f != GlmFamily::normal)
    throw UsageError(
        "--sampler dp-penalty-expfam: of the regression families only linear and normal have a "
        "likelihood η(θ)ᵀs(x, y) − A(θ) with A free of the row (the " +
        to_string(f) + " family's log-partition depends on x); use dp-nss or dp-penalty");
  return glm;
}

}  // namespace

GlmExpFamModel::GlmExpFamModel(const GlmModel& glm)
    : glm_(gaussian_family(glm)), stat_(glm.spec()) {}

GlmExpFamModel::Coefficients GlmExpFamModel::coefficients(const Vec& theta) const {
  const int p = stat_.coefficients();
  Coefficients c;
  c.beta = theta.head(p);
  if (stat_.has_intercept()) c.beta(0) -= stat_.centre();
  c.log_sigma = glm_.sampled_sigma() ? theta(p) : std::log(*glm_.spec().sigma);
  c.inv_var = std::exp(-2.0 * c.log_sigma);
  return c;
}

Vec GlmExpFamModel::natural_parameter(const Vec& theta) const {
  const Coefficients c = coefficients(theta);
  const int p = stat_.coefficients();
  Vec eta(stat_.stat_dim());
  Eigen::Index i = 0;
  for (int j = 0; j < p; ++j) {
    for (int k = j; k < p; ++k) {
      if (j == 0 && k == 0 && stat_.has_intercept()) continue;  // in A(θ)
      eta(i++) = (j == k ? -0.5 : -1.0) * c.beta(j) * c.beta(k) * c.inv_var;
    }
  }
  for (int j = 0; j < p; ++j) eta(i++) = c.beta(j) * c.inv_var;
  if (stat_.has_square()) eta(i) = -0.5 * c.inv_var;
  return eta.cwiseProduct(stat_.widths());  // released units: η_c w_c
}

double GlmExpFamModel::log_partition(const Vec& theta) const {
  const Coefficients c = coefficients(theta);
  const double intercept = stat_.has_intercept() ? 0.5 * c.beta(0) * c.beta(0) * c.inv_var : 0.0;
  return intercept + c.log_sigma + 0.5 * std::log(2.0 * std::numbers::pi);
}

}  // namespace dpmcmc
