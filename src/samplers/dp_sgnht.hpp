// DP stochastic-gradient Nosé–Hoover thermostat (DP-SGNHT; Ding et al. 2014, "Bayesian
// sampling using stochastic gradient thermostats", Algorithm 1, cited as [6] in
// [RaisaKoskelaHonkela2021] Section 4.1; privatised as in Wang et al. 2015 [28]).
//
// DISCRETISATION (Ding et al. 2014, Algorithm 1, with step h, diffusion A, dimension d and the
// stochastic force −∇Ũ(θ) = ∇log p(θ) + (n/b)·ĝ):
//   p ← p − ξ·p·h + h·(∇log p(θ) + (n/b)·ĝ)       [the √(2A h)·N(0, I) term is inside ĝ]
//   θ ← θ + h·p                                     (with the new p)
//   ξ ← ξ + h·(pᵀp/d − 1)                           (with the new p)
// initialised with ξ = A and p ~ N(0, I) (algorithm stream, drawn at the first transition after
// init(): public randomness, no data). The released sum ĝ = T·Σ_{i∈B} clip₂(∇log p(x_i|θ), C) +
// N(0, σ² I) carries the only injected noise, with σ chosen so that h(n/b)·N(0, σ²) has sd
// √(2A h):
//   σ = (b/n)·√(2A/h),   m = σ/Δ,   Δ = T·C (Poisson) or 2·T·C (WOR).
// The thermostat absorbs the unknown minibatch-gradient noise (Ding et al., Section 3): ξ adapts
// until the mean kinetic energy per dimension is ½, so the injected noise need not model it.
// Larger A means more noise per unit sensitivity (m ∝ √A): more privacy per step, more
// iterations from the same budget.
//
// Batches, privacy events, divergence handling and the draw columns are those of DP-SGLD
// (samplers/dp_sgld.hpp), plus xi__ (the thermostat after the step).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "samplers/dp_sgld.hpp"

namespace dpmcmc {

// m = (b/n)·√(2A/h) / Δ, Δ = sg_sensitivity_factor·T·C. No validation.
double sgnht_noise_multiplier(double step_size, double diffusion, const BatchSpec& batch,
                              std::size_t n, double temperature, double clip);

struct DpSgnhtConfig {
  double step_size = 1e-4;  // h > 0 (θ units)
  double clip = 1.0;        // C > 0
  double diffusion = 1.0;   // A > 0 (--thermostat); also the thermostat's initial value
  BatchSpec batch{BatchSampling::poisson, 1};
};

class DpSgnhtKernel final : public StochasticGradientKernel {
 public:
  // ConfigError naming the option for a bad h, C, b, A (--thermostat) or multiplier.
  DpSgnhtKernel(const Model& model, PrivateData& data, DpSgnhtConfig config);
  DpSgnhtKernel(const Model& model, std::unique_ptr<PrivateData> data, DpSgnhtConfig config);

  std::string name() const override { return "dp-sgnht"; }
  // Columns: those of DP-SGLD, then xi__.
  const Vec& momentum() const { return p_; }
  double thermostat() const { return xi_; }
  const DpSgnhtConfig& config() const { return config_; }
  // The momentum, the thermostat and whether p(0) was drawn, with the owner's state.
  nlohmann::json save_state() const override;
  void load_state(const nlohmann::json& state) override;

 private:
  // The discretisation above; draws p(0) ~ N(0, I) at the first step after init().
  bool step(const Vec& force, Rng& rng, Vec& theta, std::span<double> columns) override;
  std::string divergence_what() const override {
    return "the next position, momentum or thermostat is not finite";
  }
  std::string divergence_advice() const override;
  // Resets ξ = A; the momentum is drawn at the next transition.
  void on_init() override;

  DpSgnhtConfig config_;
  Vec p_, theta_next_, p_next_;
  double xi_ = 0.0;
  bool momentum_drawn_ = false;
};

}  // namespace dpmcmc
