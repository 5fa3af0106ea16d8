// The gradient-release transition shared by DP-SGLD and DP-SGNHT (samplers/dp_sgld.hpp,
// samplers/dp_sgnht.hpp), written once:
//   1. the public prior gradient ∇log p(θ); not finite → ConfigError naming --step-size, with no
//      release (the chain left the prior's support or diverged);
//   2. one release ĝ = T·Σ_{i∈B} clip₂(∇log p(x_i|θ), C) + N(0, σ² I) on a secret batch
//      (PrivateData::grad_sum_batch, noise multiplier m);
//   3. the stochastic force f = ∇log p(θ) + (n/b)·ĝ, and the sampler's step from it; a step whose
//      next state is not finite → ConfigError naming --step-size (the release is recorded, θ
//      keeps its last finite value, and the runner stops the chain as failed).
// Draw columns: grad_clip_frac__ (curator-only), noise_sd__, batch_size__ (curator-only: a Poisson
// batch's size is secret), eps_spent__, then the sampler's own columns (functions of released
// values, published). lp__ is NaN (private), accept_stat__ is 1 (no accept step).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/rng.hpp"
#include "core/types.hpp"
#include "models/model.hpp"
#include "privacy/batch_sampling.hpp"
#include "privacy/private_data.hpp"
#include "samplers/private_kernel.hpp"

namespace dpmcmc {

class StochasticGradientKernel : public PrivateKernel {
 public:
  // The step and the batch of every iteration, checked (check_sg_options), and the noise
  // multiplier as a function of (n, T), checked (check_sg_multiplier); `columns` are the
  // sampler's own columns.
  struct Shape {
    double step_size;
    double clip;
    BatchSpec batch;
    std::function<double(std::size_t n, double temperature)> multiplier;
    std::vector<std::string> columns;
  };
  int dim() const override { return model_.dim(); }
  std::vector<std::string> extra_columns() const override;
  std::vector<std::string> publishable_columns() const override;
  // Checks θ0 (size, finite, finite log prior) and calls on_init().
  void init(const Vec& theta0) override;
  TransitionInfo transition(Rng& rng, std::span<double> extras) final;
  const Vec& position() const override { return theta_; }
  // m = σ/Δ of every release.
  double noise_multiplier() const { return multiplier_; }

 protected:
  StochasticGradientKernel(const Model& model, PrivateData& data, const std::string& who,
                           Shape shape);
  StochasticGradientKernel(const Model& model, std::unique_ptr<PrivateData> data,
                           const std::string& who, Shape shape);

  const Model& model() const { return model_; }
  double step_size() const { return shape_.step_size; }

  // The sampler's step: the next θ (and any state of its own) from θ and the force, drawing
  // public randomness from `rng` if it needs any; writes its own columns. Returns false, leaving
  // θ and its state unchanged, when the next state would not be finite.
  virtual bool step(const Vec& force, Rng& rng, Vec& theta, std::span<double> columns) = 0;
  // What is not finite when the chain diverges ("the next position is not finite"), and what to
  // change ("reduce --step-size = 0.1").
  virtual std::string divergence_what() const = 0;
  virtual std::string divergence_advice() const = 0;
  // Resets the sampler's own state at init().
  virtual void on_init() {}

 private:
  void setup(const std::string& who);

  const Model& model_;
  Shape shape_;
  double multiplier_ = 0.0;
  double scale_ = 0.0;  // n/b
  Vec theta_, force_, prior_grad_;
  bool initialised_ = false;
};

}  // namespace dpmcmc
