#include "models/noisy_statistics.hpp"

#include <fmt/format.h>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "core/error.hpp"

namespace dpmcmc {

namespace {

double logistic(double z) {
  return 1.0 / (1.0 + std::exp(-z));
}

}  // namespace

RegressionStatistic::RegressionStatistic(const GlmSpec& glm, std::optional<Vec> expansion_centre,
                                         std::optional<double> residual_bound) {
  const bool gaussian = glm.family == GlmFamily::linear || glm.family == GlmFamily::normal;
  const bool poisson = glm.family == GlmFamily::poisson;
  poisson_ = poisson;
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
  double t_max = glm.family == GlmFamily::logistic
                     ? 0.5
                     : std::max(std::abs(glm.y_low - shift_), std::abs(glm.y_high - shift_));
  centre_beta_ = Vec::Zero(p_);
  double weight_low = 1.0;  // the least u = 4σ(η₀)(1 − σ(η₀)) over the declared box
  if (residual_bound && !(gaussian && expansion_centre))
    throw ConfigError(
        "noisy sufficient statistics: a residual bound is for linear and normal with a centre");
  if (residual_bound && !(*residual_bound > 0.0))
    throw ConfigError("noisy sufficient statistics: the residual bound must be positive");
  if (expansion_centre) {
    if (expansion_centre->size() != p_ || !expansion_centre->allFinite())
      throw ConfigError(fmt::format(
          "noisy sufficient statistics: the expansion centre needs {} finite values", p_));
    centre_beta_ = *expansion_centre;
    double reach = 0.0;  // R ≥ |xᵀβ₀| for every row in the box (the header)
    for (int j = 0; j < p_; ++j)
      reach += std::abs(centre_beta_(j)) * glm.column_bounds[static_cast<std::size_t>(j)];
    // Each row's η₀ is a rounded dot product: R is widened by a relative 1e-9 so that no row's
    // r or u falls outside the box that the sensitivity is computed from.
    reach = reach * (1.0 + 1e-9) + 1e-12;
    if (gaussian) {
      // t = clip(y − xᵀβ₀, ±T): y − xᵀβ₀ ∈ [y_low − a − R′, y_high − a + R′] with a the
      // intercept's β₀ (its column is 1) and R′ the other columns' reach, so T is at most that
      // range's larger end, and a smaller residual bound clips (the header). stat_rows clamps
      // to ±T either way: the box holds whatever this bound is.
      residual_ = true;
      shift_ = centre_ = 0.0;
      const double a = intercept_ ? centre_beta_(0) : 0.0;
      const double others = intercept_ ? reach - std::abs(a) * glm.column_bounds.front() : reach;
      t_max = std::max(std::abs(glm.y_low - a - others), std::abs(glm.y_high - a + others));
      if (residual_bound) t_max = std::min(t_max, *residual_bound);
    } else if (poisson) {
      // m₀ = e^{η₀} ∈ [e^{−R}, e^R]: u = m₀ e^{−R} ∈ [e^{−2R}, 1], t = y − m₀ (the header).
      weighted_ = expansion_ = intercept_weight_ = true;
      curvature_ = std::exp(reach);
      shift_ = 0.0;
      t_max = std::max(std::abs(glm.y_low - curvature_), std::abs(glm.y_high - 1.0 / curvature_)) *
              (1.0 + 1e-9);
      weight_low = std::exp(-2.0 * reach) * (1.0 - 1e-9);
    } else {
      weighted_ = expansion_ = reach > 1e-12 * 2.0;
      // σ(−R) directly: 1 − σ(R) cancels to a few digits for R ≳ 15, and rows at the box's
      // corner would then fall outside it.
      const double tail = logistic(-reach);
      t_max = weighted_ ? 1.0 - tail : 0.5;
      weight_low = weighted_ ? 4.0 * tail * (1.0 - tail) * (1.0 - 1e-6) : 1.0;
      intercept_weight_ = weighted_ && intercept_;
    }
  }
  std::vector<double> lo, hi;
  const auto& names = glm.coefficient_names;
  for (int j = 0; j < p_; ++j) {
    for (int k = j; k < p_; ++k) {
      const bool intercept_square = j == 0 && k == 0 && intercept_;
      if (intercept_square && !intercept_weight_) continue;  // Σ 1 = n is public: not released
      const double bound = glm.column_bounds[static_cast<std::size_t>(j)] *
                           glm.column_bounds[static_cast<std::size_t>(k)];
      names_.push_back(fmt::format("xx.{}.{}", names[static_cast<std::size_t>(j)],
                                   names[static_cast<std::size_t>(k)]));
      // The intercept's Σ u is released as Σ (1 − u) ∈ [0, n(1 − u_min)]: u near 1 everywhere
      // (a centre near 0) would otherwise put each row near 1/width in released units, and the
      // summation's float-error bound would swamp the release.
      lo.push_back(intercept_square ? 0.0 : j == k ? 0.0 : -bound);
      hi.push_back(intercept_square ? 1.0 - weight_low : bound);
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
  residual_bound_ = t_max;
  if (!std::isfinite(curvature_) || !std::isfinite(t_max))
    throw ConfigError(fmt::format(
        "noisy sufficient statistics: the expansion centre reaches |x'beta| = {:g}, too far for "
        "its ranges to be finite",
        std::log(curvature_)));
  const Vec low = Eigen::Map<const Vec>(lo.data(), static_cast<Eigen::Index>(lo.size()));
  const Vec high = Eigen::Map<const Vec>(hi.data(), static_cast<Eigen::Index>(hi.size()));
  widths_ = high - low;
  if (!(widths_.array() > 0.0).all())
    throw ConfigError("noisy sufficient statistics: every declared bound must be positive");
  // The cross products x t carry the pull on β; x xᵀ only the curvature, whose noise enters as
  // errors in variables (the header). Released in units of half their width, they get half the
  // noise of an equal split for the same ε (the sensitivity grows from √k to √(k + 3p)): at n =
  // 10⁴, ε = 1, d = 5 the private posterior sd fell from 2.29 to 1.66 non-private sds for
  // logistic and from 8.5 to 5.9 for linear (docs/user-guide.md, "Release once, sample
  // forever"). Poisson's covariate moments come from x xᵀ, and without x xᵀ (normal) there is
  // nothing to trade: they keep equal units.
  if ((!poisson || expansion_) && static_cast<int>(names_.size()) > p_ + (square_ ? 1 : 0)) {
    widths_.segment(static_cast<Eigen::Index>(names_.size()) - p_ - (square_ ? 1 : 0), p_) *=
        kCrossProductUnit;
  }
  // Released in units of each component's width (the header: one noise level for all).
  lower_ = low.cwiseQuotient(widths_);
  upper_ = high.cwiseQuotient(widths_);
}

Vec RegressionStatistic::to_units(const Vec& released) const {
  return released.cwiseProduct(widths_);
}

void RegressionStatistic::stat_rows(const RowBlock& rows, Eigen::Ref<Mat> out) const {
  for (Eigen::Index i = 0; i < rows.rows(); ++i) {
    double t = rows(i, p_) - shift_;
    double u = 1.0;  // the weight of x xᵀ (the header's u; 1 at β₀ = 0)
    if (residual_) {
      t = std::clamp(rows(i, p_) - rows.row(i).head(p_).dot(centre_beta_), -residual_bound_,
                     residual_bound_);
    } else if (weighted_) {
      const double eta = rows.row(i).head(p_).dot(centre_beta_);
      if (poisson_) {  // m₀ = e^{η₀}, u = m₀/e^R
        const double m0 = std::exp(eta);
        t = rows(i, p_) - m0;
        u = m0 / curvature_;
      } else {  // y ∈ {0, 1}: r = σ(−η₀) or −σ(η₀), each without cancellation
        const double up = logistic(eta), down = logistic(-eta);
        t = rows(i, p_) > 0.5 ? down : -up;
        u = 4.0 * up * down;
      }
    }
    Eigen::Index c = 0;
    for (int j = 0; j < p_; ++j) {
      for (int k = j; k < p_; ++k) {
        if (j == 0 && k == 0 && intercept_) {
          if (intercept_weight_) out(i, c++) = 1.0 - u;  // Σ (1 − u): see the constructor
          continue;
        }
        out(i, c++) = u * rows(i, j) * rows(i, k);
      }
    }
    for (int j = 0; j < p_; ++j) out(i, c++) = rows(i, j) * t;
    if (square_) out(i, c) = t * t;
    out.row(i).array() /= widths_.transpose().array();
    // An expansion's exact values lie in the box (the bounds hold for every row in the declared
    // ranges); clamping absorbs the rounding of η₀, σ and e^η only, so the sensitivity stands.
    if (weighted_)
      out.row(i) = out.row(i).cwiseMax(lower_.transpose()).cwiseMin(upper_.transpose());
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
      n_public_(stat.has_intercept() && !stat.releases_intercept_weight()),
      centre_(stat.centre()),
      centre_beta_(stat.expansion_centre()),
      expansion_(glm_->spec().family == GlmFamily::logistic || stat.is_expansion()),
      curvature_(stat.curvature()),
      shift_(stat.shift()),
      n_(n),
      sigma_(glm_->spec().sigma),
      columns_(stat.stat_names()) {
  if (stat.is_residual()) residual_bound_ = stat.residual_bound();
  if (noise_sd.size() != stat.stat_dim())
    throw SoftwareError("NoisyStatisticsModel: one noise sd per released component expected");
  const Vec var = noise_sd.array().square();
  a_var_.resize(p_, p_);
  Eigen::Index c = 0;
  for (int j = 0; j < p_; ++j) {
    for (int k = j; k < p_; ++k)
      a_var_(j, k) = a_var_(k, j) = j == 0 && k == 0 && n_public_ ? 0.0 : var(c++);
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
    for (int k = j; k < p_; ++k) {
      // The intercept's Σ u: public n, or n − the released Σ (1 − u) (RegressionStatistic).
      const bool intercept_square = j == 0 && k == 0 && intercept_;
      a(j, k) = a(k, j) = intercept_square ? n_ - (n_public_ ? 0.0 : s(c++)) : s(c++);
    }
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
  if (family_ == GlmFamily::poisson && !expansion_) return poisson_observation(theta.head(p_), q);
  Vec beta = theta.head(p_);
  if (intercept_) beta(0) -= centre_;  // t = y − m: the intercept of t is β₀ − m
  beta -= centre_beta_;  // the expansion's or the residuals' β − β₀ (zero without a centre)
  const Vec a_beta = q.a * beta;
  const Errors e = errors_in_variables(beta);
  Observation o;
  if (expansion_) {  // b ~ N(cA(β − β₀), cA + c²E + D), c = ¼ for logistic (the header)
    const double c = curvature_;
    o.residual = q.b - c * a_beta;
    o.covariance = c * q.a + c * c * e.bb;
    o.covariance.diagonal() += b_var_;
    return o;
  }
  const double sigma = sigma_ ? *sigma_ : std::exp(theta(p_));
  const double s2 = sigma * sigma;
  // Clipped residuals (the header): the moments of clip(e, ±T) replace e's, to first order in Δ.
  const ClippedNormal k = clipped(sigma);
  const double var = s2 * k.second;
  Mat cov_b = var * q.a + e.bb;
  cov_b.diagonal() += b_var_;
  // σ known: given b, c − bᵀA⁻¹b = eᵀ(I − H)e ~ σ²χ²(n − p) says nothing about β, so c is left
  // out (its Gaussian approximation would add spurious information).
  if (sigma_) {
    o.residual = q.b - k.inside * a_beta;
    o.covariance = cov_b;
    return o;
  }
  const int dim = p_ + 1;
  o.residual.resize(dim);
  o.residual.head(p_) = q.b - k.inside * a_beta;
  const double quad = beta.dot(a_beta);
  o.residual(p_) = q.c - k.curve * quad - n_ * var;
  o.covariance.resize(dim, dim);
  o.covariance.topLeftCorner(p_, p_) = cov_b;
  o.covariance.block(0, p_, p_, 1) = s2 * k.cross() * a_beta + e.bc;
  o.covariance.block(p_, 0, 1, p_) = o.covariance.block(0, p_, p_, 1).transpose();
  o.covariance(p_, p_) =
      s2 * k.spread() * quad + n_ * s2 * s2 * (k.fourth - k.second * k.second) + c_var_ + e.cc;
  return o;
}

NoisyStatisticsModel::ClippedNormal NoisyStatisticsModel::clipped_normal(double t) {
  if (!(t < 40.0)) return {};
  const double tail = 0.5 * std::erfc(t / std::numbers::sqrt2);  // 1 − Φ(t)
  const double density = std::exp(-0.5 * t * t) / std::sqrt(2.0 * std::numbers::pi);
  ClippedNormal k;
  k.inside = 1.0 - 2.0 * tail;
  k.curve = k.inside - 2.0 * t * density;
  k.second = k.curve + 2.0 * t * t * tail;
  k.inner_fourth = 3.0 * k.inside - 2.0 * density * (t * t * t + 3.0 * t);
  k.fourth = k.inner_fourth + 2.0 * std::pow(t, 4) * tail;
  return k;
}

NoisyStatisticsModel::ClippedNormal NoisyStatisticsModel::clipped(double sigma) const {
  return residual_bound_ ? clipped_normal(*residual_bound_ / sigma) : ClippedNormal{};
}

Vec NoisyStatisticsModel::linearised_mean(const Eigen::Ref<const Vec>& released) const {
  if (!expansion_)
    throw ConfigError(
        "noisy sufficient statistics: the linearised pilot mean is for an expansion (logistic, "
        "centred poisson)");
  const Parts q = parts(released);
  const Mat h = curvature_ * q.a;
  Mat cov = h;
  cov.diagonal() += b_var_;
  const Eigen::LDLT<Mat> c(cov);
  Vec precision(p_), mean(p_);
  const auto& priors = glm_->spec().coefficient_priors;
  for (int j = 0; j < p_; ++j) {
    const ScalarPrior& prior = priors[static_cast<std::size_t>(j)];
    // A Student-t's variance where it has one, else its scale's: the centre only.
    const double var = prior.kind == ScalarPrior::Kind::student_t && prior.nu > 2.0
                           ? prior.scale * prior.scale * prior.nu / (prior.nu - 2.0)
                           : prior.scale * prior.scale;
    precision(j) = 1.0 / var;
    mean(j) = prior.mean;
  }
  Mat p = h * c.solve(h);
  p.diagonal() += precision;
  const Vec rhs = h * c.solve(q.b) + precision.cwiseProduct(mean - centre_beta_);
  return centre_beta_ + p.ldlt().solve(rhs);
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

bool NoisyStatisticsModel::has_analytic_gradient() const {
  return expansion_ || sigma_.has_value();
}

NoisyStatisticsModel::Mode NoisyStatisticsModel::posterior_mode(
    const Eigen::Ref<const Vec>& released, Vec theta) const {
  const Vec s = released;
  const auto f = [&](const Vec& b) { return log_prior(b) + log_lik(b, s); };
  const auto d = theta.size();
  // The gradient and Hessian by central differences.
  const auto derivatives = [&](const Vec& at, Vec& g, Mat& h) {
    g.resize(d);
    h.resize(d, d);
    const double e = 1e-4;
    for (Eigen::Index j = 0; j < d; ++j) {
      Vec up = at, down = at;
      up(j) += e;
      down(j) -= e;
      g(j) = (f(up) - f(down)) / (2.0 * e);
      for (Eigen::Index k = 0; k <= j; ++k) {
        Vec pp = up, pm = up, mp = down, mm = down;
        pp(k) += e;
        pm(k) -= e;
        mp(k) += e;
        mm(k) -= e;
        h(j, k) = h(k, j) = (f(pp) - f(pm) - f(mp) + f(mm)) / (4.0 * e * e);
      }
    }
  };
  double value = f(theta);
  Vec g;
  Mat h;
  for (int step = 0; step < 100 && std::isfinite(value); ++step) {
    derivatives(theta, g, h);
    // Newton's step where the Hessian is negative definite, else a gradient step; steps of at
    // most 1 in norm (poisson: from β = 0 the first Newton step at n = 10⁶ overshot to a far mode
    // of the covariates' model).
    const Eigen::LLT<Mat> llt(-h);
    Vec dir = llt.info() == Eigen::Success ? Vec(llt.solve(g)) : Vec(g);
    if (dir.norm() > 1.0) dir /= dir.norm();
    double t = 1.0, next = f(theta + dir);
    while (!(next > value) && t > 1e-8) {
      t *= 0.5;
      next = f(theta + t * dir);
    }
    if (!(next > value)) break;
    theta += t * dir;
    const bool done = next - value < 1e-10 * std::max(1.0, std::abs(value));
    value = next;
    if (done) break;
  }
  derivatives(theta, g, h);
  // Converged: the Newton decrement gᵀ(−H)⁻¹g (twice the log density still to gain, to second
  // order) is small; not, where −H is not positive definite or the steps ran out far off.
  const Eigen::LLT<Mat> at_end(-h);
  const bool converged = at_end.info() == Eigen::Success && g.allFinite() &&
                         g.dot(at_end.solve(g)) < 1e-6 * std::max(1.0, std::abs(value));
  return {theta, h, converged};
}

Vec NoisyStatisticsModel::pilot_centre(const Eigen::Ref<const Vec>& released) const {
  if (expansion_) return linearised_mean(released);
  if (family_ == GlmFamily::linear || family_ == GlmFamily::normal)
    return residual_centre(released).centre;
  if (family_ != GlmFamily::poisson)
    throw ConfigError("noisy sufficient statistics: pilot releases are for regression families");
  // From the released mean count (Σ (y − m) = b₀).
  Vec beta = Vec::Zero(dim());
  const double mean_count = parts(released).b(0) / n_ + shift_;
  beta(0) = std::log(std::max(mean_count, 1e-3));
  return posterior_mode(released, beta).theta;
}

NoisyStatisticsModel::ResidualCentre NoisyStatisticsModel::residual_centre(
    const Eigen::Ref<const Vec>& released) const {
  if (family_ != GlmFamily::linear && family_ != GlmFamily::normal)
    throw ConfigError("noisy sufficient statistics: residual centres are for linear and normal");
  // From least squares on the release (ridge-regularised: Ã may be singular), σ from the
  // residual sum of squares where c is released.
  const Parts q = parts(released);
  Mat a = q.a;
  a.diagonal().array() += 1e-9 * std::max(1.0, n_);
  const Vec delta = a.ldlt().solve(q.b);
  Vec theta(dim());
  theta.head(p_) = delta + centre_beta_;
  if (intercept_) theta(0) += centre_;
  if (!sigma_) {
    const double floor = 1e-3 * std::max(std::abs(centre_), 1.0);
    const double rss = square_ ? (q.c - delta.dot(q.b)) / n_ : 1.0;
    theta(p_) = std::log(std::max(std::sqrt(std::max(rss, 0.0)), floor));
  }
  const Mode mode = posterior_mode(released, theta);
  ResidualCentre out;
  out.centre = mode.theta.head(p_);
  out.bound = std::numeric_limits<double>::infinity();
  out.mode = mode.theta;
  // The mode's curvature gives its covariance; without one (not negative definite), or short of
  // the mode, no bound.
  const Eigen::LLT<Mat> llt(-mode.hessian);
  if (!mode.converged || llt.info() != Eigen::Success) return out;
  const Mat cov = llt.solve(Mat::Identity(dim(), dim()));
  out.sd = cov.diagonal().cwiseMax(0.0).cwiseSqrt();
  if (!sigma_) out.log_sigma_sd = out.sd(p_);
  const double sigma_high = sigma_ ? *sigma_ : std::exp(mode.theta(p_) + 2.0 * out.log_sigma_sd);
  // sd of xᵀ(β − β₀) over the box: at most √(λ_max(Cov β) Σ B_j²).
  const Eigen::SelfAdjointEigenSolver<Mat> eig(cov.topLeftCorner(p_, p_));
  double box = 0.0;
  for (const double bound : glm_->spec().column_bounds) box += bound * bound;
  const double spread = std::sqrt(std::max(eig.eigenvalues().maxCoeff(), 0.0) * box);
  out.bound = kResidualSigmas * sigma_high + 2.0 * spread;
  if (!std::isfinite(out.bound) || !out.centre.allFinite()) {
    if (!out.centre.allFinite()) out.centre = theta.head(p_);
    if (!out.mode.allFinite()) out.mode = theta;
    out.bound = std::numeric_limits<double>::infinity();
    out.sd.resize(0);
    out.log_sigma_sd = std::numeric_limits<double>::quiet_NaN();
  }
  return out;
}

// The Gaussian log density's gradient where the mean is linear in Δ (logistic: Δ = β − β₀, mean
// ÃΔ/4, covariance Ã/4 + E(Δ)/16 + D; linear and normal with σ known: Δ = β with the intercept
// centred, mean ÃΔ, covariance σ²Ã + E(Δ) + D). With r the residual, C the covariance, α = C⁻¹r,
// M = C⁻¹ and G_i = ∂C/∂Δ_i = s·∂E/∂Δ_i (s = 1/16 or 1),
//   ∂ℓ/∂Δ_i = αᵀ(∂μ/∂Δ_i) + ½ αᵀG_iα − ½ tr(M G_i),
// and E's derivative has entries a_il Δ_l in row and column i (l ≠ i) and 2 a_ji Δ_i on the
// diagonal (E_jj = Σ_k a_jk Δ_k², E_jl = a_jl Δ_j Δ_l), so each term costs O(p): O(p³) in all
// for the factorisation, against 2p of them for central differences.
Vec NoisyStatisticsModel::analytic_gradient(const Vec& theta,
                                            const Eigen::Ref<const Vec>& released) const {
  const Parts q = parts(released);
  Vec delta = theta.head(p_);
  if (intercept_) delta(0) -= centre_;
  delta -= centre_beta_;
  const double scale = expansion_ ? curvature_ * curvature_ : 1.0;
  const Mat mean_slope =
      expansion_ ? Mat(curvature_ * q.a) : Mat(clipped(sigma_.value_or(1.0)).inside * q.a);
  const Observation o = observation(theta, released);
  const Eigen::LLT<Mat> llt(o.covariance);
  Vec out = Vec::Zero(theta.size());
  if (llt.info() != Eigen::Success || !o.residual.allFinite()) return out;
  const Vec alpha = llt.solve(o.residual);
  const Mat m = llt.solve(Mat::Identity(p_, p_));
  for (int i = 0; i < p_; ++i) {
    double quad = 0.0, trace = 0.0;
    for (int l = 0; l < p_; ++l) {
      const double diag = 2.0 * a_var_(l, i) * delta(i);  // ∂E_ll/∂Δ_i
      quad += alpha(l) * alpha(l) * diag;
      trace += m(l, l) * diag;
      if (l == i) continue;
      const double off = a_var_(i, l) * delta(l);  // ∂E_il/∂Δ_i = ∂E_li/∂Δ_i
      quad += 2.0 * alpha(i) * alpha(l) * off;
      trace += 2.0 * m(i, l) * off;
    }
    out(i) = alpha.dot(mean_slope.col(i)) + 0.5 * scale * (quad - trace);
  }
  return out;
}

void NoisyStatisticsModel::grad_log_lik_rows(const Vec& theta, const RowBlock& rows,
                                             Eigen::Ref<Mat> out) const {
  for (Eigen::Index i = 0; i < rows.rows(); ++i) {
    const Vec s = rows.row(i).transpose();
    if (has_analytic_gradient()) {
      out.row(i) = analytic_gradient(theta, s).transpose();
      continue;
    }
    // Central differences (σ sampled, poisson): the mean and covariance both move with θ, and
    // d ≤ a few dozen, so 2d evaluations of an O(p³) density are cheap next to the rows they
    // replace.
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
