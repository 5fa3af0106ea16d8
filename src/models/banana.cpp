#include "models/banana.hpp"

#include <cmath>
#include <numbers>
#include <string>

#include "core/error.hpp"
#include "models/checks.hpp"
#include "models/linear_rows.hpp"

namespace dpmcmc {
namespace {

constexpr const char* kName = "banana";

void require_finite(double v, const char* what) {
  if (!std::isfinite(v))
    throw ConfigError(std::string("banana model: ") + what + " must be finite");
}

void require_variance(double v, const std::string& what) {
  if (!(v > 0.0 && std::isfinite(v))) {
    throw ConfigError("banana model: " + what + " must be positive and finite, got " +
                      std::to_string(v));
  }
}

}  // namespace

BananaModel::BananaModel(Params params) : p_(std::move(params)) {
  const Eigen::Index d = p_.lik_var.size();
  if (d < 2) {
    throw ConfigError(
        "banana model: dimension (number of likelihood variances) must be at least "
        "2, got " +
        std::to_string(d));
  }
  require_finite(p_.a, "a");
  require_finite(p_.b, "b");
  require_finite(p_.m, "m");
  require_variance(p_.prior_var, "prior variance");
  for (Eigen::Index j = 0; j < d; ++j) {
    require_variance(p_.lik_var(j), "likelihood variance " + std::to_string(j + 1));
  }
  if (!(p_.temperature > 0.0 && p_.temperature <= 1.0)) {
    throw ConfigError("banana model: temperature must be in (0, 1], got " +
                      std::to_string(p_.temperature));
  }
  prec_ = p_.lik_var.cwiseInverse();
  const double two_pi = 2.0 * std::numbers::pi;
  lik_const_ = -0.5 * (two_pi * p_.lik_var.array()).log().sum();
  prior_const_ = -0.5 * static_cast<double>(d) * std::log(two_pi * p_.prior_var);
}

std::vector<std::string> BananaModel::data_columns() const {
  std::vector<std::string> names;
  for (int j = 1; j <= dim(); ++j) names.push_back("x." + std::to_string(j));
  return names;
}

Vec BananaModel::to_gaussian(const Vec& theta) const {
  model_checks::theta(kName, dim(), theta);
  Vec phi = theta;
  phi(1) = phi2(theta);
  return phi;
}

Vec BananaModel::from_gaussian(const Vec& phi) const {
  model_checks::theta(kName, dim(), phi);
  Vec theta = phi;
  const double s = phi(0) - p_.m;
  theta(1) = phi(1) - p_.a * s * s - p_.b;
  return theta;
}

double BananaModel::log_prior(const Vec& theta) const {
  model_checks::theta(kName, dim(), theta);
  const double u = phi2(theta);
  const double ss = theta.squaredNorm() - theta(1) * theta(1) + u * u;
  return prior_const_ - 0.5 * ss / p_.prior_var;
}

void BananaModel::grad_log_prior(const Vec& theta, Eigen::Ref<Vec> out) const {
  model_checks::theta(kName, dim(), theta);
  // ∇_θ[−|φ|²/(2σ0²)] = −Jᵀφ/σ0², J = ∂φ/∂θ: identity plus ∂φ2/∂θ1 = 2a(θ1 − m).
  const double u = phi2(theta);
  out = -theta / p_.prior_var;
  out(1) = -u / p_.prior_var;
  out(0) -= 2.0 * p_.a * (theta(0) - p_.m) * u / p_.prior_var;
}

void BananaModel::log_lik_rows(const Vec& theta, const RowBlock& rows, Eigen::Ref<Vec> out) const {
  model_checks::theta(kName, dim(), theta);
  model_checks::block(kName, dim(), rows, out.size());
  const double u = phi2(theta);
  const auto x0 = rows.col(0).array();
  const auto x1 = rows.col(1).array();
  out.array() = prec_(0) * (x0 - theta(0)).square() + prec_(1) * (x1 - u).square();
  // Remaining columns two at a time: half the passes over `out` (it is re-read every pass).
  const auto term = [&](Eigen::Index j) {
    return prec_(j) * (rows.col(j).array() - theta(j)).square();
  };
  Eigen::Index j = 2;
  for (; j + 1 < rows.cols(); j += 2) out.array() += term(j) + term(j + 1);
  if (j < rows.cols()) out.array() += term(j);
  out.array() = lik_const_ - 0.5 * out.array();
}

void BananaModel::log_lik_ratio_rows(const Vec& theta, const Vec& theta_prime, const RowBlock& rows,
                                     Eigen::Ref<Vec> out) const {
  model_checks::theta(kName, dim(), theta);
  model_checks::theta(kName, dim(), theta_prime);
  model_checks::block(kName, dim(), rows, out.size());
  // −½τ(x − φ′)² + ½τ(x − φ)² = τ(φ′ − φ)x − ½τ(φ′² − φ²) = w x − w(φ + φ′)/2 per coordinate.
  const double u = phi2(theta), u_prime = phi2(theta_prime);
  const auto phi = [&](Eigen::Index j) { return j == 1 ? u : theta(j); };
  const auto phi_prime = [&](Eigen::Index j) { return j == 1 ? u_prime : theta_prime(j); };
  const auto weight = [&](Eigen::Index j) { return prec_(j) * (phi_prime(j) - phi(j)); };
  double c = 0.0;
  for (Eigen::Index j = 0; j < rows.cols(); ++j) c -= 0.5 * weight(j) * (phi(j) + phi_prime(j));
  linear_rows(rows, weight, c, out);
}

void BananaModel::grad_log_lik_rows(const Vec& theta, const RowBlock& rows,
                                    Eigen::Ref<Mat> out) const {
  model_checks::theta(kName, dim(), theta);
  model_checks::grad_block(kName, dim(), dim(), rows, out.rows(), out.cols());
  const double u = phi2(theta);
  const double slope = 2.0 * p_.a * (theta(0) - p_.m);  // ∂φ2/∂θ1
  out.col(1).array() = prec_(1) * (rows.col(1).array() - u);
  out.col(0).array() = prec_(0) * (rows.col(0).array() - theta(0)) + slope * out.col(1).array();
  for (Eigen::Index j = 2; j < rows.cols(); ++j) {
    out.col(j).array() = prec_(j) * (rows.col(j).array() - theta(j));
  }
}

Dataset BananaModel::simulate(const Vec& theta, std::size_t n, Rng& rng) const {
  const Vec phi = to_gaussian(theta);
  const Vec sd = p_.lik_var.cwiseSqrt();
  Dataset data;
  data.x.resize(static_cast<Eigen::Index>(n), dim());
  for (Eigen::Index i = 0; i < data.x.rows(); ++i) {
    for (Eigen::Index j = 0; j < dim(); ++j) data.x(i, j) = phi(j) + sd(j) * rng.normal();
  }
  data.columns = data_columns();
  return data;
}

BananaModel::GaussianPart BananaModel::gaussian_posterior(const Dataset& data) const {
  model_checks::dataset(kName, dim(), data.x.cols());
  const double t = p_.temperature;
  const double tn = t * static_cast<double>(data.rows());
  const Vec sum = data.x.colwise().sum().transpose();
  GaussianPart g;
  g.var = (tn * prec_.array() + 1.0 / p_.prior_var).inverse().matrix();
  g.mean = (t * prec_.array() * sum.array() * g.var.array()).matrix();
  return g;
}

Mat BananaModel::sample_posterior(const Dataset& data, std::size_t draws, Rng& rng) const {
  const GaussianPart g = gaussian_posterior(data);
  const Vec sd = g.var.cwiseSqrt();
  Mat out(static_cast<Eigen::Index>(draws), dim());
  for (Eigen::Index i = 0; i < out.rows(); ++i) {
    for (Eigen::Index j = 0; j < dim(); ++j) out(i, j) = g.mean(j) + sd(j) * rng.normal();
    const double s = out(i, 0) - p_.m;
    out(i, 1) -= p_.a * s * s + p_.b;  // θ = g(φ)
  }
  return out;
}

}  // namespace dpmcmc
