#include "models/gaussian.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numbers>
#include <string>

#include "core/error.hpp"
#include "models/checks.hpp"
#include "models/linear_rows.hpp"

namespace dpmcmc {
namespace {

constexpr const char* kName = "gaussian";

// Cholesky factor of a symmetric positive-definite matrix, or ConfigError naming `what`.
Eigen::LLT<Mat> spd_factor(const Mat& m, Eigen::Index d, const std::string& what) {
  if (m.rows() != d || m.cols() != d) {
    throw ConfigError("gaussian model: " + what + " must be " + std::to_string(d) + "x" +
                      std::to_string(d) + ", got " + std::to_string(m.rows()) + "x" +
                      std::to_string(m.cols()));
  }
  if (!m.allFinite()) throw ConfigError("gaussian model: " + what + " has non-finite entries");
  // Symmetric up to rounding: a relative 1e-10 tolerates matrices assembled by products.
  if (!m.isApprox(m.transpose(), 1e-10)) {
    throw ConfigError("gaussian model: " + what + " is not symmetric");
  }
  Eigen::LLT<Mat> llt(m);
  if (llt.info() != Eigen::Success ||
      !(llt.matrixL().toDenseMatrix().diagonal().array() > 0).all()) {
    throw ConfigError("gaussian model: " + what + " is not positive definite");
  }
  return llt;
}

double log_det_2pi(const Eigen::LLT<Mat>& llt) {
  const auto d = static_cast<double>(llt.rows());
  const Mat l = llt.matrixL();
  return d * std::log(2.0 * std::numbers::pi) + 2.0 * l.diagonal().array().log().sum();
}

// Per-thread scratch for the whitened block (the model itself is shared by chains on threads).
Mat& scratch(Eigen::Index rows, Eigen::Index cols) {
  thread_local Mat buffer;
  if (buffer.rows() < rows || buffer.cols() != cols)
    buffer.resize(std::max(rows, buffer.rows()), cols);
  return buffer;
}

// Sufficient statistics of the Gaussian likelihood with known covariance (see summarize()).
class GaussianSummary : public LikelihoodSummary {
 public:
  GaussianSummary(double n, Vec mean, double scatter, const Mat& precision, double lik_const)
      : n_(n),
        mean_(std::move(mean)),
        scatter_(scatter),
        precision_(precision),
        lik_const_(lik_const) {}

  double log_lik(const Vec& theta) const override {
    model_checks::theta(kName, static_cast<int>(mean_.size()), theta);
    const Vec r = mean_ - theta;
    return n_ * lik_const_ - 0.5 * (scatter_ + n_ * r.dot(precision_ * r));
  }
  void grad_log_lik(const Vec& theta, Eigen::Ref<Vec> out) const override {
    model_checks::theta(kName, static_cast<int>(mean_.size()), theta);
    out.noalias() = n_ * (precision_ * (mean_ - theta));
  }

 private:
  double n_;
  Vec mean_;
  double scatter_;
  Mat precision_;
  double lik_const_;
};

}  // namespace

GaussianModel::GaussianModel(Vec prior_mean, Mat prior_cov, Mat cov, double temperature)
    : mu0_(std::move(prior_mean)),
      cov0_(std::move(prior_cov)),
      cov_(std::move(cov)),
      temperature_(temperature) {
  const Eigen::Index d = mu0_.size();
  if (d < 1) throw ConfigError("gaussian model: dimension must be at least 1");
  if (!mu0_.allFinite()) throw ConfigError("gaussian model: prior mean has non-finite entries");
  if (!(temperature > 0.0 && temperature <= 1.0)) {
    throw ConfigError("gaussian model: temperature must be in (0, 1], got " +
                      std::to_string(temperature));
  }
  const Eigen::LLT<Mat> llt0 = spd_factor(cov0_, d, "prior covariance");
  const Eigen::LLT<Mat> llt = spd_factor(cov_, d, "likelihood covariance");
  prec0_ = llt0.solve(Mat::Identity(d, d));
  prec0_ = 0.5 * (prec0_ + prec0_.transpose()).eval();
  prec_ = llt.solve(Mat::Identity(d, d));
  prec_ = 0.5 * (prec_ + prec_.transpose()).eval();
  chol_ = llt.matrixL();
  whiten_ = chol_.triangularView<Eigen::Lower>().solve(Mat::Identity(d, d));
  lik_const_ = -0.5 * log_det_2pi(llt);
  prior_const_ = -0.5 * log_det_2pi(llt0);
}

std::vector<std::string> GaussianModel::data_columns() const {
  std::vector<std::string> names;
  for (int j = 1; j <= dim(); ++j) names.push_back("x." + std::to_string(j));
  return names;
}

double GaussianModel::log_prior(const Vec& theta) const {
  model_checks::theta(kName, dim(), theta);
  const Vec r = theta - mu0_;
  return prior_const_ - 0.5 * r.dot(prec0_ * r);
}

void GaussianModel::grad_log_prior(const Vec& theta, Eigen::Ref<Vec> out) const {
  model_checks::theta(kName, dim(), theta);
  out.noalias() = -(prec0_ * (theta - mu0_));
}

void GaussianModel::log_lik_rows(const Vec& theta, const RowBlock& rows,
                                 Eigen::Ref<Vec> out) const {
  model_checks::theta(kName, dim(), theta);
  model_checks::block(kName, dim(), rows, out.size());
  const Eigen::Index m = rows.rows();
  auto z = scratch(m, dim()).topRows(m);
  // Row i of z is (L⁻¹(x_i − θ))ᵀ = x_iᵀ L⁻ᵀ − (L⁻¹θ)ᵀ.
  z.noalias() = rows * whiten_.transpose().triangularView<Eigen::Upper>();
  z.rowwise() -= (whiten_ * theta).transpose();
  // Row norms accumulated column by column: contiguous, vectorised passes (a row-wise reduction
  // over a column-major block would stride through memory).
  out.array() = z.col(0).array().square();
  Eigen::Index k = 1;
  for (; k + 1 < z.cols(); k += 2)
    out.array() += z.col(k).array().square() + z.col(k + 1).array().square();
  if (k < z.cols()) out.array() += z.col(k).array().square();
  out.array() = lik_const_ - 0.5 * out.array();
}

void GaussianModel::log_lik_ratio_rows(const Vec& theta, const Vec& theta_prime,
                                       const RowBlock& rows, Eigen::Ref<Vec> out) const {
  model_checks::theta(kName, dim(), theta);
  model_checks::theta(kName, dim(), theta_prime);
  model_checks::block(kName, dim(), rows, out.size());
  // log p(x|θ′) − log p(x|θ) = −½(x−θ′)ᵀP(x−θ′) + ½(x−θ)ᵀP(x−θ) = wᵀx − ½ wᵀ(θ + θ′),
  // w = P(θ′ − θ), P = Σ⁻¹ symmetric.
  thread_local Vec w;
  w.noalias() = prec_ * (theta_prime - theta);
  const double c = -0.5 * w.dot(theta + theta_prime);
  linear_rows(
      rows, [&](Eigen::Index j) { return w(j); }, c, out);
}

void GaussianModel::grad_log_lik_rows(const Vec& theta, const RowBlock& rows,
                                      Eigen::Ref<Mat> out) const {
  model_checks::theta(kName, dim(), theta);
  model_checks::grad_block(kName, dim(), dim(), rows, out.rows(), out.cols());
  // Row i: (Σ⁻¹(x_i − θ))ᵀ = x_iᵀ P − (Pθ)ᵀ, P symmetric.
  out.noalias() = rows * prec_;
  out.rowwise() -= (prec_ * theta).transpose();
}

std::unique_ptr<const LikelihoodSummary> GaussianModel::summarize(const Dataset& data) const {
  model_checks::dataset(kName, dim(), data.x.cols());
  if (data.rows() == 0) return nullptr;
  const Vec mean = data.x.colwise().mean().transpose();
  // S = Σ_i |L⁻¹(x_i − x̄)|², accumulated over blocks of rows.
  double scatter = 0.0;
  constexpr std::size_t kBlock = 4096;
  for (std::size_t begin = 0; begin < data.rows(); begin += kBlock) {
    const auto count = static_cast<Eigen::Index>(std::min(kBlock, data.rows() - begin));
    Mat z = (data.block(begin, static_cast<std::size_t>(count)).rowwise() - mean.transpose()) *
            whiten_.transpose();
    scatter += z.squaredNorm();
  }
  return std::make_unique<GaussianSummary>(static_cast<double>(data.rows()), mean, scatter, prec_,
                                           lik_const_);
}

Dataset GaussianModel::simulate(const Vec& theta, std::size_t n, Rng& rng) const {
  model_checks::theta(kName, dim(), theta);
  const Eigen::Index d = dim();
  Mat z(static_cast<Eigen::Index>(n), d);
  for (Eigen::Index i = 0; i < z.rows(); ++i) {
    for (Eigen::Index j = 0; j < d; ++j) z(i, j) = rng.normal();
  }
  Dataset data;
  data.x.noalias() = z * chol_.transpose();
  data.x.rowwise() += theta.transpose();
  data.columns = data_columns();
  return data;
}

GaussianModel::Conditioned GaussianModel::condition(const Dataset& data) const {
  model_checks::dataset(kName, dim(), data.x.cols());
  const double tn = temperature_ * static_cast<double>(data.rows());
  const Vec sum = data.x.colwise().sum().transpose();
  Conditioned c{Eigen::LLT<Mat>(prec0_ + tn * prec_), Vec()};
  c.mean = c.precision.solve(prec0_ * mu0_ + temperature_ * (prec_ * sum));
  return c;
}

GaussianModel::Moments GaussianModel::posterior_moments(const Dataset& data) const {
  const Conditioned c = condition(data);
  Moments m{c.mean, c.precision.solve(Mat::Identity(dim(), dim()))};
  m.cov = 0.5 * (m.cov + m.cov.transpose()).eval();
  return m;
}

Mat GaussianModel::sample_posterior(const Dataset& data, std::size_t draws, Rng& rng) const {
  const Conditioned c = condition(data);  // Λ = R Rᵀ
  const Eigen::Index d = dim();
  // θ = mean + R⁻ᵀ z has covariance R⁻ᵀ R⁻¹ = Λ⁻¹; solving with the factor of the precision
  // avoids forming (and factoring) the covariance. z is drawn draw by draw.
  Mat z(static_cast<Eigen::Index>(draws), d);
  for (Eigen::Index i = 0; i < z.rows(); ++i) {
    for (Eigen::Index j = 0; j < d; ++j) z(i, j) = rng.normal();
  }
  // Row i: (R⁻ᵀ z_i)ᵀ = z_iᵀ R⁻¹, i.e. solve X R = Z for X.
  Mat x = c.precision.matrixL().solve<Eigen::OnTheRight>(z);
  x.rowwise() += c.mean.transpose();
  return x;
}

}  // namespace dpmcmc
