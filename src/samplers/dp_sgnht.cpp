#include "samplers/dp_sgnht.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "core/error.hpp"

namespace dpmcmc {

double sgnht_noise_multiplier(double step_size, double diffusion, const BatchSpec& batch,
                              std::size_t n, double temperature, double clip) {
  const double b = static_cast<double>(batch.size);
  const double sigma = b / static_cast<double>(n) * std::sqrt(2.0 * diffusion / step_size);
  return sigma / (sg_sensitivity_factor(batch.sampling) * temperature * clip);
}

DpSgnhtKernel::DpSgnhtKernel(const Model& model, PrivateData& data, DpSgnhtConfig config)
    : PrivateKernel(data, {{ReleaseKind::grad_batch, 1}}), model_(model), config_(config) {
  setup();
}

DpSgnhtKernel::DpSgnhtKernel(const Model& model, std::unique_ptr<PrivateData> data,
                             DpSgnhtConfig config)
    : PrivateKernel(std::move(data), {{ReleaseKind::grad_batch, 1}}),
      model_(model),
      config_(config) {
  setup();
}

void DpSgnhtKernel::setup() {
  dim_ = model_.dim();
  const std::size_t n = data().rows();
  check_sg_options(name(), config_.step_size, config_.clip, config_.batch, n);
  if (!(config_.diffusion > 0.0) || !std::isfinite(config_.diffusion)) {
    throw ConfigError(fmt::format("{}: --thermostat (diffusion A) must be finite and > 0, got {}",
                                  name(), config_.diffusion));
  }
  multiplier_ = sgnht_noise_multiplier(config_.step_size, config_.diffusion, config_.batch, n,
                                       data().temperature(), config_.clip);
  check_sg_multiplier(name(), multiplier_);
  scale_ = static_cast<double>(n) / static_cast<double>(config_.batch.size);
  theta_ = Vec::Zero(dim_);
  p_ = Vec::Zero(dim_);
  theta_next_ = Vec::Zero(dim_);
  p_next_ = Vec::Zero(dim_);
  prior_grad_ = Vec::Zero(dim_);
  xi_ = config_.diffusion;
}

std::vector<std::string> DpSgnhtKernel::extra_columns() const {
  return {"grad_clip_frac__", "noise_sd__", "batch_size__", "eps_spent__", "xi__"};
}

// Clip counts and the batch size stay with the curator.
std::vector<std::string> DpSgnhtKernel::publishable_columns() const {
  return {"noise_sd__", "eps_spent__", "xi__"};
}

void DpSgnhtKernel::init(const Vec& theta0) {
  start_log_prior(model_, theta0, dim_, name());
  theta_ = theta0;
  p_.setZero();
  xi_ = config_.diffusion;  // Ding et al. 2014, Algorithm 1: ξ(0) = A
  momentum_drawn_ = false;
  initialised_ = true;
}

TransitionInfo DpSgnhtKernel::transition(Rng& rng, std::span<double> extras) {
  if (!initialised_) throw SoftwareError(name() + ": transition() before init()");
  if (extras.size() < 5) throw SoftwareError(name() + ": fewer than 5 extra columns given");
  if (!momentum_drawn_) {
    for (int j = 0; j < dim_; ++j) p_[j] = rng.normal();  // p(0) ~ N(0, I)
    momentum_drawn_ = true;
  }

  model_.grad_log_prior(theta_, prior_grad_);
  if (!prior_grad_.allFinite()) {
    throw ConfigError(fmt::format(
        "{}: the log-prior gradient is not finite at the current position; the chain has left "
        "the prior's support or diverged (reduce --step-size)",
        name()));
  }
  const VectorRelease r = data().grad_sum_batch(theta_, config_.clip, multiplier_, config_.batch);
  const double h = config_.step_size;
  p_next_ = (1.0 - xi_ * h) * p_ + h * (prior_grad_ + scale_ * r.value);
  theta_next_ = theta_ + h * p_next_;
  const double xi_next = xi_ + h * (p_next_.squaredNorm() / static_cast<double>(dim_) - 1.0);
  if (!theta_next_.allFinite() || !p_next_.allFinite() || !std::isfinite(xi_next)) {
    throw ConfigError(fmt::format(
        "{}: the chain diverged (the next position, momentum or thermostat is not finite; the "
        "release was recorded); reduce --step-size = {} or --thermostat = {}",
        name(), h, config_.diffusion));
  }
  theta_.swap(theta_next_);
  p_.swap(p_next_);
  xi_ = xi_next;

  TransitionInfo info;
  info.log_density = std::numeric_limits<double>::quiet_NaN();
  info.accept_stat = 1.0;
  info.accepted = true;
  extras[0] = r.rows > 0 ? static_cast<double>(r.clipped) / static_cast<double>(r.rows) : 0.0;
  extras[1] = r.noise_sd;
  extras[2] = static_cast<double>(r.rows);
  extras[3] = spent();
  extras[4] = xi_;
  return info;
}

}  // namespace dpmcmc
