#include "models/circle.hpp"

#include <cmath>
#include <string>

#include "core/error.hpp"
#include "models/checks.hpp"

namespace dpmcmc {
namespace {
constexpr const char* kName = "circle";
}  // namespace

CircleModel::CircleModel(double a, double r_mean, double r_sd, double temperature)
    : a_(a), r_mean_(r_mean), r_sd_(r_sd), temperature_(temperature) {
  if (!(a > 0.0 && std::isfinite(a))) {
    throw ConfigError("circle model: a must be positive and finite, got " + std::to_string(a));
  }
  if (!std::isfinite(r_mean)) throw ConfigError("circle model: mean of r must be finite");
  if (!(r_sd >= 0.0 && std::isfinite(r_sd))) {
    throw ConfigError("circle model: sd of r must be non-negative and finite, got " +
                      std::to_string(r_sd));
  }
  if (!(temperature > 0.0 && temperature <= 1.0)) {
    throw ConfigError("circle model: temperature must be in (0, 1], got " +
                      std::to_string(temperature));
  }
}

double CircleModel::log_prior(const Vec& theta) const {
  model_checks::theta(kName, dim(), theta);
  return 0.0;
}

void CircleModel::grad_log_prior(const Vec& theta, Eigen::Ref<Vec> out) const {
  model_checks::theta(kName, dim(), theta);
  out.setZero();
}

void CircleModel::log_lik_rows(const Vec& theta, const RowBlock& rows, Eigen::Ref<Vec> out) const {
  model_checks::theta(kName, dim(), theta);
  model_checks::block(kName, 1, rows, out.size());
  const double s = theta.squaredNorm();
  out.array() = -a_ * (s - rows.col(0).array().square()).square();
}

void CircleModel::log_lik_ratio_rows(const Vec& theta, const Vec& theta_prime, const RowBlock& rows,
                                     Eigen::Ref<Vec> out) const {
  model_checks::theta(kName, dim(), theta);
  model_checks::theta(kName, dim(), theta_prime);
  model_checks::block(kName, 1, rows, out.size());
  const double s = theta.squaredNorm(), s_prime = theta_prime.squaredNorm();
  const double ds = s_prime - s;
  out.array() = (2.0 * a_ * ds) * rows.col(0).array().square() - a_ * ds * (s_prime + s);
}

void CircleModel::grad_log_lik_rows(const Vec& theta, const RowBlock& rows,
                                    Eigen::Ref<Mat> out) const {
  model_checks::theta(kName, dim(), theta);
  model_checks::grad_block(kName, 1, dim(), rows, out.rows(), out.cols());
  const double s = theta.squaredNorm();
  out.col(0).array() = (-4.0 * a_) * (s - rows.col(0).array().square());
  out.col(1).array() = out.col(0).array() * theta(1);
  out.col(0).array() *= theta(0);
}

Dataset CircleModel::simulate(const Vec& theta, std::size_t n, Rng& rng) const {
  model_checks::theta(kName, dim(), theta);
  Dataset data;
  data.x.resize(static_cast<Eigen::Index>(n), 1);
  for (Eigen::Index i = 0; i < data.x.rows(); ++i) data.x(i, 0) = rng.normal(r_mean_, r_sd_);
  data.columns = data_columns();
  return data;
}

}  // namespace dpmcmc
