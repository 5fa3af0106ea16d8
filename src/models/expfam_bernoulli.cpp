#include "models/expfam_bernoulli.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "core/error.hpp"

namespace dpmcmc {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool inside(const Vec& theta) {
  return theta.size() == 1 && theta[0] > 0.0 && theta[0] < 1.0;
}

}  // namespace

ExpFamBernoulliModel::ExpFamBernoulliModel(double a, double b) : a_(a), b_(b) {
  for (const auto& [v, what] : {std::pair{a, "a"}, std::pair{b, "b"}}) {
    if (!(v > 0.0) || !std::isfinite(v)) {
      throw ConfigError(fmt::format(
          "bernoulli-beta model: prior parameter {} must be finite and > 0, got {}", what, v));
    }
  }
  log_beta_ = std::lgamma(a) + std::lgamma(b) - std::lgamma(a + b);
}

double ExpFamBernoulliModel::log_prior(const Vec& theta) const {
  if (!inside(theta)) return -kInf;
  const double p = theta[0];
  return (a_ - 1.0) * std::log(p) + (b_ - 1.0) * std::log1p(-p) - log_beta_;
}

void ExpFamBernoulliModel::grad_log_prior(const Vec& theta, Eigen::Ref<Vec> out) const {
  if (!inside(theta)) {
    out.setConstant(kNaN);
    return;
  }
  const double p = theta[0];
  out[0] = (a_ - 1.0) / p - (b_ - 1.0) / (1.0 - p);
}

void ExpFamBernoulliModel::log_lik_rows(const Vec& theta, const RowBlock& rows,
                                        Eigen::Ref<Vec> out) const {
  const double p = theta[0];
  const double lp = std::log(p), lq = std::log1p(-p);
  out = rows.col(0).array() * lp + (1.0 - rows.col(0).array()) * lq;
}

void ExpFamBernoulliModel::grad_log_lik_rows(const Vec& theta, const RowBlock& rows,
                                             Eigen::Ref<Mat> out) const {
  const double p = theta[0];
  out.col(0) = rows.col(0).array() / p - (1.0 - rows.col(0).array()) / (1.0 - p);
}

Dataset ExpFamBernoulliModel::simulate(const Vec& theta, std::size_t n, Rng& rng) const {
  if (!inside(theta)) {
    throw ConfigError(fmt::format("bernoulli-beta model: simulate needs p in (0, 1), got {}",
                                  theta.size() == 1 ? theta[0] : kNaN));
  }
  Dataset d;
  d.x.resize(static_cast<Eigen::Index>(n), 1);
  for (Eigen::Index i = 0; i < d.x.rows(); ++i) d.x(i, 0) = rng.bernoulli(theta[0]) ? 1.0 : 0.0;
  d.columns = {"y"};
  d.source = "simulated";
  return d;
}

std::pair<double, double> ExpFamBernoulliModel::posterior_parameters(const Dataset& data) const {
  if (data.cols() != 1) {
    throw DataError(
        fmt::format("bernoulli-beta model: expected 1 data column 'y', got {}", data.cols()));
  }
  double s = 0.0;
  for (Eigen::Index i = 0; i < data.x.rows(); ++i) {
    const double y = data.x(i, 0);
    if (y != 0.0 && y != 1.0) {
      throw DataError(
          fmt::format("bernoulli-beta model: row {}, column 'y': value {}, expected "
                      "0 or 1",
                      i + 1, y));
    }
    s += y;
  }
  return {a_ + s, b_ + static_cast<double>(data.rows()) - s};
}

Mat ExpFamBernoulliModel::sample_posterior(const Dataset& data, std::size_t draws, Rng& rng) const {
  const auto [pa, pb] = posterior_parameters(data);
  Mat out(static_cast<Eigen::Index>(draws), 1);
  for (Eigen::Index i = 0; i < out.rows(); ++i) {
    const double g1 = rng.gamma(pa), g2 = rng.gamma(pb);
    out(i, 0) = g1 / (g1 + g2);
  }
  return out;
}

void ExpFamBernoulliModel::stat_rows(const RowBlock& rows, Eigen::Ref<Mat> out) const {
  const auto y = rows.col(0).array();
  out.col(0) = (y == 0.0 || y == 1.0).select(y, kNaN);
}

Vec ExpFamBernoulliModel::natural_parameter(const Vec& theta) const {
  Vec eta(1);
  const double p = theta[0];
  eta[0] = std::log(p) - std::log1p(-p);
  return eta;
}

double ExpFamBernoulliModel::log_partition(const Vec& theta) const {
  return -std::log1p(-theta[0]);
}

}  // namespace dpmcmc
