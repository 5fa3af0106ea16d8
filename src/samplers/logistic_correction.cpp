#include "samplers/logistic_correction.hpp"

#include <fmt/format.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <numbers>

#include "core/error.hpp"

namespace dpmcmc {
namespace {

constexpr double kLogisticVariance = std::numbers::pi * std::numbers::pi / 3.0;
constexpr int kMaxCentres = 20001;
// Grid of the error measures (CorrectionFit): fine enough that the trapezoid errors of the TVD
// and CDF integrals (≈ h²/12·∫|f''| ≈ 1e-7) are far below the errors being measured (≈ 1e-3).
constexpr double kMeasureStep = 1e-3;

double normal_pdf(double x, double sd) {
  const double z = x / sd;
  return std::exp(-0.5 * z * z) / (sd * std::sqrt(2.0 * std::numbers::pi));
}

double normal_cdf(double x, double sd) {
  return 0.5 * std::erfc(-x / (sd * std::numbers::sqrt2));
}

// Non-negative least squares min ‖Ax − b‖ subject to x ≥ 0 by the active-set method of Lawson and
// Hanson (Solving Least Squares Problems, 1974, Chapter 23). Eigen 3.4 as installed here has no
// unsupported/Eigen/NNLS, hence this. P is the passive set (free, positive variables); each outer
// step frees the variable whose gradient most wants to grow, each inner step solves the
// unconstrained problem on P (column-pivoted QR, which copes with the near-collinear columns of
// closely spaced Gaussians) and steps back to the feasible boundary while any variable is ≤ 0.
// A variable that numerically refuses to become positive when freed is blocked until x changes
// (the usual guard against cycling). Returns the number of outer iterations.
int nnls(const Eigen::MatrixXd& a, const Eigen::VectorXd& b, Eigen::VectorXd& x) {
  const Eigen::Index n = a.cols();
  x = Eigen::VectorXd::Zero(n);
  std::vector<char> passive(n, 0), blocked(n, 0);
  const double tol = 10.0 * std::numeric_limits<double>::epsilon() *
                     a.cwiseAbs().colwise().sum().maxCoeff() * static_cast<double>(a.rows());
  const int max_outer = 3 * static_cast<int>(n);
  Eigen::VectorXd s(n);
  int outer = 0;
  for (; outer < max_outer; ++outer) {
    const Eigen::VectorXd w = a.transpose() * (b - a * x);
    Eigen::Index j = -1;
    double best = tol;
    for (Eigen::Index i = 0; i < n; ++i) {
      if (!passive[i] && !blocked[i] && w[i] > best) {
        best = w[i];
        j = i;
      }
    }
    if (j < 0) break;  // Kuhn–Tucker conditions hold: optimal
    passive[j] = 1;
    bool first = true;
    for (;;) {
      std::vector<Eigen::Index> idx;
      for (Eigen::Index i = 0; i < n; ++i)
        if (passive[i]) idx.push_back(i);
      Eigen::MatrixXd ap(a.rows(), static_cast<Eigen::Index>(idx.size()));
      for (std::size_t c = 0; c < idx.size(); ++c)
        ap.col(static_cast<Eigen::Index>(c)) = a.col(idx[c]);
      const Eigen::VectorXd z = ap.colPivHouseholderQr().solve(b);
      s.setZero();
      for (std::size_t c = 0; c < idx.size(); ++c) s[idx[c]] = z[static_cast<Eigen::Index>(c)];
      if (first && s[j] <= 0.0) {  // the freed variable will not grow: block it, keep x
        passive[j] = 0;
        blocked[j] = 1;
        break;
      }
      first = false;
      double alpha = 1.0;
      bool feasible = true;
      for (Eigen::Index i : idx) {
        if (s[i] <= 0.0) {
          feasible = false;
          alpha = std::min(alpha, x[i] / (x[i] - s[i]));
        }
      }
      if (feasible) {
        x = s;
        std::fill(blocked.begin(), blocked.end(), 0);
        break;
      }
      x += alpha * (s - x);
      for (Eigen::Index i : idx) {
        if (x[i] <= tol) {
          x[i] = 0.0;
          passive[i] = 0;
        }
      }
      std::fill(blocked.begin(), blocked.end(), 0);
    }
  }
  return outer;
}

void validate(double sigma2, const CorrectionSettings& s) {
  if (!(sigma2 > 0.0 && sigma2 < kLogisticVariance)) {
    throw ConfigError(fmt::format(
        "DP Barker correction: noise variance sigma^2 = {} is out of range; expected 0 < sigma^2 < "
        "pi^2/3 = {:.6f} (the variance of Logistic(0, 1), which N(0, sigma^2) + V_corr must match)",
        sigma2, kLogisticVariance));
  }
  const auto positive = [](double v, const char* name) {
    if (!(v > 0.0) || !std::isfinite(v)) {
      throw ConfigError(fmt::format(
          "DP Barker correction: setting {} = {}, expected a finite number > 0", name, v));
    }
  };
  positive(s.spacing, "spacing");
  positive(s.component_sd, "component_sd");
  positive(s.range, "range");
  positive(s.fit_step, "fit_step");
  if (s.range / s.spacing > (kMaxCentres - 1) / 2) {
    throw ConfigError(fmt::format(
        "DP Barker correction: range / spacing = {} / {} gives more than {} centres; expected a "
        "coarser spacing or a smaller range",
        s.range, s.spacing, kMaxCentres));
  }
  if (s.l1_passes < 0 || s.l1_passes > 50) {
    throw ConfigError(
        fmt::format("DP Barker correction: setting l1_passes = {}, expected 0 to 50", s.l1_passes));
  }
}

}  // namespace

double logistic_density(double x) {
  const double e = std::exp(-std::abs(x));
  return e / ((1.0 + e) * (1.0 + e));
}

double logistic_cdf(double x) {
  return x >= 0.0 ? 1.0 / (1.0 + std::exp(-x)) : std::exp(x) / (1.0 + std::exp(x));
}

LogisticCorrection::Mixture LogisticCorrection::fit_mixture(double sigma2,
                                                            const CorrectionSettings& st) {
  validate(sigma2, st);
  const double tau = std::sqrt(st.component_sd * st.component_sd + sigma2);  // convolved sd
  // Symmetric parametrisation: unknown u_0 for the centre 0 and u_j for the pair ±j·h, so the fit
  // is exactly symmetric and the rows need only x ≥ 0.
  const auto pairs = static_cast<Eigen::Index>(std::floor(st.range / st.spacing + 1e-9));
  const Eigen::Index cols = pairs + 1;
  // Rows on [0, range + 8τ]: past that both densities are below 1e-6 of their peak.
  const auto rows = static_cast<Eigen::Index>(std::ceil((st.range + 8.0 * tau) / st.fit_step)) + 1;
  Eigen::MatrixXd a(rows, cols);
  Eigen::VectorXd b(rows);
  for (Eigen::Index i = 0; i < rows; ++i) {
    const double x = static_cast<double>(i) * st.fit_step;
    b[i] = logistic_density(x);
    a(i, 0) = normal_pdf(x, tau);
    for (Eigen::Index j = 1; j < cols; ++j) {
      const double mu = static_cast<double>(j) * st.spacing;
      a(i, j) = normal_pdf(x - mu, tau) + normal_pdf(x + mu, tau);
    }
  }
  // The x = 0 row stands for half a cell of the full line (trapezoid weight ½ on the square).
  Eigen::VectorXd row_w = Eigen::VectorXd::Ones(rows);
  row_w[0] = std::sqrt(0.5);
  Eigen::VectorXd u;
  int iterations = 0;
  for (int pass = 0; pass <= st.l1_passes; ++pass) {
    const Eigen::MatrixXd aw = row_w.asDiagonal() * a;
    const Eigen::VectorXd bw = row_w.cwiseProduct(b);
    iterations += nnls(aw, bw, u);
    // Iteratively reweighted least squares toward min Σ|r_i|: weight² = 1/max(|r_i|, floor).
    const Eigen::VectorXd r = (a * u - b).cwiseAbs();
    const double floor = std::max(1e-3 * r.maxCoeff(), 1e-14);
    for (Eigen::Index i = 0; i < rows; ++i) row_w[i] = 1.0 / std::sqrt(std::max(r[i], floor));
    row_w[0] *= std::sqrt(0.5);
  }
  // Total mass u_0 + 2Σu_j, normalised to 1 (the least-squares fit is within ~1e-3 of it).
  const double mass = u[0] + 2.0 * u.tail(cols - 1).sum();
  if (!(mass > 0.0) || !std::isfinite(mass)) {
    throw SoftwareError(
        fmt::format("DP Barker correction: the fit for sigma^2 = {} failed", sigma2));
  }
  Mixture m;
  for (Eigen::Index j = pairs; j >= 1; --j) {
    if (u[j] > 0.0) {
      m.centres.push_back(-static_cast<double>(j) * st.spacing);
      m.weights.push_back(u[j] / mass);
    }
  }
  const std::size_t half = m.centres.size();
  if (u[0] > 0.0) {
    m.centres.push_back(0.0);
    m.weights.push_back(u[0] / mass);
  }
  for (std::size_t k = half; k-- > 0;) {
    m.centres.push_back(-m.centres[k]);
    m.weights.push_back(m.weights[k]);
  }
  m.fit.components = static_cast<int>(m.centres.size());
  m.fit.nnls_iterations = iterations;
  return m;
}

LogisticCorrection::LogisticCorrection(double sigma2, CorrectionSettings settings)
    : LogisticCorrection(sigma2, settings, fit_mixture(sigma2, settings)) {}

LogisticCorrection::LogisticCorrection(double sigma2, const CorrectionSettings& settings,
                                       Mixture&& mixture)
    : sigma2_(sigma2),
      settings_(settings),
      centres_(std::move(mixture.centres)),
      weights_(std::move(mixture.weights)),
      fit_(mixture.fit),
      alias_(weights_) {
  // Error measures on [0, X] (both densities symmetric): TVD = ∫_0^∞ |Δf| by the trapezoid rule,
  // the CDF difference as the running integral of Δf from 0 (where it is exactly 0).
  const double tau = std::sqrt(settings_.component_sd * settings_.component_sd + sigma2_);
  const double extent = std::max(40.0, centres_.back() + 12.0 * tau);
  const auto steps = static_cast<long>(std::ceil(extent / kMeasureStep));
  double integral = 0.0, cdf_diff = 0.0, prev = 0.0;
  for (long i = 0; i <= steps; ++i) {
    const double x = static_cast<double>(i) * kMeasureStep;
    const double d = convolved_density(x) - logistic_density(x);
    fit_.density_sup = std::max(fit_.density_sup, std::abs(d));
    if (i > 0) {
      integral += 0.5 * kMeasureStep * (std::abs(d) + std::abs(prev));
      cdf_diff += 0.5 * kMeasureStep * (d + prev);
      fit_.cdf_sup = std::max(fit_.cdf_sup, std::abs(cdf_diff));
    }
    prev = d;
  }
  const double end = static_cast<double>(steps) * kMeasureStep;
  const double tails = (1.0 - convolved_cdf(end)) + (1.0 - logistic_cdf(end));
  fit_.tvd = integral + tails;  // ½ · 2 · (half line) — symmetric
}

double LogisticCorrection::variance() const {
  double v = 0.0;
  for (std::size_t k = 0; k < centres_.size(); ++k) v += weights_[k] * centres_[k] * centres_[k];
  return v + settings_.component_sd * settings_.component_sd;
}

double LogisticCorrection::density(double v) const {
  double f = 0.0;
  for (std::size_t k = 0; k < centres_.size(); ++k)
    f += weights_[k] * normal_pdf(v - centres_[k], settings_.component_sd);
  return f;
}

double LogisticCorrection::convolved_density(double x) const {
  const double tau = std::sqrt(settings_.component_sd * settings_.component_sd + sigma2_);
  double f = 0.0;
  for (std::size_t k = 0; k < centres_.size(); ++k)
    f += weights_[k] * normal_pdf(x - centres_[k], tau);
  return f;
}

double LogisticCorrection::convolved_cdf(double x) const {
  const double tau = std::sqrt(settings_.component_sd * settings_.component_sd + sigma2_);
  double f = 0.0;
  for (std::size_t k = 0; k < centres_.size(); ++k)
    f += weights_[k] * normal_cdf(x - centres_[k], tau);
  return f;
}

}  // namespace dpmcmc
