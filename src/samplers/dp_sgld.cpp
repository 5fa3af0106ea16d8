#include "samplers/dp_sgld.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "core/error.hpp"

namespace dpmcmc {

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

namespace {

StochasticGradientKernel::Shape sgld_shape(const DpSgldConfig& c) {
  return {c.step_size,
          c.clip,
          c.batch,
          [c](std::size_t n, double temperature) {
            return sgld_noise_multiplier(c.step_size, c.batch, n, temperature, c.clip);
          },
          {}};
}

}  // namespace

DpSgldKernel::DpSgldKernel(const Model& model, PrivateData& data, DpSgldConfig config)
    : StochasticGradientKernel(model, data, "dp-sgld", sgld_shape(config)),
      config_(config),
      next_(Vec::Zero(model.dim())) {}

DpSgldKernel::DpSgldKernel(const Model& model, std::unique_ptr<PrivateData> data,
                           DpSgldConfig config)
    : StochasticGradientKernel(model, std::move(data), "dp-sgld", sgld_shape(config)),
      config_(config),
      next_(Vec::Zero(model.dim())) {}

bool DpSgldKernel::step(const Vec& force, Rng& /*rng*/, Vec& theta, std::span<double>) {
  next_ = theta + (0.5 * config_.step_size) * force;
  if (!next_.allFinite()) return false;
  theta.swap(next_);
  return true;
}

std::string DpSgldKernel::divergence_advice() const {
  return fmt::format(
      "reduce --step-size = {} (the Langevin step must satisfy eta * lambda < 4 for the largest "
      "posterior precision lambda)",
      config_.step_size);
}

}  // namespace dpmcmc
