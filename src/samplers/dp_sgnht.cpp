#include "samplers/dp_sgnht.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "core/state_json.hpp"

namespace dpmcmc {

double sgnht_noise_multiplier(double step_size, double diffusion, const BatchSpec& batch,
                              std::size_t n, double temperature, double clip) {
  const double b = static_cast<double>(batch.size);
  const double sigma = b / static_cast<double>(n) * std::sqrt(2.0 * diffusion / step_size);
  return sigma / (sg_sensitivity_factor(batch.sampling) * temperature * clip);
}

namespace {

// A is checked when the base asks for the multiplier: after --step-size, --clip and --batch, and
// before the multiplier itself, as the setup (run/sgld_setup.cpp) checks them.
StochasticGradientKernel::Shape sgnht_shape(const DpSgnhtConfig& c) {
  return {
      c.step_size,
      c.clip,
      c.batch,
      [c](std::size_t n, double temperature) {
        if (!(c.diffusion > 0.0) || !std::isfinite(c.diffusion)) {
          throw ConfigError(fmt::format(
              "dp-sgnht: --thermostat (diffusion A) must be finite and > 0, got {}", c.diffusion));
        }
        return sgnht_noise_multiplier(c.step_size, c.diffusion, c.batch, n, temperature, c.clip);
      },
      {"xi__"}};
}

}  // namespace

DpSgnhtKernel::DpSgnhtKernel(const Model& model, PrivateData& data, DpSgnhtConfig config)
    : StochasticGradientKernel(model, data, "dp-sgnht", sgnht_shape(config)), config_(config) {
  on_init();
}

DpSgnhtKernel::DpSgnhtKernel(const Model& model, std::unique_ptr<PrivateData> data,
                             DpSgnhtConfig config)
    : StochasticGradientKernel(model, std::move(data), "dp-sgnht", sgnht_shape(config)),
      config_(config) {
  on_init();
}

void DpSgnhtKernel::on_init() {
  p_ = Vec::Zero(dim());
  theta_next_ = Vec::Zero(dim());
  p_next_ = Vec::Zero(dim());
  xi_ = config_.diffusion;  // Ding et al. 2014, Algorithm 1: ξ(0) = A
  momentum_drawn_ = false;
}

bool DpSgnhtKernel::step(const Vec& force, Rng& rng, Vec& theta, std::span<double> columns) {
  if (!momentum_drawn_) {
    for (int j = 0; j < dim(); ++j) p_[j] = rng.normal();  // p(0) ~ N(0, I)
    momentum_drawn_ = true;
  }
  const double h = config_.step_size;
  p_next_ = (1.0 - xi_ * h) * p_ + h * force;
  theta_next_ = theta + h * p_next_;
  const double xi_next = xi_ + h * (p_next_.squaredNorm() / static_cast<double>(dim()) - 1.0);
  if (!theta_next_.allFinite() || !p_next_.allFinite() || !std::isfinite(xi_next)) return false;
  theta.swap(theta_next_);
  p_.swap(p_next_);
  xi_ = xi_next;
  columns[0] = xi_;
  return true;
}

std::string DpSgnhtKernel::divergence_advice() const {
  return fmt::format("reduce --step-size = {} or --thermostat = {}", config_.step_size,
                     config_.diffusion);
}

nlohmann::json DpSgnhtKernel::save_state() const {
  nlohmann::json s = StochasticGradientKernel::save_state();
  s["momentum"] = state::of(p_);
  s["thermostat"] = state::of(xi_);
  s["momentum_drawn"] = momentum_drawn_;
  return s;
}

void DpSgnhtKernel::load_state(const nlohmann::json& s) {
  StochasticGradientKernel::load_state(s);
  p_ = state::to_vec(s, "momentum", dim());
  xi_ = state::to_double(s, "thermostat");
  momentum_drawn_ = state::to_flag(s, "momentum_drawn");
}

}  // namespace dpmcmc
