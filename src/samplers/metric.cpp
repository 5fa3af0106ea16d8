#include "samplers/metric.hpp"

#include <Eigen/Cholesky>

#include "core/error.hpp"

namespace dpmcmc {

Metric::Metric(Vec inverse_mass_diagonal) : inv_mass_(std::move(inverse_mass_diagonal)) {
  // As HmcKernel always computed it: the mass, then its square root.
  sqrt_mass_ = inv_mass_.cwiseInverse().cwiseSqrt();
}

Metric Metric::from_mass(const Vec& mass) {
  Metric m;
  m.inv_mass_ = mass.cwiseInverse();
  m.sqrt_mass_ = mass.cwiseSqrt();
  return m;
}

Metric Metric::from_tuning(const Tuning& tuning, int dim, const char* kernel) {
  tuned_scale(tuning, dim, kernel);  // checks the step and the diagonal
  if (tuning.dense.size() == 0) return Metric(tuning.metric);
  const Mat& s = tuning.dense;
  if (s.rows() != dim || s.cols() != dim || !s.allFinite() || !s.isApprox(s.transpose())) {
    throw ConfigError("dense metric: not a symmetric positive definite matrix of the dimension");
  }
  Eigen::LLT<Mat> llt(s);
  if (llt.info() != Eigen::Success) {
    throw ConfigError("dense metric: not a symmetric positive definite matrix of the dimension");
  }
  Metric m;
  m.dense_ = true;
  m.sigma_ = s;
  m.chol_ = llt.matrixL();
  m.inv_mass_ = s.diagonal();
  return m;
}

void Metric::draw_momentum(Vec& p, Rng& rng) const {
  if (!dense_) {
    dpmcmc::draw_momentum(p, sqrt_mass_, rng);
    return;
  }
  for (Eigen::Index j = 0; j < p.size(); ++j) p[j] = rng.normal();
  chol_.transpose().triangularView<Eigen::Upper>().solveInPlace(p);  // p = L⁻ᵀz
}

double Metric::kinetic(const Vec& p) const {
  if (!dense_) return kinetic_energy(p, inv_mass_);
  return 0.5 * p.dot(sigma_ * p);
}

void Metric::velocity(const Vec& p, Vec& out) const {
  if (!dense_) {
    out = inv_mass_.cwiseProduct(p);
  } else {
    out.noalias() = sigma_ * p;
  }
}

}  // namespace dpmcmc
