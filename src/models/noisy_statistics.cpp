#include "models/noisy_statistics.hpp"

#include <fmt/format.h>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <cmath>
#include <limits>
#include <numbers>

#include "core/error.hpp"

namespace dpmcmc {

RegressionStatistic::RegressionStatistic(const GlmSpec& glm) {
  const bool gaussian = glm.family == GlmFamily::linear || glm.family == GlmFamily::normal;
  const bool poisson = glm.family == GlmFamily::poisson;
  if (!gaussian && !poisson && glm.family != GlmFamily::logistic)
    throw ConfigError(
        "noisy sufficient statistics: the families with a released statistic are linear, normal, "
        "logistic and poisson");
  p_ = static_cast<int>(glm.coefficient_names.size());
  square_ = gaussian && !glm.sigma;  // Σ t² informs σ only
  intercept_ = p_ > 0 && glm.coefficient_names.front() == "intercept";
  if (poisson && !intercept_)
    throw ConfigError(
        "noisy sufficient statistics: poisson needs the intercept (its column releases X'1, the "
        "covariates' mean)");
  if (poisson && !(glm.y_low >= 0.0))
    throw ConfigError(fmt::format(
        "noisy sufficient statistics: a poisson target is a count; its declared lower bound {:g} "
        "must be at least 0",
        glm.y_low));
  // t = y − m: m = ½ for logistic; otherwise, with an intercept, the middle of y's declared range
  // (public), so that t spans the half-range only (linear and normal: the intercept absorbs it;
  // poisson: the mean of b subtracts m X'1).
  shift_ = glm.family == GlmFamily::logistic ? 0.5
           : intercept_                      ? 0.5 * (glm.y_low + glm.y_high)
                                             : 0.0;
  centre_ = gaussian ? shift_ : 0.0;
  const double t_max = glm.family == GlmFamily::logistic
                           ? 0.5
                           : std::max(std::abs(glm.y_low - shift_), std::abs(glm.y_high - shift_));
  std::vector<double> lo, hi;
  const auto& names = glm.coefficient_names;
  for (int j = 0; j < p_; ++j) {
    for (int k = j; k < p_; ++k) {
      if (j == 0 && k == 0 && intercept_) continue;  // Σ 1 = n is public: not released
      const double bound = glm.column_bounds[static_cast<std::size_t>(j)] *
                           glm.column_bounds[static_cast<std::size_t>(k)];
      names_.push_back(fmt::format("xx.{}.{}", names[static_cast<std::size_t>(j)],
                                   names[static_cast<std::size_t>(k)]));
      lo.push_back(j == k ? 0.0 : -bound);
      hi.push_back(bound);
    }
  }
  for (int j = 0; j < p_; ++j) {
    names_.push_back(fmt::format("xt.{}", names[static_cast<std::size_t>(j)]));
    lo.push_back(-glm.column_bounds[static_cast<std::size_t>(j)] * t_max);
    hi.push_back(glm.column_bounds[static_cast<std::size_t>(j)] * t_max);
  }
  if (square_) {
    names_.push_back("tt");
    lo.push_back(0.0);
    hi.push_back(t_max * t_max);
  }
  const Vec low = Eigen::Map<const Vec>(lo.data(), static_cast<Eigen::Index>(lo.size()));
  const Vec high = Eigen::Map<const Vec>(hi.data(), static_cast<Eigen::Index>(hi.size()));
  widths_ = high - low;
  if (!(widths_.array() > 0.0).all())
    throw ConfigError("noisy sufficient statistics: every declared bound must be positive");
  // Released in units of each component's width (the header: one noise level for all).
  lower_ = low.cwiseQuotient(widths_);
  upper_ = high.cwiseQuotient(widths_);
}

Vec RegressionStatistic::to_units(const Vec& released) const {
  return released.cwiseProduct(widths_);
}

void RegressionStatistic::stat_rows(const RowBlock& rows, Eigen::Ref<Mat> out) const {
  for (Eigen::Index i = 0; i < rows.rows(); ++i) {
    const double t = rows(i, p_) - shift_;
    Eigen::Index c = 0;
    for (int j = 0; j < p_; ++j) {
      for (int k = j; k < p_; ++k) {
        if (j == 0 && k == 0 && intercept_) continue;
        out(i, c++) = rows(i, j) * rows(i, k);
      }
    }
    for (int j = 0; j < p_; ++j) out(i, c++) = rows(i, j) * t;
    if (square_) out(i, c) = t * t;
    out.row(i).array() /= widths_.transpose().array();
  }
}

NoisyStatisticsModel::NoisyStatisticsModel(std::shared_ptr<const GlmModel> glm,
                                           const RegressionStatistic& stat, double n, Vec noise_sd,
                                           std::optional<Vec> released)
    : glm_(std::move(glm)),
      family_(glm_->spec().family),
      p_(stat.coefficients()),
      square_(stat.has_square()),
      intercept_(stat.has_intercept()),
      centre_(stat.centre()),
      shift_(stat.shift()),
      n_(n),
      sigma_(glm_->spec().sigma),
      columns_(stat.stat_names()) {
  if (noise_sd.size() != stat.stat_dim())
    throw SoftwareError("NoisyStatisticsModel: one noise sd per released component expected");
  const Vec var = noise_sd.array().square();
  a_var_.resize(p_, p_);
  Eigen::Index c = 0;
  for (int j = 0; j < p_; ++j) {
    for (int k = j; k < p_; ++k)
      a_var_(j, k) = a_var_(k, j) = j == 0 && k == 0 && intercept_ ? 0.0 : var(c++);
  }
  b_var_ = var.segment(c, p_);
  if (square_) c_var_ = var(c + p_);
  if (released) {
    released_parts_ = decompose(*released);
    released_ = std::move(released);
  }
}

NoisyStatisticsModel::Errors NoisyStatisticsModel::errors_in_variables(const Vec& beta) const {
  Errors e;
  e.bb = a_var_.cwiseProduct(beta * beta.transpose());
  e.bb.diagonal() = a_var_ * beta.cwiseAbs2();
  e.bc = Vec::Zero(p_);
  for (int j = 0; j < p_; ++j) {
    for (int k = 0; k < p_; ++k) {
      const double m = j == k ? 1.0 : 2.0;
      e.bc(j) += a_var_(j, k) * m * beta(j) * beta(k) * beta(k);
      if (k >= j) e.cc += std::pow(m * beta(j) * beta(k), 2) * a_var_(j, k);
    }
  }
  return e;
}

std::string NoisyStatisticsModel::name() const {
  return fmt::format("{} given noisy sufficient statistics", glm_->name());
}

NoisyStatisticsModel::Parts NoisyStatisticsModel::parts(const Eigen::Ref<const Vec>& s) const {
  if (released_ && s == *released_) return released_parts_;
  return decompose(s);
}

NoisyStatisticsModel::Parts NoisyStatisticsModel::decompose(const Eigen::Ref<const Vec>& s) const {
  Parts out;
  Mat a(p_, p_);
  Eigen::Index c = 0;
  for (int j = 0; j < p_; ++j) {
    for (int k = j; k < p_; ++k) a(j, k) = a(k, j) = j == 0 && k == 0 && intercept_ ? n_ : s(c++);
  }
  // The noise can make the released XᵀX indefinite; XᵀX itself is positive semi-definite.
  const Eigen::SelfAdjointEigenSolver<Mat> eig(a);
  out.a = eig.eigenvectors() * eig.eigenvalues().cwiseMax(0.0).asDiagonal() *
          eig.eigenvectors().transpose();
  out.b = s.segment(c, p_);
  if (square_) out.c = s(c + p_);
  if (family_ == GlmFamily::poisson) {  // the covariates' Gaussian (the header)
    out.mean_x = a.col(0) / n_;
    const Mat cov = a / n_ - out.mean_x * out.mean_x.transpose();
    const Eigen::SelfAdjointEigenSolver<Mat> cov_eig(cov);
    out.cov_x = cov_eig.eigenvectors() * cov_eig.eigenvalues().cwiseMax(0.0).asDiagonal() *
                cov_eig.eigenvectors().transpose();
  }
  return out;
}

NoisyStatisticsModel::Observation NoisyStatisticsModel::poisson_observation(const Vec& beta,
                                                                            const Parts& q) const {
  const Vec& m = q.mean_x;
  const Mat& cov_x = q.cov_x;
  const Vec s_beta = cov_x * beta;
  const double rho = m.dot(beta);
  const double c = rho + 0.5 * beta.dot(s_beta);
  const double ec = std::exp(c);
  const double lambda = n_ * ec;
  const Vec u = m + s_beta;
  Observation o;
  // b = X'(y − m) has mean λu − m X'1, X'1 = n m̄ (A's intercept column, with its noise: the
  // errors-in-variables term below carries it).
  o.residual = q.b - lambda * u + shift_ * n_ * m;
  o.covariance = lambda * (u * u.transpose() + cov_x);
  o.covariance.diagonal() += b_var_;
  // dμ per entry (j ≤ k) of A's noise, G(:, jk), weighted by its variance (the header).
  Vec w = ec * beta;
  w(0) += ec * (1.0 - rho) - shift_;
  const Vec g1 = ec * ((1.0 - rho) * u - m);
  const Vec g2 = 0.5 * ec * u;
  Vec g(p_);
  for (int j = 0; j < p_; ++j) {
    for (int k = j; k < p_; ++k) {
      const double var = a_var_(j, k);
      if (var == 0.0) continue;
      g = (j == k ? 1.0 : 2.0) * beta(j) * beta(k) * g2;
      if (j == 0) g += beta(k) * g1;
      g(j) += w(k);
      if (j != k) g(k) += w(j);
      o.covariance.noalias() += var * g * g.transpose();
    }
  }
  return o;
}

NoisyStatisticsModel::Observation NoisyStatisticsModel::observation(
    const Vec& theta, const Eigen::Ref<const Vec>& s) const {
  const Parts q = parts(s);
  if (family_ == GlmFamily::poisson) return poisson_observation(theta.head(p_), q);
  Vec beta = theta.head(p_);
  if (intercept_) beta(0) -= centre_;  // t = y − m: the intercept of t is β₀ − m
  const Vec a_beta = q.a * beta;
  const Errors e = errors_in_variables(beta);
  Observation o;
  if (family_ == GlmFamily::logistic) {
    o.residual = q.b - a_beta / 4.0;
    o.covariance = q.a / 4.0 + e.bb / 16.0;
    o.covariance.diagonal() += b_var_;
    return o;
  }
  const double sigma = sigma_ ? *sigma_ : std::exp(theta(p_));
  const double s2 = sigma * sigma;
  Mat cov_b = s2 * q.a + e.bb;
  cov_b.diagonal() += b_var_;
  // σ known: given b, c − bᵀA⁻¹b = eᵀ(I − H)e ~ σ²χ²(n − p) says nothing about β, so c is left
  // out (its Gaussian approximation would add spurious information).
  if (sigma_) {
    o.residual = q.b - a_beta;
    o.covariance = cov_b;
    return o;
  }
  const int k = p_ + 1;
  o.residual.resize(k);
  o.residual.head(p_) = q.b - a_beta;
  const double quad = beta.dot(a_beta);
  o.residual(p_) = q.c - quad - n_ * s2;
  o.covariance.resize(k, k);
  o.covariance.topLeftCorner(p_, p_) = cov_b;
  o.covariance.block(0, p_, p_, 1) = 2.0 * s2 * a_beta + e.bc;
  o.covariance.block(p_, 0, 1, p_) = o.covariance.block(0, p_, p_, 1).transpose();
  o.covariance(p_, p_) = 4.0 * s2 * quad + 2.0 * n_ * s2 * s2 + c_var_ + e.cc;
  return o;
}

double NoisyStatisticsModel::log_lik(const Vec& theta, const Eigen::Ref<const Vec>& s) const {
  const Observation o = observation(theta, s);
  // A rate that overflows (poisson far in the prior's tail) has no likelihood.
  if (!o.residual.allFinite() || !o.covariance.allFinite())
    return -std::numeric_limits<double>::infinity();
  return gaussian_log_density(o.residual, o.covariance);
}

double NoisyStatisticsModel::gaussian_log_density(const Vec& residual, const Mat& cov) {
  const auto k = static_cast<double>(residual.size());
  const Eigen::LLT<Mat> llt(cov);
  if (llt.info() != Eigen::Success) return -std::numeric_limits<double>::infinity();
  const Vec z = llt.matrixL().solve(residual);
  const double log_det = 2.0 * llt.matrixL().toDenseMatrix().diagonal().array().log().sum();
  return -0.5 * (z.squaredNorm() + log_det + k * std::log(2.0 * std::numbers::pi));
}

void NoisyStatisticsModel::log_lik_rows(const Vec& theta, const RowBlock& rows,
                                        Eigen::Ref<Vec> out) const {
  for (Eigen::Index i = 0; i < rows.rows(); ++i) out(i) = log_lik(theta, rows.row(i).transpose());
}

void NoisyStatisticsModel::grad_log_lik_rows(const Vec& theta, const RowBlock& rows,
                                             Eigen::Ref<Mat> out) const {
  for (Eigen::Index i = 0; i < rows.rows(); ++i) {
    const Vec s = rows.row(i).transpose();
    // Central differences: the mean and covariance both move with θ, and d ≤ a few dozen, so
    // 2d evaluations of an O(p³) density are cheap next to the rows they replace.
    Vec t = theta;
    for (Eigen::Index j = 0; j < theta.size(); ++j) {
      const double h = 1e-5 * std::max(1.0, std::abs(theta(j)));
      t(j) = theta(j) + h;
      const double up = log_lik(t, s);
      t(j) = theta(j) - h;
      const double down = log_lik(t, s);
      t(j) = theta(j);
      out(i, j) = (up - down) / (2.0 * h);
    }
  }
}

Dataset NoisyStatisticsModel::simulate(const Vec&, std::size_t, Rng&) const {
  throw ConfigError(
      fmt::format("{}: a released statistic is not a sample of rows to simulate", name()));
}

}  // namespace dpmcmc
