#include "models/logistic_regression.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "core/error.hpp"
#include "models/checks.hpp"

namespace dpmcmc {
namespace {

constexpr const char* kName = "logistic";

// softplus(z) = log(1 + e^z), elementwise, without overflow (see the header).
template <class A>
auto softplus(const A& z) {
  return z.max(0.0) + (-z.abs()).exp().log1p();
}

// σ(z) elementwise: with e = e^{−|z|} ∈ (0, 1], σ = 1/(1 + e) for z ≥ 0 and e/(1 + e) for z < 0.
template <class A>
Eigen::ArrayXd sigmoid(const A& z) {
  const Eigen::ArrayXd e = (-z.abs()).exp();
  return (z >= 0.0).select(1.0 / (1.0 + e), e / (1.0 + e));
}

// DataError naming the first row of `rows` whose label is not 0 or 1.
void check_labels(const RowBlock& rows, Eigen::Index label_col) {
  const auto y = rows.col(label_col).array();
  if (((y == 0.0) || (y == 1.0)).all()) return;
  for (Eigen::Index i = 0; i < rows.rows(); ++i) {
    if (!(y(i) == 0.0 || y(i) == 1.0)) {
      throw DataError(
          fmt::format("model '{}': row {} (1-based, of a block of {}) has label y = {}, expected 0 "
                      "or 1 (column y)",
                      kName, i + 1, rows.rows(), y(i)));
    }
  }
}

Vec& scratch(int which) {
  thread_local Vec buffers[2];
  return buffers[which];
}

}  // namespace

LogisticRegressionModel::LogisticRegressionModel(Params params) : p_(params) {
  if (p_.dim < 1) {
    throw ConfigError(fmt::format("logistic model: dimension must be at least 1, got {}", p_.dim));
  }
  if (!(p_.prior_sd > 0.0 && std::isfinite(p_.prior_sd))) {
    throw ConfigError(
        fmt::format("logistic model: prior standard deviation must be positive and finite, got {}",
                    p_.prior_sd));
  }
  if (!(p_.norm_bound > 0.0 && std::isfinite(p_.norm_bound))) {
    throw ConfigError(fmt::format(
        "logistic model: feature norm bound R must be positive and finite, got {}", p_.norm_bound));
  }
  if (!(p_.temperature > 0.0 && p_.temperature <= 1.0)) {
    throw ConfigError(
        fmt::format("logistic model: temperature must be in (0, 1], got {}", p_.temperature));
  }
  prior_const_ = -0.5 * p_.dim * std::log(2.0 * std::numbers::pi * p_.prior_sd * p_.prior_sd);
}

std::vector<std::string> LogisticRegressionModel::data_columns() const {
  std::vector<std::string> names;
  for (int j = 1; j <= p_.dim; ++j) names.push_back("x." + std::to_string(j));
  names.push_back("y");
  return names;
}

double LogisticRegressionModel::log_prior(const Vec& theta) const {
  model_checks::theta(kName, dim(), theta);
  return prior_const_ - 0.5 * theta.squaredNorm() / (p_.prior_sd * p_.prior_sd);
}

void LogisticRegressionModel::grad_log_prior(const Vec& theta, Eigen::Ref<Vec> out) const {
  model_checks::theta(kName, dim(), theta);
  out = -theta / (p_.prior_sd * p_.prior_sd);
}

const Vec& LogisticRegressionModel::logits(const Vec& theta, const RowBlock& rows,
                                           Eigen::Index out_rows) const {
  model_checks::theta(kName, dim(), theta);
  model_checks::block(kName, dim() + 1, rows, out_rows);
  check_labels(rows, dim());
  Vec& z = scratch(0);
  z.noalias() = rows.leftCols(dim()) * theta;
  return z;
}

void LogisticRegressionModel::log_lik_rows(const Vec& theta, const RowBlock& rows,
                                           Eigen::Ref<Vec> out) const {
  const auto z = logits(theta, rows, out.size()).array();
  out.array() = rows.col(dim()).array() * z - softplus(z);
}

void LogisticRegressionModel::log_lik_ratio_rows(const Vec& theta, const Vec& theta_prime,
                                                 const RowBlock& rows, Eigen::Ref<Vec> out) const {
  model_checks::theta(kName, dim(), theta_prime);
  const auto z = logits(theta, rows, out.size()).array();
  Vec& zp = scratch(1);
  zp.noalias() = rows.leftCols(dim()) * theta_prime;
  const auto a = zp.array();
  out.array() = rows.col(dim()).array() * (a - z) - (softplus(a) - softplus(z));
}

void LogisticRegressionModel::grad_log_lik_rows(const Vec& theta, const RowBlock& rows,
                                                Eigen::Ref<Mat> out) const {
  model_checks::grad_block(kName, dim() + 1, dim(), rows, out.rows(), out.cols());
  const auto z = logits(theta, rows, out.rows()).array();
  Vec& r = scratch(1);
  r.resize(rows.rows());
  r.array() = rows.col(dim()).array() - sigmoid(z);
  out.array() = rows.leftCols(dim()).array().colwise() * r.array();
}

Dataset LogisticRegressionModel::simulate(const Vec& theta, std::size_t n, Rng& rng) const {
  model_checks::theta(kName, dim(), theta);
  const int d = dim();
  Dataset data;
  data.x.resize(static_cast<Eigen::Index>(n), d + 1);
  Vec u(d);
  for (Eigen::Index i = 0; i < data.x.rows(); ++i) {
    // Uniform in the ball: a uniform direction (normalised Gaussian) times R·U^{1/d}, since the
    // volume within radius r grows as r^d.
    double norm = 0.0;
    do {
      for (int j = 0; j < d; ++j) u(j) = rng.normal();
      norm = u.norm();
    } while (norm == 0.0);
    const double radius = p_.norm_bound * std::pow(rng.uniform(), 1.0 / d);
    // The (1 − 1e-12) keeps rounding from putting a row just outside the declared bound.
    u *= radius * (1.0 - 1e-12) / norm;
    data.x.row(i).head(d) = u.transpose();
    const double z = u.dot(theta);
    const double p = z >= 0 ? 1.0 / (1.0 + std::exp(-z)) : std::exp(z) / (1.0 + std::exp(z));
    data.x(i, d) = rng.bernoulli(p) ? 1.0 : 0.0;
  }
  data.columns = data_columns();
  data.source = "simulated";
  return data;
}

void LogisticRegressionModel::row_bounds(const RowBlock& rows, Eigen::Ref<Vec> out) const {
  model_checks::block(kName, dim() + 1, rows, out.size());
  check_labels(rows, dim());
  out = rows.leftCols(dim()).rowwise().norm();
  if ((out.array() <= p_.norm_bound).all()) return;
  for (Eigen::Index i = 0; i < out.size(); ++i) {
    if (!(out(i) <= p_.norm_bound)) {
      throw DataError(fmt::format(
          "model '{}': row {} (1-based, of a block of {}) has feature norm ||x|| = {:.17g}, above "
          "the "
          "declared bound R = {:.17g} on which the privacy sensitivity rests; rescale the "
          "features (the Fashion-MNIST loader scales them to norm <= R)",
          kName, i + 1, rows.rows(), out(i), p_.norm_bound));
    }
  }
}

double LogisticRegressionModel::bound_distance(const Vec& theta, const Vec& theta_prime) const {
  model_checks::theta(kName, dim(), theta);
  model_checks::theta(kName, dim(), theta_prime);
  return (theta - theta_prime).norm();
}

Vec LogisticRegressionModel::predictive_probabilities(const Mat& draws,
                                                      const RowBlock& rows) const {
  if (draws.cols() != dim() || draws.rows() < 1) {
    throw UsageError(
        fmt::format("model '{}': predictive needs at least one draw of {} parameters, got {} x {}",
                    kName, dim(), draws.rows(), draws.cols()));
  }
  model_checks::dataset(kName, dim() + 1, rows.cols());
  // Draws in chunks so that the logit matrix stays small (rows × 256 doubles).
  constexpr Eigen::Index kChunk = 256;
  Vec sum = Vec::Zero(rows.rows());
  Mat z;
  for (Eigen::Index s = 0; s < draws.rows(); s += kChunk) {
    const Eigen::Index m = std::min(kChunk, draws.rows() - s);
    z.noalias() = rows.leftCols(dim()) * draws.middleRows(s, m).transpose();
    const Eigen::ArrayXXd e = (-z.array().abs()).exp();
    sum += (z.array() >= 0.0).select(1.0 / (1.0 + e), e / (1.0 + e)).rowwise().sum().matrix();
  }
  return sum / static_cast<double>(draws.rows());
}

double LogisticRegressionModel::predictive_accuracy(const Mat& draws, const Dataset& test) const {
  if (test.rows() == 0) throw DataError(fmt::format("model '{}': empty test set", kName));
  const Vec p = predictive_probabilities(draws, test.x);
  check_labels(test.x, dim());
  const auto predicted = (p.array() > 0.5).cast<double>();
  const double correct = (predicted == test.x.col(dim()).array()).count();
  return correct / static_cast<double>(test.rows());
}

}  // namespace dpmcmc
