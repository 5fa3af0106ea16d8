#include "samplers/dual_averaging.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/state_json.hpp"

namespace dpmcmc {

namespace {

void check_step(double step) {
  if (!std::isfinite(step) || step <= 0.0) {
    throw ConfigError(
        fmt::format("step-size adaptation: initial step {} must be finite and > 0", step));
  }
}

}  // namespace

DualAveraging::DualAveraging(double target, double initial_step, double shrink)
    : target_(target), shrink_(shrink) {
  if (!(target > 0.0 && target < 1.0)) {
    throw ConfigError(
        fmt::format("step-size adaptation: target acceptance {} must be in (0, 1)", target));
  }
  restart(initial_step);
}

void DualAveraging::restart(double initial_step) {
  check_step(initial_step);
  mu_ = std::log(shrink_ * initial_step);
  h_bar_ = 0.0;
  counter_ = 0.0;
  log_step_ = std::log(initial_step);
  log_step_bar_ = log_step_;
}

double DualAveraging::update(double accept_stat) {
  const double alpha = std::isnan(accept_stat) ? 0.0 : std::clamp(accept_stat, 0.0, 1.0);
  counter_ += 1.0;
  const double eta = 1.0 / (counter_ + kT0);
  h_bar_ = (1.0 - eta) * h_bar_ + eta * (target_ - alpha);
  // Clamped so that a long run of certain accepts (or rejects) cannot overflow ε (e^±300 is far
  // outside any useful step and still finite).
  log_step_ = std::clamp(mu_ - std::sqrt(counter_) / kGamma * h_bar_, -300.0, 300.0);
  const double weight = std::pow(counter_, -kKappa);
  log_step_bar_ = weight * log_step_ + (1.0 - weight) * log_step_bar_;
  return step();
}

double DualAveraging::step() const {
  return std::exp(log_step_);
}

double DualAveraging::averaged_step() const {
  return std::exp(log_step_bar_);
}

nlohmann::json DualAveraging::save_state() const {
  return {{"mu", state::of(mu_)},
          {"h_bar", state::of(h_bar_)},
          {"log_step", state::of(log_step_)},
          {"log_step_bar", state::of(log_step_bar_)},
          {"counter", state::of(counter_)}};
}

void DualAveraging::load_state(const nlohmann::json& s) {
  mu_ = state::to_double(s, "mu");
  h_bar_ = state::to_double(s, "h_bar");
  log_step_ = state::to_double(s, "log_step");
  log_step_bar_ = state::to_double(s, "log_step_bar");
  counter_ = state::to_double(s, "counter");
  if (!std::isfinite(mu_) || !std::isfinite(h_bar_) || !std::isfinite(log_step_) ||
      !std::isfinite(log_step_bar_) || !(counter_ >= 0.0)) {
    throw DataError("step-size adaptation state: values not finite");
  }
}

}  // namespace dpmcmc
