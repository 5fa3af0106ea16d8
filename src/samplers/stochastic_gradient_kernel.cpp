#include "samplers/stochastic_gradient_kernel.hpp"

#include <fmt/format.h>

#include <limits>

#include "core/error.hpp"
#include "samplers/dp_sgld.hpp"

namespace dpmcmc {

StochasticGradientKernel::StochasticGradientKernel(const Model& model, PrivateData& data,
                                                   const std::string& who, Shape shape)
    : PrivateKernel(data, {{ReleaseKind::grad_batch, 1}}), model_(model), shape_(std::move(shape)) {
  setup(who);
}

StochasticGradientKernel::StochasticGradientKernel(const Model& model,
                                                   std::unique_ptr<PrivateData> data,
                                                   const std::string& who, Shape shape)
    : PrivateKernel(std::move(data), {{ReleaseKind::grad_batch, 1}}),
      model_(model),
      shape_(std::move(shape)) {
  setup(who);
}

void StochasticGradientKernel::setup(const std::string& who) {
  const std::size_t n = data().rows();
  check_sg_options(who, shape_.step_size, shape_.clip, shape_.batch, n);
  multiplier_ = shape_.multiplier(n, data().temperature());
  check_sg_multiplier(who, multiplier_);
  scale_ = static_cast<double>(n) / static_cast<double>(shape_.batch.size);
  theta_ = Vec::Zero(model_.dim());
  force_ = Vec::Zero(model_.dim());
  prior_grad_ = Vec::Zero(model_.dim());
}

std::vector<std::string> StochasticGradientKernel::extra_columns() const {
  std::vector<std::string> c = {"grad_clip_frac__", "noise_sd__", "batch_size__", "eps_spent__"};
  c.insert(c.end(), shape_.columns.begin(), shape_.columns.end());
  return c;
}

// Clip counts and the batch size stay with the curator.
std::vector<std::string> StochasticGradientKernel::publishable_columns() const {
  std::vector<std::string> c = {"noise_sd__", "eps_spent__"};
  c.insert(c.end(), shape_.columns.begin(), shape_.columns.end());
  return c;
}

void StochasticGradientKernel::init(const Vec& theta0) {
  start_log_prior(model_, theta0, model_.dim(), name());
  theta_ = theta0;
  on_init();
  initialised_ = true;
}

TransitionInfo StochasticGradientKernel::transition(Rng& rng, std::span<double> extras) {
  if (!initialised_) throw SoftwareError(name() + ": transition() before init()");
  const std::size_t own = shape_.columns.size();
  if (extras.size() < 4 + own) {
    throw SoftwareError(fmt::format("{}: fewer than {} extra columns given", name(), 4 + own));
  }
  // 1. The prior is public: a non-finite prior gradient stops the chain before any release.
  model_.grad_log_prior(theta_, prior_grad_);
  if (!prior_grad_.allFinite()) {
    throw ConfigError(fmt::format(
        "{}: the log-prior gradient is not finite at the current position; the chain has left "
        "the prior's support or diverged (reduce --step-size)",
        name()));
  }
  // 2. The one release.
  const VectorRelease r = data().grad_sum_batch(theta_, shape_.clip, multiplier_, shape_.batch);
  // 3. The stochastic force and the sampler's step.
  force_ = prior_grad_ + scale_ * r.value;
  if (!step(force_, rng, theta_, extras.subspan(4, own))) {
    throw ConfigError(fmt::format("{}: the chain diverged ({}; the release was recorded); {}",
                                  name(), divergence_what(), divergence_advice()));
  }
  TransitionInfo info;
  info.log_density = std::numeric_limits<double>::quiet_NaN();
  info.accept_stat = 1.0;
  info.accepted = true;
  extras[0] = r.rows > 0 ? static_cast<double>(r.clipped) / static_cast<double>(r.rows) : 0.0;
  extras[1] = r.noise_sd;
  extras[2] = static_cast<double>(r.rows);
  extras[3] = spent();
  return info;
}

}  // namespace dpmcmc
