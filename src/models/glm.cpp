#include "models/glm.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/poisson_variate.hpp"

namespace dpmcmc {
namespace {

constexpr double kLogSqrt2Pi = 0.91893853320467274178;  // log √(2π)

// log Φ(t), accurate in both tails: erfc keeps relative accuracy down to t ≈ −37 (Φ ≈ 1e-300);
// beyond, the asymptotic series Φ(t) ≈ φ(t)/(−t) · (1 − 1/t² + 3/t⁴ − 15/t⁶) (Abramowitz and
// Stegun 26.2.12) is accurate to ~1e-10 relative at t = −30.
double log_ndtr(double t) {
  if (t > -30.0) return std::log(0.5 * std::erfc(-t / std::numbers::sqrt2));
  const double u = 1.0 / (t * t);
  return -0.5 * t * t - kLogSqrt2Pi - std::log(-t) + std::log1p(u * (-1.0 + u * (3.0 - 15.0 * u)));
}

// φ(t)/Φ(t), the derivative of log Φ. Below −30 from the same series, φ/Φ ≈ −t/(1 − u + 3u² −
// 15u³) with u = 1/t², which avoids cancelling two terms of size t²/2.
double inverse_mills(double t) {
  if (t > -30.0) return std::exp(-0.5 * t * t - kLogSqrt2Pi - log_ndtr(t));
  const double u = 1.0 / (t * t);
  return -t / (1.0 + u * (-1.0 + u * (3.0 - 15.0 * u)));
}

double softplus(double z) {
  return std::max(z, 0.0) + std::log1p(std::exp(-std::abs(z)));
}

double logistic(double z) {
  const double e = std::exp(-std::abs(z));
  return z >= 0.0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
}

Vec& scratch() {
  thread_local Vec z;
  return z;
}

struct FamilyInfo {
  GlmFamily family;
  const char* name;
  const char* description;
};

const std::vector<FamilyInfo>& families() {
  static const std::vector<FamilyInfo> all = {
      {GlmFamily::logistic, "logistic", "logistic regression of a binary target (logit link)"},
      {GlmFamily::probit, "probit", "probit regression of a binary target (normal CDF link)"},
      {GlmFamily::poisson, "poisson", "Poisson regression of a count target (log link)"},
      {GlmFamily::linear, "linear",
       "Bayesian linear regression of a real target, sigma known (--sigma) or sampled as "
       "log_sigma"},
      {GlmFamily::normal, "normal",
       "mean (intercept) and sd of one real column: linear regression without features"},
  };
  return all;
}

}  // namespace

GlmFamily parse_glm_family(const std::string& name) {
  for (const auto& f : families())
    if (name == f.name) return f.family;
  throw UsageError(fmt::format("--model: unknown family '{}' for --schema; expected one of {}",
                               name, fmt::join(glm_family_names(), ", ")));
}

std::string to_string(GlmFamily family) {
  for (const auto& f : families())
    if (family == f.family) return f.name;
  return "?";
}

const std::vector<std::string>& glm_family_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& f : families()) out.push_back(f.name);
    return out;
  }();
  return names;
}

std::string glm_family_description(GlmFamily family) {
  for (const auto& f : families())
    if (family == f.family) return f.description;
  return "?";
}

GlmModel::GlmModel(GlmSpec spec) : spec_(std::move(spec)) {
  const std::size_t p = spec_.coefficient_names.size();
  if (p == 0) throw ConfigError("glm: at least one coefficient (an intercept or a feature)");
  if (spec_.coefficient_priors.size() != p || spec_.column_bounds.size() != p)
    throw SoftwareError("glm: one prior and one bound per coefficient");
  const bool gaussian = spec_.family == GlmFamily::linear || spec_.family == GlmFamily::normal;
  if (spec_.sigma && !gaussian)
    throw UsageError(fmt::format("--sigma: the {} family has no sigma", to_string(spec_.family)));
  if (spec_.sigma && !(*spec_.sigma > 0.0 && std::isfinite(*spec_.sigma)))
    throw UsageError(fmt::format("--sigma: expected a positive number, got {}", *spec_.sigma));
}

bool GlmModel::sampled_sigma() const {
  return (spec_.family == GlmFamily::linear || spec_.family == GlmFamily::normal) && !spec_.sigma;
}

std::vector<std::string> GlmModel::param_names() const {
  std::vector<std::string> names = spec_.coefficient_names;
  if (sampled_sigma()) names.push_back("log_sigma");
  return names;
}

std::vector<std::string> GlmModel::data_columns() const {
  std::vector<std::string> names;
  for (std::size_t j = 0; j < spec_.coefficient_names.size(); ++j)
    names.push_back(fmt::format("x.{}", j + 1));
  names.push_back("y");
  return names;
}

double GlmModel::log_prior(const Vec& theta) const {
  double lp = 0.0;
  const auto p = static_cast<Eigen::Index>(spec_.coefficient_names.size());
  for (Eigen::Index j = 0; j < p; ++j)
    lp += spec_.coefficient_priors[static_cast<std::size_t>(j)].log_density(theta(j));
  if (sampled_sigma()) lp += spec_.sigma_prior.log_density(theta(p));
  return lp;
}

void GlmModel::grad_log_prior(const Vec& theta, Eigen::Ref<Vec> out) const {
  const auto p = static_cast<Eigen::Index>(spec_.coefficient_names.size());
  for (Eigen::Index j = 0; j < p; ++j)
    out(j) = spec_.coefficient_priors[static_cast<std::size_t>(j)].grad(theta(j));
  if (sampled_sigma()) out(p) = spec_.sigma_prior.grad(theta(p));
}

const Vec& GlmModel::linear_predictor(const Vec& theta, const RowBlock& rows) const {
  const auto p = static_cast<Eigen::Index>(spec_.coefficient_names.size());
  if (rows.cols() != p + 1)
    throw SoftwareError(fmt::format("glm: a block of {} columns, expected {}", rows.cols(), p + 1));
  Vec& z = scratch();
  z.noalias() = rows.leftCols(p) * theta.head(p);
  return z;
}

double GlmModel::log_sigma(const Vec& theta) const {
  if (sampled_sigma()) return theta(static_cast<Eigen::Index>(spec_.coefficient_names.size()));
  return spec_.sigma ? std::log(*spec_.sigma) : 0.0;
}

void GlmModel::log_lik_rows(const Vec& theta, const RowBlock& rows, Eigen::Ref<Vec> out) const {
  const Vec& z = linear_predictor(theta, rows);
  const auto y = rows.col(rows.cols() - 1);
  const double log_sigma = this->log_sigma(theta);
  const double inv_var = std::exp(-2.0 * log_sigma);
  for (Eigen::Index i = 0; i < rows.rows(); ++i) {
    switch (spec_.family) {
      case GlmFamily::logistic:
        out(i) = y(i) * z(i) - softplus(z(i));
        break;
      case GlmFamily::probit:
        out(i) = log_ndtr((2.0 * y(i) - 1.0) * z(i));
        break;
      case GlmFamily::poisson:
        out(i) = y(i) * z(i) - std::exp(z(i)) - std::lgamma(y(i) + 1.0);
        break;
      case GlmFamily::linear:
      case GlmFamily::normal: {
        const double r = y(i) - z(i);
        out(i) = -0.5 * r * r * inv_var - log_sigma - kLogSqrt2Pi;
        break;
      }
    }
  }
}

void GlmModel::grad_log_lik_rows(const Vec& theta, const RowBlock& rows,
                                 Eigen::Ref<Mat> out) const {
  const Vec& z = linear_predictor(theta, rows);
  const auto p = rows.cols() - 1;
  const auto y = rows.col(p);
  const double inv_var = std::exp(-2.0 * log_sigma(theta));
  for (Eigen::Index i = 0; i < rows.rows(); ++i) {
    double dz = 0.0;
    switch (spec_.family) {
      case GlmFamily::logistic:
        dz = y(i) - logistic(z(i));
        break;
      case GlmFamily::probit: {
        const double s = 2.0 * y(i) - 1.0;
        dz = s * inverse_mills(s * z(i));
        break;
      }
      case GlmFamily::poisson:
        dz = y(i) - std::exp(z(i));
        break;
      case GlmFamily::linear:
      case GlmFamily::normal: {
        const double r = y(i) - z(i);
        dz = r * inv_var;
        if (sampled_sigma()) out(i, p) = r * r * inv_var - 1.0;
        break;
      }
    }
    out.row(i).head(p) = dz * rows.row(i).head(p);
  }
}

Dataset GlmModel::simulate(const Vec& theta, std::size_t n, Rng& rng) const {
  const auto p = static_cast<Eigen::Index>(spec_.coefficient_names.size());
  Dataset d;
  d.columns = data_columns();
  d.source = "simulated";
  d.x.resize(static_cast<Eigen::Index>(n), p + 1);
  const bool intercept =
      !spec_.coefficient_names.empty() && spec_.coefficient_names[0] == "intercept";
  const double sigma = sampled_sigma() ? std::exp(theta(p)) : spec_.sigma.value_or(1.0);
  const Eigen::Index first = intercept ? 1 : 0;
  const double room = std::sqrt(
      std::max(0.0, spec_.row_norm_bound * spec_.row_norm_bound - (intercept ? 1.0 : 0.0)));
  for (Eigen::Index i = 0; i < d.x.rows(); ++i) {
    if (intercept) d.x(i, 0) = 1.0;
    for (Eigen::Index j = first; j < p; ++j) {
      const double b = spec_.column_bounds[static_cast<std::size_t>(j)];
      d.x(i, j) = b * (2.0 * rng.uniform() - 1.0);
    }
    // Within the declared row-norm bound, as the design builder guarantees for real rows.
    const double norm = d.x.row(i).segment(first, p - first).norm();
    if (norm > room) d.x.row(i).segment(first, p - first) *= room / norm;
    const double z = d.x.row(i).head(p).dot(theta.head(p));
    double y = 0.0;
    const double mean = glm_mean(spec_.family, z);
    switch (spec_.family) {
      case GlmFamily::logistic:
      case GlmFamily::probit:
        y = rng.bernoulli(mean) ? 1.0 : 0.0;
        break;
      case GlmFamily::poisson:
        y = static_cast<double>(poisson_variate(rng, mean));
        break;
      case GlmFamily::linear:
      case GlmFamily::normal:
        y = rng.normal(mean, sigma);
        break;
    }
    d.x(i, p) = y;
  }
  return d;
}

double glm_mean(GlmFamily family, double z) {
  switch (family) {
    case GlmFamily::logistic:
      return logistic(z);
    case GlmFamily::probit:
      return std::exp(log_ndtr(z));
    case GlmFamily::poisson:
      return std::exp(z);
    case GlmFamily::linear:
    case GlmFamily::normal:
      break;
  }
  return z;
}

LogisticGlmModel::LogisticGlmModel(GlmSpec spec) : GlmModel(std::move(spec)) {}

void LogisticGlmModel::row_bounds(const RowBlock& rows, Eigen::Ref<Vec> out) const {
  const auto p = static_cast<Eigen::Index>(spec().coefficient_names.size());
  out = rows.leftCols(p).rowwise().norm();
  for (Eigen::Index i = 0; i < out.size(); ++i) {
    // The design builder guarantees this; a violation would break the privacy argument.
    if (!(out(i) <= spec().row_norm_bound * (1.0 + 1e-12)))
      throw DataError(
          fmt::format("logistic: row {} of the block has norm {} > the schema's bound {}", i + 1,
                      out(i), spec().row_norm_bound));
  }
}

double LogisticGlmModel::bound_distance(const Vec& theta, const Vec& theta_prime) const {
  return (theta - theta_prime).norm();
}

std::unique_ptr<GlmModel> make_glm_model(GlmSpec spec) {
  if (spec.family == GlmFamily::logistic)
    return std::make_unique<LogisticGlmModel>(std::move(spec));
  return std::make_unique<GlmModel>(std::move(spec));
}

double glm_lipschitz_guess(const GlmSpec& spec) {
  switch (spec.family) {
    case GlmFamily::logistic:
      return 1.0;
    case GlmFamily::probit:
      return inverse_mills(-3.0);
    case GlmFamily::poisson:
      return std::max(spec.y_high, 1.0);
    case GlmFamily::linear:
    case GlmFamily::normal: {
      const double s = spec.sigma.value_or(0.5 * (spec.y_high - spec.y_low));
      return (spec.y_high - spec.y_low) / (s * s);
    }
  }
  return 1.0;
}

}  // namespace dpmcmc
