// Step-size adaptation by dual averaging (Hoffman and Gelman 2014, "The No-U-Turn Sampler",
// Section 3.2.1, Algorithm 5; after Nesterov 2009), with Stan's constants. After each warmup
// transition t = 1, 2, … with acceptance statistic α_t:
//   H̄_t   = (1 − 1/(t + t0))·H̄_{t−1} + (δ − α_t)/(t + t0),
//   log ε_t = μ − (√t/γ)·H̄_t,
//   log ε̄_t = t^{−κ}·log ε_t + (1 − t^{−κ})·log ε̄_{t−1},
// with target δ, μ = log(10·ε_0) (see the constructor for random walks), γ = 0.05, t0 = 10, κ =
// 0.75. ε_t is used during warmup and ε̄ (the average, which the iterates converge to) after it. The
// statistic α_t may be any quantity whose expectation is the acceptance probability; for a private
// sampler it must be a function of released values only (docs/decisions.md, "Adaptation is
// post-processing").
#pragma once

#include <nlohmann/json.hpp>

namespace dpmcmc {

class DualAveraging {
 public:
  // ConfigError unless 0 < target < 1 and ε0 is finite and > 0. The iterates are shrunk towards
  // μ = log(shrink·ε0): Stan's 10 favours larger steps, which make HMC's trajectories cheaper;
  // a random walk costs the same at any step, and with 10 its short final warmup phase ends
  // with a step too large (measured: acceptance 0.26–0.29 for a 2-d target of 0.39; with 1,
  // within 0.03 of it), so random walks use 1, and so does DP HMC, whose iterations cost the
  // same budget at any step (AdaptationTarget::favour_long_steps).
  DualAveraging(double target, double initial_step, double shrink = 10.0);

  // Starts again from ε0 (μ = log(shrink·ε0), H̄ = 0, t = 0), as after a metric update.
  void restart(double initial_step);
  // Records α_t (clamped to [0, 1]; NaN counts as 0, a failed proposal) and returns ε_t.
  double update(double accept_stat);
  // ε_t, the step to use now.
  double step() const;
  // ε̄_t, the step to keep after warmup (ε0 before any update).
  double averaged_step() const;
  double target() const { return target_; }

  nlohmann::json save_state() const;
  // DataError for a malformed state.
  void load_state(const nlohmann::json& state);

  static constexpr double kGamma = 0.05, kT0 = 10.0, kKappa = 0.75;

 private:
  double target_, shrink_;
  double mu_ = 0.0, h_bar_ = 0.0, log_step_ = 0.0, log_step_bar_ = 0.0;
  double counter_ = 0.0;
};

}  // namespace dpmcmc
