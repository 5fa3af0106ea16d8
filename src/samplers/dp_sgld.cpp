#include "samplers/dp_sgld.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "core/error.hpp"

namespace dpmcmc {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

double sg_sensitivity_factor(BatchSampling sampling) {
  return sampling == BatchSampling::poisson ? 1.0 : 2.0;
}

double sgld_noise_multiplier(double step_size, const BatchSpec& batch, std::size_t n,
                             double temperature, double clip) {
  const double b = static_cast<double>(batch.size);
  const double sigma = 2.0 * b / (static_cast<double>(n) * std::sqrt(step_size));
  return sigma / (sg_sensitivity_factor(batch.sampling) * temperature * clip);
}

void check_sg_options(const std::string& who, double step_size, double clip, const BatchSpec& batch,
                      std::size_t n) {
  if (!(step_size > 0.0) || !std::isfinite(step_size)) {
    throw ConfigError(
        fmt::format("{}: --step-size must be finite and > 0, got {}", who, step_size));
  }
  if (!(clip > 0.0) || !std::isfinite(clip)) {
    throw ConfigError(fmt::format(
        "{}: --clip (per-row gradient L2 bound) must be finite and > 0, got {}", who, clip));
  }
  if (batch.size < 1 || batch.size > n) {
    throw ConfigError(fmt::format("{}: --batch {} is invalid for n = {} rows, expected 1 <= b <= n",
                                  who, batch.size, n));
  }
}

void check_sg_multiplier(const std::string& who, double multiplier) {
  if (!(multiplier > 0.0) || !std::isfinite(multiplier)) {
    throw ConfigError(fmt::format(
        "{}: the noise multiplier m = {} derived from --step-size, --batch, --clip and the "
        "tempering is not a finite positive number; choose a less extreme --step-size",
        who, multiplier));
  }
}

std::vector<PrivacyEvent> sg_iteration_template(const BatchSpec& batch, std::size_t n,
                                                double noise_multiplier) {
  constexpr const char* who = "stochastic-gradient template";
  if (n == 0 || batch.size < 1 || batch.size > n) {
    throw ConfigError(fmt::format("{}: --batch {} is invalid for n = {} rows, expected 1 <= b <= n",
                                  who, batch.size, n));
  }
  check_sg_multiplier(who, noise_multiplier);
  const bool poisson = batch.sampling == BatchSampling::poisson;
  PrivacyEvent e;
  e.mechanism = Mechanism::subsampled_gaussian;
  e.sensitivity = 1.0;
  e.noise_sd = noise_multiplier;
  e.sampling = poisson ? Sampling::poisson : Sampling::without_replacement;
  e.sampling_rate = batch_rate(batch, n);
  e.relation = poisson ? Neighbouring::add_remove : Neighbouring::substitute;
  e.count = 1;
  e.kind = ReleaseKind::grad_batch;
  return {e};
}

DpSgldKernel::DpSgldKernel(const Model& model, PrivateData& data, DpSgldConfig config)
    : PrivateKernel(data, {{ReleaseKind::grad_batch, 1}}), model_(model), config_(config) {
  setup();
}

DpSgldKernel::DpSgldKernel(const Model& model, std::unique_ptr<PrivateData> data,
                           DpSgldConfig config)
    : PrivateKernel(std::move(data), {{ReleaseKind::grad_batch, 1}}),
      model_(model),
      config_(config) {
  setup();
}

void DpSgldKernel::setup() {
  dim_ = model_.dim();
  const std::size_t n = data().rows();
  check_sg_options(name(), config_.step_size, config_.clip, config_.batch, n);
  multiplier_ = sgld_noise_multiplier(config_.step_size, config_.batch, n, data().temperature(),
                                      config_.clip);
  check_sg_multiplier(name(), multiplier_);
  scale_ = static_cast<double>(n) / static_cast<double>(config_.batch.size);
  theta_ = Vec::Zero(dim_);
  next_ = Vec::Zero(dim_);
  prior_grad_ = Vec::Zero(dim_);
}

std::vector<std::string> DpSgldKernel::extra_columns() const {
  return {"grad_clip_frac__", "noise_sd__", "batch_size__", "eps_spent__"};
}

// Clip counts and the batch size stay with the curator.
std::vector<std::string> DpSgldKernel::publishable_columns() const {
  return {"noise_sd__", "eps_spent__"};
}

void DpSgldKernel::init(const Vec& theta0) {
  start_log_prior(model_, theta0, dim_, name());
  theta_ = theta0;
  initialised_ = true;
}

TransitionInfo DpSgldKernel::transition(Rng& /*rng*/, std::span<double> extras) {
  if (!initialised_) throw SoftwareError(name() + ": transition() before init()");
  if (extras.size() < 4) throw SoftwareError(name() + ": fewer than 4 extra columns given");

  // The prior is public: a non-finite prior gradient stops the chain before any release.
  model_.grad_log_prior(theta_, prior_grad_);
  if (!prior_grad_.allFinite()) {
    throw ConfigError(fmt::format(
        "{}: the log-prior gradient is not finite at the current position; the chain has left "
        "the prior's support or diverged (reduce --step-size)",
        name()));
  }
  const VectorRelease r = data().grad_sum_batch(theta_, config_.clip, multiplier_, config_.batch);
  const double half = 0.5 * config_.step_size;
  next_ = theta_ + half * (prior_grad_ + scale_ * r.value);
  if (!next_.allFinite()) {
    throw ConfigError(fmt::format(
        "{}: the chain diverged (the next position is not finite; the release was recorded); "
        "reduce --step-size = {} (the Langevin step must satisfy eta * lambda < 4 for the "
        "largest posterior precision lambda)",
        name(), config_.step_size));
  }
  theta_.swap(next_);

  TransitionInfo info;
  info.log_density = kNaN;
  info.accept_stat = 1.0;
  info.accepted = true;
  extras[0] = r.rows > 0 ? static_cast<double>(r.clipped) / static_cast<double>(r.rows) : 0.0;
  extras[1] = r.noise_sd;
  extras[2] = static_cast<double>(r.rows);
  extras[3] = spent();
  return info;
}

}  // namespace dpmcmc
