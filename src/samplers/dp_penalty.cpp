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

namespace {

MhShape penalty_shape(PenaltyProposal proposal) {
  // Clip counts stay with the curator.
  return {proposal, {"clip_frac__", "noise_sd__"}, {"noise_sd__"}, 1};
}

}  // namespace

DpPenaltyKernel::DpPenaltyKernel(const Model& model, DataOwner& data, DpPenaltyConfig config)
    : PrivateMhKernel(model, data, {{ReleaseKind::llr_sum, 1}}, penalty_shape(config.proposal)),
      config_(std::move(config)) {
  setup();
}

DpPenaltyKernel::DpPenaltyKernel(const Model& model, std::unique_ptr<DataOwner> data,
                                 DpPenaltyConfig config)
    : PrivateMhKernel(model, std::move(data), {{ReleaseKind::llr_sum, 1}},
                      penalty_shape(config.proposal)),
      config_(std::move(config)) {
  setup();
}

void DpPenaltyKernel::setup() {
  const std::size_t rows = owner().rows();
  const std::string who = penalty_sampler_name(config_.proposal);
  require_positive(config_.tau, "tau (noise multiplier τ)", who);
  require_positive(config_.clip, "clip (bound b on each row's log-likelihood ratio per unit step)",
                   who);
  require_positive(config_.alpha, "alpha (exponent α of n in the noise)", who);
  set_scale(config_.scale, who + " proposal sd");
  multiplier_ = config_.tau * std::pow(static_cast<double>(rows), config_.alpha);
  if (!std::isfinite(multiplier_)) {
    throw ConfigError(fmt::format("{}: noise multiplier tau·n^alpha = {}·{}^{} overflows", who,
                                  config_.tau, rows, config_.alpha));
  }
}

AcceptDecision DpPenaltyKernel::noisy_test(const NoisyMove& move, Rng& rng,
                                           std::span<double> columns) {
  // 2. The one release of the iteration.
  const ScalarRelease r =
      owner().llr_sum(move.from, move.to, config_.clip * move.step_norm, multiplier_);
  columns[0] = static_cast<double>(r.clipped) / static_cast<double>(r.rows);
  columns[1] = r.noise_sd;
  // 3. Penalty test on released value + public prior ratio (symmetric proposal: no q term).
  return penalty_accept(r.value + move.log_prior_ratio, r.noise_sd, rng);
}

}  // namespace dpmcmc
