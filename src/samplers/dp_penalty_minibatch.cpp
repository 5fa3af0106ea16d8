#include "samplers/dp_penalty_minibatch.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "samplers/accept_rule.hpp"
#include "samplers/dp_penalty.hpp"
#include "samplers/start_check.hpp"

namespace dpmcmc {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

std::string penalty_minibatch_sampler_name(PenaltyProposal proposal) {
  switch (proposal) {
    case PenaltyProposal::full:
      return "dp-penalty-minibatch";
    case PenaltyProposal::one_component:
      return "dp-penalty-minibatch-ocu";
    case PenaltyProposal::guided_walk:
      return "dp-penalty-minibatch-gwmh";
  }
  return "dp-penalty-minibatch";
}

DpPenaltyMinibatchKernel::DpPenaltyMinibatchKernel(const Model& model, PrivateData& data,
                                                   DpPenaltyMinibatchConfig config)
    : PrivateKernel(data, {{ReleaseKind::llr_batch, 1}}),
      model_(model),
      config_(std::move(config)) {
  setup();
}

DpPenaltyMinibatchKernel::DpPenaltyMinibatchKernel(const Model& model,
                                                   std::unique_ptr<PrivateData> data,
                                                   DpPenaltyMinibatchConfig config)
    : PrivateKernel(std::move(data), {{ReleaseKind::llr_batch, 1}}),
      model_(model),
      config_(std::move(config)) {
  setup();
}

void DpPenaltyMinibatchKernel::setup() {
  dim_ = model_.dim();
  const std::size_t n = data().rows();
  const std::string who = penalty_minibatch_sampler_name(config_.proposal);
  require_positive(config_.tau, "tau (noise variance τ·c²)", who);
  require_positive(config_.clip, "clip (bound L on each row's log-likelihood ratio per unit step)",
                   who);
  if (config_.batch == 0 || config_.batch > n) {
    throw ConfigError(fmt::format("{}: --batch (batch size b) is {}, expected 1 ≤ b ≤ n = {}", who,
                                  config_.batch, n));
  }
  scale_ = broadcast_positive(config_.scale, dim_, who + " proposal sd");
  multiplier_ = std::sqrt(config_.tau);
  theta_ = Vec::Zero(dim_);
  proposal_ = Vec::Zero(dim_);
  direction_ = Vec::Ones(dim_);
}

std::vector<std::string> DpPenaltyMinibatchKernel::extra_columns() const {
  return {"clip_frac__", "noise_sd__", "eps_spent__"};
}

// Clip counts stay with the curator.
std::vector<std::string> DpPenaltyMinibatchKernel::publishable_columns() const {
  return {"noise_sd__", "eps_spent__"};
}

void DpPenaltyMinibatchKernel::init(const Vec& theta0) {
  log_prior_ = start_log_prior(model_, theta0, dim_, name());
  theta_ = theta0;
  direction_.setOnes();
  initialised_ = true;
}

TransitionInfo DpPenaltyMinibatchKernel::transition(Rng& rng, std::span<double> extras) {
  if (!initialised_) throw SoftwareError(name() + ": transition() before init()");
  if (extras.size() < 3) throw SoftwareError(name() + ": fewer than 3 extra columns given");

  // 1. Proposal (algorithm stream).
  const PenaltyMove move =
      propose_penalty_move(config_.proposal, theta_, scale_, direction_, rng, proposal_);

  TransitionInfo info;
  info.log_density = kNaN;
  double clip_frac = 0.0, noise_sd = 0.0;
  const double lp_new = proposal_.allFinite() ? model_.log_prior(proposal_)
                                              : -std::numeric_limits<double>::infinity();
  AcceptDecision d;
  if (std::isnan(lp_new) || lp_new == -std::numeric_limits<double>::infinity()) {
    d = {false, 0.0};   // impossible under the public prior: rejected without a release
    rng.uniform_pos();  // keep the stream position independent of the branch
  } else if (move.step_norm == 0.0) {
    d = {true, 1.0};  // θ′ = θ: nothing to test, nothing to release
    rng.uniform_pos();
  } else {
    // 2. The one release: batch drawn inside PrivateData from the noise stream.
    const ScalarRelease r = data().llr_batch_corrected(
        theta_, proposal_, config_.clip * move.step_norm, multiplier_, config_.batch);
    clip_frac = static_cast<double>(r.clipped) / static_cast<double>(r.rows);
    noise_sd = r.noise_sd;
    // 3. Penalty test: the σ_b²/2 correction is inside the released value; −σ²/2 is added by
    // penalty_accept (symmetric proposals: no q term).
    d = penalty_accept(r.value + lp_new - log_prior_, r.noise_sd, rng);
  }

  info.accept_stat = d.accept_stat;
  if (d.accept) {
    theta_.swap(proposal_);
    log_prior_ = lp_new;
    info.accepted = true;
  }
  update_guided_direction(config_.proposal, move, d.accept, direction_);
  extras[0] = clip_frac;
  extras[1] = noise_sd;
  extras[2] = spent();
  return info;
}

}  // namespace dpmcmc
