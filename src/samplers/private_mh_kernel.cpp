#include "samplers/private_mh_kernel.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "core/state_json.hpp"
#include "samplers/start_check.hpp"

namespace dpmcmc {

PrivateMhKernel::PrivateMhKernel(const Model& model, DataOwner& owner, ReleaseCounts per_iteration,
                                 MhShape shape)
    : PrivateKernel(owner, std::move(per_iteration)), model_(model), shape_(std::move(shape)) {}

PrivateMhKernel::PrivateMhKernel(const Model& model, std::unique_ptr<DataOwner> owner,
                                 ReleaseCounts per_iteration, MhShape shape)
    : PrivateKernel(std::move(owner), std::move(per_iteration)),
      model_(model),
      shape_(std::move(shape)) {}

void PrivateMhKernel::set_scale(const Vec& scale, const std::string& what) {
  scale_ = broadcast_positive(scale, model_.dim(), what);
  tuning_ = {1.0, scale_.cwiseAbs2()};
  theta_ = Vec::Zero(model_.dim());
  proposal_ = Vec::Zero(model_.dim());
  direction_ = Vec::Ones(model_.dim());
}

std::optional<AdaptationTarget> PrivateMhKernel::adaptation() const {
  const int moved = shape_.proposal == PenaltyProposal::full ? model_.dim() : 1;
  const double accept = shape_.proposal == PenaltyProposal::guided_walk
                            ? kGuidedWalkTargetAccept
                            : random_walk_target_accept(moved);
  AdaptationTarget target{accept, true, true};
  target.restart_step = random_walk_restart_step(moved);
  target.pool_windows = true;
  return target;
}

void PrivateMhKernel::set_tuning(const Tuning& tuning) {
  scale_ = tuned_scale(tuning, model_.dim(), "private MH kernel");
  tuning_ = tuning;
}

std::vector<std::string> PrivateMhKernel::extra_columns() const {
  std::vector<std::string> columns = shape_.columns;
  columns.emplace_back("eps_spent__");
  return columns;
}

std::vector<std::string> PrivateMhKernel::publishable_columns() const {
  std::vector<std::string> columns = shape_.publishable;
  columns.emplace_back("eps_spent__");
  return columns;
}

void PrivateMhKernel::init(const Vec& theta0) {
  if (scale_.size() != model_.dim()) throw SoftwareError(name() + ": init() before set_scale()");
  log_prior_ = start_log_prior(model_, theta0, model_.dim(), name());
  theta_ = theta0;
  direction_.setOnes();
  on_init();  // before the kernel counts as initialised: it may throw
  initialised_ = true;
}

TransitionInfo PrivateMhKernel::transition(Rng& rng, std::span<double> extras) {
  if (!initialised_) throw SoftwareError(name() + ": transition() before init()");
  const std::size_t own = shape_.columns.size();
  if (extras.size() < own + 1) {
    throw SoftwareError(
        fmt::format("{}: {} extra columns given, expected {}", name(), extras.size(), own + 1));
  }
  ++transitions_;
  const std::span<double> columns = extras.first(own);
  for (double& c : columns) c = 0.0;

  // 1. The proposal (algorithm stream).
  const PenaltyMove move =
      propose_penalty_move(shape_.proposal, theta_, scale_, direction_, rng, proposal_);
  constexpr double kNegInf = -std::numeric_limits<double>::infinity();
  const double lp_new = proposal_.allFinite() ? model_.log_prior(proposal_) : kNegInf;

  TransitionInfo info;
  info.log_density = std::numeric_limits<double>::quiet_NaN();
  AcceptDecision d;
  if (std::isnan(lp_new) || lp_new == kNegInf) {
    d = {false, 0.0};  // 2. impossible under the public prior: rejected without a release
    for (int i = 0; i < shape_.test_uniforms; ++i) rng.uniform_pos();
  } else if (move.step_norm == 0.0) {
    // 3. A zero step: nothing to test, nothing to release. θ is kept as it is (θ′ differs from it
    // only when the step's norm underflowed, below ~1e-162, where keeping θ is the same move).
    for (int i = 0; i < shape_.test_uniforms; ++i) rng.uniform_pos();
    info.accept_stat = 1.0;  // accepted: a GWMH direction is kept
    info.accepted = true;
    extras[own] = spent();
    return info;
  } else {
    d = noisy_test({theta_, proposal_, move.step_norm, lp_new - log_prior_}, rng, columns);
  }

  info.accept_stat = d.accept_stat;
  if (d.accept) {
    on_accept();
    theta_.swap(proposal_);
    log_prior_ = lp_new;
    info.accepted = true;
  }
  update_guided_direction(shape_.proposal, move, d.accept, direction_);
  extras[own] = spent();
  return info;
}

nlohmann::json PrivateMhKernel::save_state() const {
  nlohmann::json s = PrivateKernel::save_state();
  s["log_prior"] = state::of(log_prior_);
  s["transitions"] = transitions_;
  s["direction"] = state::of(direction_);
  return s;
}

void PrivateMhKernel::load_state(const nlohmann::json& s) {
  PrivateKernel::load_state(s);
  log_prior_ = state::to_double(s, "log_prior");
  transitions_ = state::to_count(s, "transitions");
  direction_ = state::to_vec(s, "direction", direction_.size());
}

}  // namespace dpmcmc
