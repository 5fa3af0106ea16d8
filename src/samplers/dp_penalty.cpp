#include "samplers/dp_penalty.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "core/numeric.hpp"
#include "samplers/start_check.hpp"

namespace dpmcmc {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

std::string penalty_sampler_name(PenaltyProposal proposal) {
  switch (proposal) {
    case PenaltyProposal::full:
      return "dp-penalty";
    case PenaltyProposal::one_component:
      return "dp-penalty-ocu";
    case PenaltyProposal::guided_walk:
      return "dp-penalty-gwmh";
  }
  return "dp-penalty";
}

AcceptDecision penalty_accept(double noisy_log_ratio, double noise_sd, Rng& rng) {
  double log_alpha = noisy_log_ratio - 0.5 * noise_sd * noise_sd;
  if (std::isnan(log_alpha)) log_alpha = -std::numeric_limits<double>::infinity();
  const double log_u = std::log(rng.uniform_pos());
  return {log_u < log_alpha, log_alpha >= 0.0 ? 1.0 : std::exp(log_alpha)};
}

double penalty_expected_acceptance(double r, double sigma) {
  if (std::isnan(r) || std::isnan(sigma) || sigma < 0.0) return kNaN;
  if (sigma == 0.0) return r >= 0.0 ? 1.0 : std::exp(r);
  // Φ(r/σ − σ/2) + e^r Φ(−r/σ − σ/2); the second term in log space so that a large r times a
  // tiny Φ neither overflows nor underflows early.
  const double a = r / sigma;
  const double h = 0.5 * sigma;
  return std::exp(log_normal_cdf(a - h)) + std::exp(r + log_normal_cdf(-a - h));
}

DpPenaltyKernel::DpPenaltyKernel(const Model& model, DataOwner& data, DpPenaltyConfig config)
    : PrivateKernel(data, {{ReleaseKind::llr_sum, 1}}), model_(model), config_(std::move(config)) {
  setup();
}

DpPenaltyKernel::DpPenaltyKernel(const Model& model, std::unique_ptr<DataOwner> data,
                                 DpPenaltyConfig config)
    : PrivateKernel(std::move(data), {{ReleaseKind::llr_sum, 1}}),
      model_(model),
      config_(std::move(config)) {
  setup();
}

void DpPenaltyKernel::setup() {
  dim_ = model_.dim();
  const std::size_t rows = owner().rows();
  const std::string who = penalty_sampler_name(config_.proposal);
  require_positive(config_.tau, "tau (noise multiplier τ)", who);
  require_positive(config_.clip, "clip (bound b on each row's log-likelihood ratio per unit step)",
                   who);
  require_positive(config_.alpha, "alpha (exponent α of n in the noise)", who);
  scale_ = broadcast_positive(config_.scale, dim_, who + " proposal sd");
  multiplier_ = config_.tau * std::pow(static_cast<double>(rows), config_.alpha);
  if (!std::isfinite(multiplier_)) {
    throw ConfigError(fmt::format("{}: noise multiplier tau·n^alpha = {}·{}^{} overflows", who,
                                  config_.tau, rows, config_.alpha));
  }
  theta_ = Vec::Zero(dim_);
  proposal_ = Vec::Zero(dim_);
  direction_ = Vec::Ones(dim_);
}

std::vector<std::string> DpPenaltyKernel::extra_columns() const {
  return {"clip_frac__", "noise_sd__", "eps_spent__"};
}

// Clip counts stay with the curator.
std::vector<std::string> DpPenaltyKernel::publishable_columns() const {
  return {"noise_sd__", "eps_spent__"};
}

void DpPenaltyKernel::init(const Vec& theta0) {
  log_prior_ = start_log_prior(model_, theta0, dim_, name());
  theta_ = theta0;
  direction_.setOnes();
  initialised_ = true;
}

TransitionInfo DpPenaltyKernel::transition(Rng& rng, std::span<double> extras) {
  if (!initialised_) throw SoftwareError(name() + ": transition() before init()");
  if (extras.size() < 3) throw SoftwareError(name() + ": fewer than 3 extra columns given");

  // 1. Proposal (algorithm stream: component index, then one normal per moved component).
  const PenaltyMove move =
      propose_penalty_move(config_.proposal, theta_, scale_, direction_, rng, proposal_);
  const double step_norm = move.step_norm;

  TransitionInfo info;
  info.log_density = kNaN;
  double clip_frac = 0.0, noise_sd = 0.0;
  const double lp_new = proposal_.allFinite() ? model_.log_prior(proposal_)
                                              : -std::numeric_limits<double>::infinity();
  AcceptDecision d;
  if (std::isnan(lp_new) || lp_new == -std::numeric_limits<double>::infinity()) {
    d = {false, 0.0};   // impossible under the public prior: rejected without a release
    rng.uniform_pos();  // keep the stream position independent of the branch
  } else if (step_norm == 0.0) {
    d = {true, 1.0};  // θ′ = θ: nothing to test, nothing to release
    rng.uniform_pos();
  } else {
    // 2. The one release of the iteration.
    const ScalarRelease r =
        owner().llr_sum(theta_, proposal_, config_.clip * step_norm, multiplier_);
    clip_frac = static_cast<double>(r.clipped) / static_cast<double>(r.rows);
    noise_sd = r.noise_sd;
    // 3. Penalty test on released value + public prior ratio (symmetric proposal: no q term).
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
