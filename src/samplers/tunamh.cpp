#include "samplers/tunamh.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <span>

#include "core/error.hpp"
#include "core/poisson_variate.hpp"
#include "samplers/start_check.hpp"

namespace dpmcmc {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Keep probabilities outside [0, 1] by more than rounding mean the model's bound is wrong for
// this row: a bug in the model, never bad user input (rows outside the range were refused when
// the bounds were computed).
constexpr double kBoundSlack = 1e-9;

}  // namespace

TunaMhKernel::TunaMhKernel(const Model& model, const RatioBound& bound, const Dataset& data,
                           TunaMhConfig config)
    : model_(model),
      bound_(bound),
      data_(data),
      lambda_(config.lambda),
      temperature_(model.temperature()) {
  if (!(lambda_ > 0.0) || !std::isfinite(lambda_)) {
    throw ConfigError(fmt::format("tunamh: lambda must be finite and > 0, got {}", lambda_));
  }
  if (!(temperature_ > 0.0) || !std::isfinite(temperature_)) {
    throw ConfigError(
        fmt::format("tunamh: model '{}' has temperature {}, expected a value in "
                    "(0, 1]",
                    model.name(), temperature_));
  }
  scale_ = broadcast_positive(config.scale, model_.dim(), "tunamh proposal scale");
  const auto n = static_cast<Eigen::Index>(data_.rows());
  c_.resize(n);
  if (n > 0) bound_.row_bounds(data_.x, c_);
  // The bounds are for the untempered likelihood (models/ratio_bound.hpp): U_i = −T log p.
  c_ *= temperature_;
  for (Eigen::Index i = 0; i < n; ++i) {
    if (!(c_(i) >= 0.0) || !std::isfinite(c_(i))) {
      throw SoftwareError(
          fmt::format("tunamh: model '{}' gave row {} the bound {}, expected a "
                      "finite value >= 0",
                      model.name(), i + 1, c_(i)));
    }
  }
  total_ = c_.sum();
  if (total_ > 0.0) alias_.emplace(std::span<const double>(c_.data(), c_.size()));
  theta_ = Vec::Zero(model_.dim());
  proposal_ = Vec::Zero(model_.dim());
}

void TunaMhKernel::init(const Vec& theta0) {
  check_start(theta0, model_.dim(), "tunamh");
  const double lp = model_.log_prior(theta0);
  check_start_density(lp, theta0, "tunamh");
  theta_ = theta0;
  log_prior_ = lp;
  initialised_ = true;
}

TransitionInfo TunaMhKernel::transition(Rng& rng, std::span<double> extras) {
  if (!initialised_) throw SoftwareError("tunamh: transition() before init()");
  TransitionInfo info;
  info.log_density = kNaN;
  const auto report = [&](double batch, double kept, double mean) {
    if (extras.size() >= 3) {
      extras[0] = batch;
      extras[1] = kept;
      extras[2] = mean;
    }
  };
  for (int j = 0; j < model_.dim(); ++j) proposal_[j] = theta_[j] + scale_[j] * rng.normal();
  const double lp_new = proposal_.allFinite() ? model_.log_prior(proposal_)
                                              : -std::numeric_limits<double>::infinity();
  if (!(lp_new > -std::numeric_limits<double>::infinity())) {
    // Outside the prior's support (where the ratio bound need not hold): accepted with
    // probability 0 whatever the minibatch, so none is drawn.
    report(0.0, 0.0, 0.0);
    return info;
  }
  if (std::isnan(lp_new)) {
    throw SoftwareError(fmt::format("tunamh: model '{}' returned a NaN log prior", model_.name()));
  }

  const double m = bound_.bound_distance(theta_, proposal_);
  const double cm = total_ * m;
  const double mean = lambda_ + cm;
  double log_r = lp_new - log_prior_;
  std::uint64_t batch = 0, kept = 0;
  if (alias_) {
    batch = poisson_variate(rng, mean);
    // Draw the B indices, gather their rows into one block, and evaluate every ΔU_i with one
    // call of the fused ratio kernel.
    index_.resize(batch);
    for (auto& i : index_) i = alias_->sample(rng);
    const auto b = static_cast<Eigen::Index>(batch);
    if (rows_.rows() < b || rows_.cols() != data_.x.cols()) {
      rows_.resize(std::max(b, rows_.rows()), data_.x.cols());
      llr_.resize(rows_.rows());
    }
    for (Eigen::Index k = 0; k < b; ++k) {
      rows_.row(k) = data_.x.row(static_cast<Eigen::Index>(index_[static_cast<std::size_t>(k)]));
    }
    if (b > 0) model_.log_lik_ratio_rows(theta_, proposal_, rows_.topRows(b), llr_.head(b));
    const double denom_keep = lambda_ + cm;         // p_i's denominator over c_i
    const double denom_ratio = 2.0 * lambda_ + cm;  // artanh argument's denominator over c_i
    double sum = 0.0;
    for (Eigen::Index k = 0; k < b; ++k) {
      const std::size_t i = index_[static_cast<std::size_t>(k)];
      const double ci = c_(static_cast<Eigen::Index>(i));
      const double du = -temperature_ * llr_(k);  // ΔU_i = U_i(θ′) − U_i(θ)
      // p_i = [λ c_i + (C/2)(ΔU_i + c_i M)] / [c_i (λ + C M)], written over c_i.
      const double keep = (lambda_ + 0.5 * total_ * (du / ci + m)) / denom_keep;
      if (!(keep >= -kBoundSlack && keep <= 1.0 + kBoundSlack)) {
        throw SoftwareError(fmt::format(
            "tunamh: row {} violates the ratio bound of model '{}': |dU| = {} > c_i M = {} "
            "([ZhangZhang2023] Assumption 1)",
            i + 1, model_.name(), std::abs(du), ci * m));
      }
      if (rng.uniform() < keep) {
        ++kept;
        sum += 2.0 * std::atanh(-total_ * du / (ci * denom_ratio));
      }
    }
    log_r += sum;
  }
  report(static_cast<double>(batch), static_cast<double>(kept), alias_ ? mean : 0.0);

  // Metropolis on the extended state; the random walk is symmetric.
  info.accept_stat = log_r >= 0.0 ? 1.0 : std::exp(log_r);
  if (std::isnan(log_r)) {
    throw SoftwareError("tunamh: the acceptance ratio is NaN (a model returned NaN)");
  }
  if (log_r >= 0.0 || std::log(rng.uniform_pos()) < log_r) {
    theta_.swap(proposal_);
    log_prior_ = lp_new;
    info.accepted = true;
  }
  return info;
}

std::unique_ptr<Kernel> make_tunamh(const Model& model, const Dataset& data, TunaMhConfig config) {
  const auto* bound = dynamic_cast<const RatioBound*>(&model);
  if (bound == nullptr) {
    throw ConfigError(fmt::format(
        "tunamh: model '{}' has no per-row ratio bound ([ZhangZhang2023] Assumption 1); TunaMH "
        "needs one",
        model.name()));
  }
  return std::make_unique<TunaMhKernel>(model, *bound, data, std::move(config));
}

}  // namespace dpmcmc
