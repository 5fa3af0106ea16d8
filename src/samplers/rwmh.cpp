#include "samplers/rwmh.hpp"

#include <fmt/format.h>
#include <Eigen/Cholesky>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "core/state_json.hpp"
#include "models/posterior.hpp"
#include "samplers/clipped_llr.hpp"
#include "samplers/start_check.hpp"

namespace dpmcmc {

namespace {
constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();
}  // namespace

RwmhKernel::RwmhKernel(int dim, LogDensityFn log_density, RwmhConfig config, AcceptRule rule)
    : dim_(dim), log_density_(std::move(log_density)), rule_(std::move(rule)) {
  if (dim_ < 1) throw ConfigError(fmt::format("rwmh: dimension must be at least 1, got {}", dim_));
  if (!rule_) throw SoftwareError("rwmh: no accept rule given");
  scale_ = broadcast_positive(config.scale, dim_, "rwmh proposal scale");
  tuning_ = {1.0, scale_.cwiseAbs2()};
  theta_ = Vec::Zero(dim_);
  proposal_ = Vec::Zero(dim_);
}

void RwmhKernel::init(const Vec& theta0) {
  check_start(theta0, dim_, "rwmh");
  const double lp = log_density_ ? log_density_(theta0) : kUnknown;
  check_start_density(lp, theta0, "rwmh", static_cast<bool>(log_density_));
  theta_ = theta0;
  lp_ = lp;
  initialised_ = true;
}

std::optional<AdaptationTarget> RwmhKernel::adaptation() const {
  AdaptationTarget target{random_walk_target_accept(dim_), true, true, true};
  target.restart_step = random_walk_restart_step(dim_);
  return target;
}

void RwmhKernel::set_tuning(const Tuning& tuning) {
  scale_ = tuned_scale(tuning, dim_, "rwmh");
  chol_.resize(0, 0);
  if (tuning.dense.size() != 0) {
    const Eigen::LLT<Mat> llt(tuning.dense);
    if (tuning.dense.rows() != dim_ || tuning.dense.cols() != dim_ || llt.info() != Eigen::Success)
      throw SoftwareError("rwmh: the dense metric is not positive definite of the dimension");
    chol_ = tuning.step * Mat(llt.matrixL());
  }
  tuning_ = tuning;
}

TransitionInfo RwmhKernel::transition(Rng& rng, std::span<double> /*extras*/) {
  if (!initialised_) throw SoftwareError("rwmh: transition() before init()");
  if (chol_.size() == 0) {
    for (int j = 0; j < dim_; ++j) proposal_[j] = theta_[j] + scale_[j] * rng.normal();
  } else {
    for (int j = 0; j < dim_; ++j) proposal_[j] = rng.normal();
    proposal_ = theta_ + chol_ * proposal_;
  }
  TransitionInfo info;
  if (!proposal_.allFinite()) {  // an overflowing step: no rule may move there
    info.log_density = lp_;
    return info;
  }
  const double lp_new = log_density_ ? log_density_(proposal_) : kUnknown;
  // The random walk is symmetric: q(θ | θ′) = q(θ′ | θ), no correction.
  const AcceptDecision d = rule_(MoveProposal{theta_, proposal_, lp_, lp_new, 0.0}, rng);
  info.accept_stat = d.accept_stat;
  if (d.accept) {
    theta_.swap(proposal_);
    lp_ = lp_new;
    info.accepted = true;
  }
  info.log_density = lp_;
  return info;
}

std::unique_ptr<Kernel> make_rwmh(const Model& model, const Dataset& data, RwmhConfig config,
                                  AcceptRule rule) {
  auto posterior = std::make_shared<Posterior>(model, data);
  LogDensityFn density = [posterior](const Vec& theta) { return posterior->log_density(theta); };
  if (!config.clip) {
    return std::make_unique<RwmhKernel>(model.dim(), std::move(density), std::move(config),
                                        std::move(rule));
  }
  check_clip_bound(*config.clip, "rwmh");
  auto tally = std::make_shared<ClipTally>();
  AcceptRule clipped = clipped_llr_rule(model, data, *config.clip, std::move(rule), tally);
  return std::make_unique<ClipColumnKernel>(
      std::make_unique<RwmhKernel>(model.dim(), std::move(density), std::move(config),
                                   std::move(clipped)),
      tally, "clip_frac__");
}

nlohmann::json RwmhKernel::save_state() const {
  return {{"lp", state::of(lp_)}};
}

void RwmhKernel::load_state(const nlohmann::json& s) {
  lp_ = state::to_double(s, "lp");
}

}  // namespace dpmcmc
