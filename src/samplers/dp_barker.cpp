#include "samplers/dp_barker.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "privacy/barker_accounting.hpp"
#include "samplers/start_check.hpp"

namespace dpmcmc {

namespace {

// Clip counts stay with the curator. Barker's test is a threshold on the released value: it draws
// no uniform.
MhShape barker_shape() {
  return {PenaltyProposal::full, {"clip_frac__", "noise_sd__"}, {"noise_sd__"}, 0};
}

}  // namespace

DpBarkerKernel::DpBarkerKernel(const Model& model, PrivateData& data, DpBarkerConfig config)
    : PrivateMhKernel(model, data, {{ReleaseKind::barker_test, 1}}, barker_shape()),
      config_(std::move(config)) {
  setup();
}

DpBarkerKernel::DpBarkerKernel(const Model& model, std::unique_ptr<PrivateData> data,
                               DpBarkerConfig config)
    : PrivateMhKernel(model, std::move(data), {{ReleaseKind::barker_test, 1}}, barker_shape()),
      config_(std::move(config)) {
  setup();
}

void DpBarkerKernel::setup() {
  const std::size_t n = data().rows();
  validate_barker(config_.noise_variance, config_.batch, n);
  const double t = model().temperature();
  if (!(t > 0.0 && t <= 1.0)) {
    throw ConfigError(fmt::format(
        "dp-barker: the model's tempering T = n0/n is {} (n0 = {} for n = {}), expected n0 ≤ n", t,
        t * static_cast<double>(n), n));
  }
  set_scale(config_.scale, "dp-barker proposal sd");
  clip_ = std::sqrt(static_cast<double>(config_.batch)) / (static_cast<double>(n) * t);
  if (config_.correction && config_.correction->sigma2() != config_.noise_variance) {
    throw SoftwareError(fmt::format("dp-barker: V_corr was fitted for sigma^2 = {}, not {}",
                                    config_.correction->sigma2(), config_.noise_variance));
  }
  correction_ = config_.correction
                    ? config_.correction
                    : std::make_shared<const LogisticCorrection>(config_.noise_variance);
  const LogisticCorrection* c = correction_.get();
  draw_correction_ = [c](NoiseRng& rng) { return c->sample(rng); };
}

AcceptDecision DpBarkerKernel::noisy_test(const NoisyMove& move, Rng&, std::span<double> columns) {
  // 2. The one release (batch, Gaussian noise and V_corr from the noise stream).
  const ScalarRelease r = data().llr_batch_barker(move.from, move.to, config_.noise_variance,
                                                  config_.batch, draw_correction_);
  columns[0] = static_cast<double>(r.clipped) / static_cast<double>(r.rows);
  columns[1] = r.noise_sd;
  // 3. Barker's test with the public prior term (the proposal term is 0). accept_stat__ is the
  // indicator, an unbiased estimate of the acceptance probability (which depends on private λ).
  const bool accept = r.value + move.log_prior_ratio > 0.0;
  return {accept, accept ? 1.0 : 0.0};
}

}  // namespace dpmcmc
