#include "samplers/hmc.hpp"

#include <fmt/format.h>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "core/state_json.hpp"
#include "models/posterior.hpp"
#include "samplers/clipped_llr.hpp"
#include "samplers/leapfrog.hpp"
#include "samplers/start_check.hpp"

namespace dpmcmc {

double jittered_step_size(double step, StepJitter jitter, std::optional<RandomizedHalton>& halton,
                          std::uint64_t iteration, Rng& rng) {
  if (jitter != StepJitter::halton) return step;
  if (!halton) halton.emplace(1, rng);
  double h = halton->value(iteration, 0);
  // h = 0 needs all 53 permuted digits to be 0 (probability 2^-53); keep η_i > 0 regardless.
  if (h <= 0.0) h = 0x1.0p-53;
  return step * h;
}

HmcKernel::HmcKernel(int dim, GradientFn gradient, HmcConfig config, AcceptRule rule,
                     DensityKnown density)
    : dim_(dim),
      gradient_(std::move(gradient)),
      config_(std::move(config)),
      rule_(std::move(rule)),
      density_known_(density == DensityKnown::yes) {
  if (dim_ < 1) throw ConfigError(fmt::format("hmc: dimension must be at least 1, got {}", dim_));
  if (!gradient_) throw SoftwareError("hmc: no gradient given");
  if (!rule_) throw SoftwareError("hmc: no accept rule given");
  if (!std::isfinite(config_.step_size) || config_.step_size <= 0.0) {
    throw ConfigError(
        fmt::format("hmc step size: got {}, expected a finite number > 0", config_.step_size));
  }
  if (config_.steps < 1) {
    throw ConfigError(
        fmt::format("hmc leapfrog steps: got {}, expected an integer >= 1", config_.steps));
  }
  if (!(config_.divergence_threshold > 0.0)) {
    throw ConfigError(fmt::format("hmc divergence threshold: got {}, expected a number > 0",
                                  config_.divergence_threshold));
  }
  config_.mass = broadcast_positive(config_.mass, dim_, "hmc mass matrix diagonal");
  metric_ = Metric::from_mass(config_.mass);
  theta_ = grad_ = p_ = theta_new_ = p_new_ = grad_new_ = Vec::Zero(dim_);
}

void HmcKernel::set_tuning(const Tuning& tuning) {
  metric_ = Metric::from_tuning(tuning, dim_, "hmc");
  config_.step_size = tuning.step;
  config_.mass = metric_.diagonal().cwiseInverse();
}

double gradient_at_start(const GradientFn& gradient, const Vec& theta0, int dim,
                         const std::string& kernel, DensityKnown density, Vec& grad) {
  check_start(theta0, dim, kernel);
  grad = Vec::Zero(dim);
  const double lp = gradient(theta0, grad);
  check_start_density(lp, theta0, kernel, density == DensityKnown::yes);
  if (!grad.allFinite()) {
    throw ConfigError(kernel +
                      ": the gradient of the log posterior at the starting point is not finite");
  }
  return lp;
}

void HmcKernel::init(const Vec& theta0) {
  Vec grad;
  const double lp = gradient_at_start(gradient_, theta0, dim_, "hmc",
                                      density_known_ ? DensityKnown::yes : DensityKnown::no, grad);
  theta_ = theta0;
  grad_ = grad;
  lp_ = lp;
  halton_.reset();
  iteration_ = 0;
  initialised_ = true;
}

TransitionInfo HmcKernel::transition(Rng& rng, std::span<double> extras) {
  if (!initialised_) throw SoftwareError("hmc: transition() before init()");
  if (extras.size() != 4) {
    throw SoftwareError(fmt::format("hmc: {} extra columns passed, 4 expected", extras.size()));
  }
  // Step size of this iteration ([RaisaKoskelaHonkela2021] Section 3): η_i = h_i·η.
  const double step =
      jittered_step_size(config_.step_size, config_.jitter, halton_, iteration_, rng);
  ++iteration_;

  metric_.draw_momentum(p_, rng);
  const double kinetic0 = metric_.kinetic(p_);
  theta_new_ = theta_;
  p_new_ = p_;
  grad_new_ = grad_;
  const LeapfrogResult lf =
      metric_.leapfrog(theta_new_, p_new_, grad_new_, step, config_.steps, gradient_);
  const double kinetic1 = metric_.kinetic(p_new_);
  const double lp_new = density_known_ ? lf.log_density : std::numeric_limits<double>::quiet_NaN();

  const double h0 = -lp_ + kinetic0;
  const double h1 = -lp_new + kinetic1;
  bool divergent = !lf.finite || !std::isfinite(kinetic1);
  if (density_known_)
    divergent = divergent || !std::isfinite(h1) || h1 - h0 > config_.divergence_threshold;

  TransitionInfo info;
  bool moved = false;
  if (lf.finite && std::isfinite(kinetic1)) {
    // log α = [log π(θ′) − K(p′)] − [log π(θ) − K(p)] = −H(θ′, p′) + H(θ, p).
    const AcceptDecision d =
        rule_(MoveProposal{theta_, theta_new_, lp_, lp_new, kinetic0 - kinetic1}, rng);
    info.accept_stat = d.accept_stat;
    moved = d.accept;
  }
  if (moved) {
    theta_.swap(theta_new_);
    grad_.swap(grad_new_);
    lp_ = lp_new;
  }
  info.accepted = moved;
  info.log_density = lp_;
  extras[0] = step;
  extras[1] = lf.steps;
  extras[2] = divergent ? 1.0 : 0.0;
  extras[3] = moved ? h1 : h0;
  return info;
}

std::unique_ptr<Kernel> make_hmc(const Model& model, const Dataset& data, HmcConfig config,
                                 AcceptRule rule) {
  auto posterior = std::make_shared<Posterior>(model, data);
  GradientFn gradient = [posterior](const Vec& theta, Vec& grad) {
    return posterior->log_density_gradient(theta, grad);
  };
  if (!config.clip) {
    return std::make_unique<HmcKernel>(model.dim(), std::move(gradient), std::move(config),
                                       std::move(rule));
  }
  check_clip_bound(*config.clip, "hmc");
  auto tally = std::make_shared<ClipTally>();
  AcceptRule clipped = clipped_llr_rule(model, data, *config.clip, std::move(rule), tally);
  return std::make_unique<ClipColumnKernel>(
      std::make_unique<HmcKernel>(model.dim(), std::move(gradient), std::move(config),
                                  std::move(clipped)),
      tally, "llr_clip_frac__");
}

nlohmann::json HmcKernel::save_state() const {
  return {{"lp", state::of(lp_)},
          {"grad", state::of(grad_)},
          {"iteration", iteration_},
          {"halton", halton_state(halton_)}};
}

void HmcKernel::load_state(const nlohmann::json& s) {
  lp_ = state::to_double(s, "lp");
  grad_ = state::to_vec(s, "grad", dim_);
  iteration_ = state::to_count(s, "iteration");
  restore_halton(halton_, state::at(s, "halton"));
}

}  // namespace dpmcmc
