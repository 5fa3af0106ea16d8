#include "samplers/dp_penalty_minibatch.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "samplers/accept_rule.hpp"
#include "samplers/dp_penalty.hpp"
#include "samplers/start_check.hpp"

namespace dpmcmc {

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

namespace {

MhShape minibatch_shape(PenaltyProposal proposal) {
  // Clip counts stay with the curator.
  return {proposal, {"clip_frac__", "noise_sd__"}, {"noise_sd__"}, 1};
}

}  // namespace

DpPenaltyMinibatchKernel::DpPenaltyMinibatchKernel(const Model& model, PrivateData& data,
                                                   DpPenaltyMinibatchConfig config)
    : PrivateMhKernel(model, data, {{ReleaseKind::llr_batch, 1}}, minibatch_shape(config.proposal)),
      config_(std::move(config)) {
  setup();
}

DpPenaltyMinibatchKernel::DpPenaltyMinibatchKernel(const Model& model,
                                                   std::unique_ptr<PrivateData> data,
                                                   DpPenaltyMinibatchConfig config)
    : PrivateMhKernel(model, std::move(data), {{ReleaseKind::llr_batch, 1}},
                      minibatch_shape(config.proposal)),
      config_(std::move(config)) {
  setup();
}

void DpPenaltyMinibatchKernel::setup() {
  const std::size_t n = data().rows();
  const std::string who = penalty_minibatch_sampler_name(config_.proposal);
  require_positive(config_.tau, "tau (noise variance τ·c²)", who);
  require_positive(config_.clip, "clip (bound L on each row's log-likelihood ratio per unit step)",
                   who);
  if (config_.batch == 0 || config_.batch > n) {
    throw ConfigError(fmt::format("{}: --batch (batch size b) is {}, expected 1 ≤ b ≤ n = {}", who,
                                  config_.batch, n));
  }
  set_scale(config_.scale, who + " proposal sd");
  multiplier_ = std::sqrt(config_.tau);
}

AcceptDecision DpPenaltyMinibatchKernel::noisy_test(const NoisyMove& move, Rng& rng,
                                                    std::span<double> columns) {
  // 2. The one release: batch drawn inside PrivateData from the noise stream.
  const ScalarRelease r = data().llr_batch_corrected(
      move.from, move.to, config_.clip * move.step_norm, multiplier_, config_.batch);
  columns[0] = static_cast<double>(r.clipped) / static_cast<double>(r.rows);
  columns[1] = r.noise_sd;
  // 3. Penalty test: the σ_b²/2 correction is inside the released value; −σ²/2 is added by
  // penalty_accept (symmetric proposals: no q term).
  return penalty_accept(r.value + move.log_prior_ratio, r.noise_sd, rng);
}

}  // namespace dpmcmc
