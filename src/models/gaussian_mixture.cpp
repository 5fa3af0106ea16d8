#include "models/gaussian_mixture.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <string>

#include "core/error.hpp"
#include "models/adaptive_grid.hpp"
#include "models/checks.hpp"

namespace dpmcmc {
namespace {

constexpr const char* kName = "gaussian-mixture";

void require_positive(double v, const char* what) {
  if (!(v > 0.0 && std::isfinite(v))) {
    throw ConfigError(
        fmt::format("gaussian-mixture model: {} must be positive and finite, got {}", what, v));
  }
}

// P(|Z| ≤ a/s) for Z ~ N(0, 1): the mass of N(0, s²) on [−a, a].
double central_mass(double a, double s) {
  return std::erf(a / (s * std::numbers::sqrt2));
}

// P(lo ≤ X ≤ hi) for X ~ N(mu, s²).
double interval_mass(double lo, double hi, double mu, double s) {
  const double k = 1.0 / (s * std::numbers::sqrt2);
  return 0.5 * (std::erfc((lo - mu) * k) - std::erfc((hi - mu) * k));
}

}  // namespace

GaussianMixtureModel::GaussianMixtureModel(Params params) : p_(params) {
  require_positive(p_.sigma_x2, "sigma_x2 (component variance)");
  require_positive(p_.prior_var1, "prior variance of theta.1");
  require_positive(p_.prior_var2, "prior variance of theta.2");
  require_positive(p_.data_range, "data range R");
  require_positive(p_.theta_bound1, "box half-width of theta.1");
  require_positive(p_.theta_bound2, "box half-width of theta.2");
  if (!(p_.temperature > 0.0 && p_.temperature <= 1.0)) {
    throw ConfigError(fmt::format("gaussian-mixture model: temperature must be in (0, 1], got {}",
                                  p_.temperature));
  }
  lik_const_ = -std::log(2.0 * std::sqrt(2.0 * std::numbers::pi * p_.sigma_x2));
  const double s1 = std::sqrt(p_.prior_var1), s2 = std::sqrt(p_.prior_var2);
  prior_const_ = -0.5 * std::log(2.0 * std::numbers::pi * p_.prior_var1) -
                 0.5 * std::log(2.0 * std::numbers::pi * p_.prior_var2) -
                 std::log(central_mass(p_.theta_bound1, s1)) -
                 std::log(central_mass(p_.theta_bound2, s2));
}

bool GaussianMixtureModel::in_support(const Vec& theta) const {
  model_checks::theta(kName, dim(), theta);
  return std::abs(theta(0)) <= p_.theta_bound1 && std::abs(theta(1)) <= p_.theta_bound2;
}

double GaussianMixtureModel::log_prior(const Vec& theta) const {
  if (!in_support(theta)) return -std::numeric_limits<double>::infinity();
  return prior_const_ - 0.5 * theta(0) * theta(0) / p_.prior_var1 -
         0.5 * theta(1) * theta(1) / p_.prior_var2;
}

void GaussianMixtureModel::grad_log_prior(const Vec& theta, Eigen::Ref<Vec> out) const {
  model_checks::theta(kName, dim(), theta);
  out(0) = -theta(0) / p_.prior_var1;
  out(1) = -theta(1) / p_.prior_var2;
}

void GaussianMixtureModel::log_lik_rows(const Vec& theta, const RowBlock& rows,
                                        Eigen::Ref<Vec> out) const {
  model_checks::theta(kName, dim(), theta);
  model_checks::block(kName, 1, rows, out.size());
  const double k = -0.5 / p_.sigma_x2;
  const double m1 = theta(0), m2 = theta(0) + theta(1);
  const auto x = rows.col(0).array();
  const auto a = k * (x - m1).square();
  const auto b = k * (x - m2).square();
  out.array() = lik_const_ + a.max(b) + (-(a - b).abs()).exp().log1p();
}

void GaussianMixtureModel::grad_log_lik_rows(const Vec& theta, const RowBlock& rows,
                                             Eigen::Ref<Mat> out) const {
  model_checks::theta(kName, dim(), theta);
  model_checks::grad_block(kName, 1, dim(), rows, out.rows(), out.cols());
  const double k = -0.5 / p_.sigma_x2;
  const double m1 = theta(0), m2 = theta(0) + theta(1);
  const auto x = rows.col(0).array();
  // w2 = e^b / (e^a + e^b) = 1 / (1 + e^{a−b}), a logistic function: e^{a−b} may overflow to +∞,
  // giving w2 = 0 exactly, which is the correct limit.
  const auto r1 = x - m1;
  const auto r2 = x - m2;
  const auto w2 = 1.0 / (1.0 + (k * (r1.square() - r2.square())).exp());
  out.col(1).array() = w2 * r2 / p_.sigma_x2;
  out.col(0).array() = ((1.0 - w2) * r1) / p_.sigma_x2 + out.col(1).array();
}

Dataset GaussianMixtureModel::simulate(const Vec& theta, std::size_t n, Rng& rng) const {
  model_checks::theta(kName, dim(), theta);
  if (!theta.allFinite()) throw ConfigError("gaussian-mixture simulate: theta is not finite");
  const double r = p_.data_range, s = std::sqrt(p_.sigma_x2);
  const double m1 = theta(0), m2 = theta(0) + theta(1);
  const double in_range = 0.5 * (interval_mass(-r, r, m1, s) + interval_mass(-r, r, m2, s));
  if (!(in_range >= 1e-3)) {
    throw ConfigError(fmt::format(
        "gaussian-mixture simulate: theta = ({}, {}) puts only {:.3g} of its mass in the data "
        "range [-{}, {}]; expected at least 1e-3",
        m1, theta(1), in_range, r, r));
  }
  Dataset data;
  data.x.resize(static_cast<Eigen::Index>(n), 1);
  for (Eigen::Index i = 0; i < data.x.rows(); ++i) {
    double x;
    do {  // rejection: the accepted rows follow the mixture conditioned on [−R, R]
      const double mean = rng.uniform() < 0.5 ? m1 : m2;
      x = mean + s * rng.normal();
    } while (!(std::abs(x) <= r));
    data.x(i, 0) = x;
  }
  data.columns = data_columns();
  data.source = "simulated";
  return data;
}

Box2d GaussianMixtureModel::support() const {
  return {-p_.theta_bound1, p_.theta_bound1, -p_.theta_bound2, p_.theta_bound2};
}

std::shared_ptr<const GridPosterior> GaussianMixtureModel::grid_reference(
    const Dataset& data) const {
  model_checks::dataset(kName, 1, data.x.cols());
  const std::vector<double> key = {p_.sigma_x2,   p_.prior_var1,   p_.prior_var2,  p_.temperature,
                                   p_.data_range, p_.theta_bound1, p_.theta_bound2};
  return references_->get(key, data.x, [&] {
    return std::make_shared<const GridPosterior>(
        adaptive_grid_posterior(*this, data, support(), AdaptiveGridOptions{}));
  });
}

double GaussianMixtureModel::reference_row_evaluations(std::size_t rows) const {
  const AdaptiveGridOptions o;
  const auto points =
      static_cast<double>(o.coarse_cells * o.coarse_cells + o.fine_cells * o.fine_cells);
  return points * static_cast<double>(rows);
}

void GaussianMixtureModel::share_reference_cache(std::shared_ptr<ReferenceCache> cache) {
  if (cache) references_ = std::move(cache);
}

Mat GaussianMixtureModel::sample_posterior(const Dataset& data, std::size_t draws, Rng& rng) const {
  return grid_reference(data)->sample(draws, rng);
}

void GaussianMixtureModel::row_bounds(const RowBlock& rows, Eigen::Ref<Vec> out) const {
  model_checks::block(kName, 1, rows, out.size());
  const double r = p_.data_range;
  const double scale = std::numbers::sqrt2 / p_.sigma_x2;
  const double offset = p_.theta_bound1 + p_.theta_bound2;
  for (Eigen::Index i = 0; i < rows.rows(); ++i) {
    const double x = rows(i, 0);
    if (!(std::abs(x) <= r)) {
      throw DataError(fmt::format(
          "gaussian-mixture model: row {} has x = {}, outside the declared data range [-{}, {}] "
          "on which the per-row ratio bound holds (set a larger data range or remove the row)",
          i + 1, x, r, r));
    }
    out(i) = scale * (std::abs(x) + offset);
  }
}

double GaussianMixtureModel::bound_distance(const Vec& theta, const Vec& theta_prime) const {
  model_checks::theta(kName, dim(), theta);
  model_checks::theta(kName, dim(), theta_prime);
  return (theta - theta_prime).norm();
}

}  // namespace dpmcmc
