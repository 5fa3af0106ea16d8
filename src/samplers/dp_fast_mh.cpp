#include "samplers/dp_fast_mh.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <numbers>

#include "core/error.hpp"
#include "models/gaussian_mixture.hpp"
#include "models/logistic_regression.hpp"
#include "samplers/start_check.hpp"

namespace dpmcmc {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kNegInf = -std::numeric_limits<double>::infinity();

}  // namespace

double declared_row_bound(const Model& model) {
  if (const auto* gm = dynamic_cast<const GaussianMixtureModel*>(&model)) {
    const auto& p = gm->params();
    return std::numbers::sqrt2 * (p.data_range + p.theta_bound1 + p.theta_bound2) / p.sigma_x2;
  }
  if (const auto* lr = dynamic_cast<const LogisticRegressionModel*>(&model)) {
    return lr->params().norm_bound;
  }
  throw ConfigError(fmt::format(
      "dp-fast-mh: model '{}' declares no per-row bound c̄; give row_bound (a public bound on "
      "every c_i of 003 Assumption 1)",
      model.name()));
}

DpFastMhKernel::DpFastMhKernel(const Model& model, PrivateData& data, DpFastMhConfig config)
    : PrivateKernel(data, {{ReleaseKind::fastmh, 1}}), model_(model), config_(std::move(config)) {
  setup();
}

DpFastMhKernel::DpFastMhKernel(const Model& model, std::unique_ptr<PrivateData> data,
                               DpFastMhConfig config)
    : PrivateKernel(std::move(data), {{ReleaseKind::fastmh, 1}}),
      model_(model),
      config_(std::move(config)) {
  setup();
}

void DpFastMhKernel::setup() {
  const std::string who = name();
  if (!(config_.lambda > 0.0) || !std::isfinite(config_.lambda)) {
    throw ConfigError(
        fmt::format("{}: lambda (λ) must be finite and > 0, got {}", who, config_.lambda));
  }
  if (config_.max_batch < 1) {
    throw ConfigError(
        fmt::format("{}: max_batch (K, the batch-size cap) must be a whole number >= 1, got {}",
                    who, config_.max_batch));
  }
  bound_ = dynamic_cast<const RatioBound*>(&model_);
  if (bound_ == nullptr) {
    throw ConfigError(fmt::format(
        "{}: model '{}' has no per-row ratio bound (003 Assumption 1); DP-Fast MH needs one", who,
        model_.name()));
  }
  row_bound_ = config_.row_bound == 0.0 ? declared_row_bound(model_) : config_.row_bound;
  if (!(row_bound_ > 0.0) || !std::isfinite(row_bound_)) {
    throw ConfigError(
        fmt::format("{}: row_bound (c̄) must be finite and > 0, got {}", who, row_bound_));
  }
  const double t = model_.temperature();
  if (!(t > 0.0) || !std::isfinite(t)) {
    throw ConfigError(
        fmt::format("{}: model '{}' has temperature {}, expected (0, 1]", who, model_.name(), t));
  }
  calibration_ = calibrate_fastmh(config_.epsilon, config_.delta, data().rows(), config_.max_batch);
  scale_ = broadcast_positive(config_.scale, model_.dim(), who + " proposal scale");
  theta_ = Vec::Zero(model_.dim());
  proposal_ = Vec::Zero(model_.dim());
}

std::vector<std::string> DpFastMhKernel::extra_columns() const {
  return {"batch_size__", "full_batch__", "free__", "eps_iter__", "noise_sd__", "eps_spent__"};
}

// The batch size stays with the curator. The branch columns (full_batch__, free__, eps_iter__)
// depend only on B ~ Poisson(λ + C̄M), whose law is public (C̄ = nTc̄), never on the rows.
std::vector<std::string> DpFastMhKernel::publishable_columns() const {
  return {"full_batch__", "free__", "eps_iter__", "noise_sd__", "eps_spent__"};
}

void DpFastMhKernel::init(const Vec& theta0) {
  log_prior_ = start_log_prior(model_, theta0, model_.dim(), name());
  theta_ = theta0;
  initialised_ = true;
}

TransitionInfo DpFastMhKernel::transition(Rng& rng, std::span<double> extras) {
  if (!initialised_) throw SoftwareError(name() + ": transition() before init()");
  if (extras.size() < 6) throw SoftwareError(name() + ": fewer than 6 extra columns given");
  ++iterations_;
  TransitionInfo info;
  info.log_density = kNaN;
  for (auto& e : extras) e = 0.0;

  for (int j = 0; j < model_.dim(); ++j) proposal_[j] = theta_[j] + scale_[j] * rng.normal();
  const double lp_new = proposal_.allFinite() ? model_.log_prior(proposal_) : kNegInf;
  if (std::isnan(lp_new)) {
    throw SoftwareError(
        fmt::format("{}: model '{}' returned a NaN log prior", name(), model_.name()));
  }
  const double u = rng.uniform_pos();  // one uniform per transition, whatever the branch
  bool accept = false;
  if (lp_new == kNegInf) {
    // Outside the prior's support: rejected with no release (the ratio bound may not hold).
    info.accept_stat = 0.0;
  } else {
    const double tau = lp_new - log_prior_;
    const double m = bound_->bound_distance(theta_, proposal_);
    if (!(m >= 0.0) || !std::isfinite(m)) {
      throw SoftwareError(
          fmt::format("{}: M(θ, θ′) = {} from model '{}'", name(), m, model_.name()));
    }
    if (m == 0.0) {
      // |ΔU_i| ≤ c_i·0: the likelihood ratio is 1, only the public prior ratio remains.
      info.accept_stat = tau >= 0.0 ? 1.0 : std::exp(tau);
      accept = tau >= 0.0 || std::log(u) < tau;
    } else {
      FastMhRequest req;
      req.theta = &theta_;
      req.theta_prime = &proposal_;
      req.distance = m;
      req.row_bound = row_bound_;
      req.lambda = config_.lambda;
      req.full_batch_only = config_.full_batch;
      req.free_branch = config_.free_branch;
      req.log_prior_ratio = tau;
      req.calibration = &calibration_;
      const FastMhRelease r = data().fastmh_release(req);
      if (r.free) {
        accept = r.accept;
        info.accept_stat = accept ? 1.0 : 0.0;
        ++free_;
      } else {
        const double log_r = r.value + tau;
        if (std::isnan(log_r)) throw SoftwareError(name() + ": the noisy log ratio is NaN");
        info.accept_stat = log_r >= 0.0 ? 1.0 : std::exp(log_r);
        accept = log_r >= 0.0 || std::log(u) < log_r;
      }
      if (r.full_batch) {
        ++full_;
      } else {
        ++minibatch_;
        batch_total_ += r.batch;
      }
      rows_evaluated_ += r.rows_evaluated;
      extras[0] = static_cast<double>(r.batch);
      extras[1] = r.full_batch ? 1.0 : 0.0;
      extras[2] = r.free ? 1.0 : 0.0;
      extras[3] = r.epsilon;
      extras[4] = r.noise_sd;
    }
  }
  if (accept) {
    theta_.swap(proposal_);
    log_prior_ = lp_new;
    info.accepted = true;
  }
  extras[5] = spent();
  return info;
}

}  // namespace dpmcmc
