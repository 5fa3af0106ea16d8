#include "samplers/dp_barker.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "privacy/barker_accounting.hpp"
#include "samplers/start_check.hpp"

namespace dpmcmc {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}  // namespace

DpBarkerKernel::DpBarkerKernel(const Model& model, PrivateData& data, DpBarkerConfig config)
    : PrivateKernel(data, {{ReleaseKind::barker_test, 1}}),
      model_(model),
      config_(std::move(config)) {
  setup();
}

DpBarkerKernel::DpBarkerKernel(const Model& model, std::unique_ptr<PrivateData> data,
                               DpBarkerConfig config)
    : PrivateKernel(std::move(data), {{ReleaseKind::barker_test, 1}}),
      model_(model),
      config_(std::move(config)) {
  setup();
}

void DpBarkerKernel::setup() {
  dim_ = model_.dim();
  const std::size_t n = data().rows();
  validate_barker(config_.noise_variance, config_.batch, n);
  const double t = model_.temperature();
  if (!(t > 0.0 && t <= 1.0)) {
    throw ConfigError(fmt::format(
        "dp-barker: the model's tempering T = n0/n is {} (n0 = {} for n = {}), expected n0 ≤ n", t,
        t * static_cast<double>(n), n));
  }
  scale_ = broadcast_positive(config_.scale, dim_, "dp-barker proposal sd");
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
  theta_ = Vec::Zero(dim_);
  proposal_ = Vec::Zero(dim_);
}

std::vector<std::string> DpBarkerKernel::extra_columns() const {
  return {"clip_frac__", "noise_sd__", "eps_spent__"};
}

// Clip counts stay with the curator.
std::vector<std::string> DpBarkerKernel::publishable_columns() const {
  return {"noise_sd__", "eps_spent__"};
}

void DpBarkerKernel::init(const Vec& theta0) {
  log_prior_ = start_log_prior(model_, theta0, dim_, name());
  theta_ = theta0;
  initialised_ = true;
}

TransitionInfo DpBarkerKernel::transition(Rng& rng, std::span<double> extras) {
  if (!initialised_) throw SoftwareError(name() + ": transition() before init()");
  if (extras.size() < 3) throw SoftwareError(name() + ": fewer than 3 extra columns given");

  // 1. Symmetric Gaussian proposal (algorithm stream).
  for (int j = 0; j < dim_; ++j) proposal_[j] = theta_[j] + scale_[j] * rng.normal();
  const double lp_new = proposal_.allFinite() ? model_.log_prior(proposal_)
                                              : -std::numeric_limits<double>::infinity();
  TransitionInfo info;
  info.log_density = kNaN;
  double clip_frac = 0.0, noise_sd = 0.0;
  bool accept = false;
  if (!std::isnan(lp_new) && lp_new != -std::numeric_limits<double>::infinity()) {
    // 2. The one release (batch, Gaussian noise and V_corr from the noise stream).
    const ScalarRelease r = data().llr_batch_barker(theta_, proposal_, config_.noise_variance,
                                                    config_.batch, draw_correction_);
    clip_frac = static_cast<double>(r.clipped) / static_cast<double>(r.rows);
    noise_sd = r.noise_sd;
    // 3. Barker's test with the public prior term (the proposal term is 0).
    accept = r.value + (lp_new - log_prior_) > 0.0;
  }
  // else: impossible under the public prior, rejected without a release.
  info.accept_stat = accept ? 1.0 : 0.0;
  if (accept) {
    theta_.swap(proposal_);
    log_prior_ = lp_new;
    info.accepted = true;
  }
  extras[0] = clip_frac;
  extras[1] = noise_sd;
  extras[2] = spent();
  return info;
}

}  // namespace dpmcmc
