// DP stochastic-gradient Langevin dynamics (DP-SGLD; Wang, Fienberg and Smola 2015, "Privacy
// for free", cited as [28] in [RaisaKoskelaHonkela2021] Section 4.1; Li et al. 2019 [19]), the
// baseline of the DP HMC paper's comparison, with a constant step size.
//
// UPDATE (Welling and Teh's SGLD with a privatised minibatch gradient). With step η, batch
// size b (expected size for Poisson batches), n rows, clip bound C and tempering T:
//   θ ← θ + (η/2)·(∇log p(θ) + (n/b)·ĝ),
//   ĝ = T·Σ_{i∈B} clip₂(∇log p(x_i|θ), C) + N(0, σ² I)     (PrivateData::grad_sum_batch).
// There is no other noise: the release's Gaussian noise IS the Langevin noise. The kernel picks
// the release's noise multiplier m so that the noise reaching θ, (η/2)(n/b)·N(0, σ²), is the
// N(0, η I) of the Langevin step:
//   (η/2)(n/b)·σ = √η   ⇔   σ = 2b/(n√η)   (in units of the released sum),
//   m = σ/Δ = 2b / (n·√η·Δ),   Δ = T·C (Poisson, add/remove) or 2·T·C (WOR, substitute).
// Consequences (docs/algorithms.md, "DP-SGLD and DP-SGNHT: the noise is the privacy"):
//   * m ∝ b/(n√η·T·C): a larger step, smaller batch, larger clip bound or larger T means less
//     noise per unit of sensitivity. The privacy of one step is fixed by (q = b/n, m); the
//     budget then fixes the number of steps, not the noise (the planner chooses k).
//   * m tiny (large η): every step is nearly non-private; the planner allows few iterations or
//     none (it refuses a budget too small for one iteration with a ConfigError).
//   * m huge (tiny η, tiny T·C): the release is almost pure noise. That is still the correct
//     Langevin step — drift O(η), noise O(√η) — it only mixes slowly; the planner then allows
//     very many iterations (capped). Only a multiplier that is not finite or underflows to 0 is
//     refused (ConfigError naming --step-size).
//   * (n/b)·ĝ is an unbiased estimate of the clipped full-data sum for both batch schemes
//     (Poisson: E|B| = qn = b). Minibatch variance adds to the injected noise (SGLD's known
//     bias, which vanishes only as η → 0); clipping changes the target when it is active.
//   * For a Gaussian target of precision λ with exact (full-batch, unclipped) gradients the
//     chain is Euler–Maruyama, whose stationary variance is 1/(λ(1 − ηλ/4)) (tested), stable
//     for ηλ < 4 along every eigen-direction of the posterior precision.
//
// BATCHES. Poisson (q = b/n, add/remove neighbours, Δ = T·C) by default; fixed-size without
// replacement (substitute neighbours, Δ = 2T·C) as an option. The batch is drawn inside
// PrivateData from the noise stream and never seen here; each step records one subsampled
// Gaussian event with the batch's own sampling and relation (never a WOR batch as Poisson).
//
// DIVERGENCE. With no accept step a too-large η makes the chain diverge. The kernel never moves
// to a non-finite position: when the prior gradient at θ is not finite (no release is made) or
// the updated θ would not be finite (the step's release is already recorded), transition()
// throws ConfigError naming --step-size; θ keeps its last finite value and the runner stops the
// chain as failed with the draws written so far. Note that clipping bounds the data term, so
// with a proper prior the step stays bounded unless the prior term itself is unstable.
//
// Draw columns: grad_clip_frac__ (clipped share of the batch's rows, 0 for an empty batch),
// noise_sd__ (σ of the release, in units of the sum, T included), batch_size__ (rows drawn),
// eps_spent__ (spend callback). lp__ is NaN (private), accept_stat__ is 1 (no accept step).
// The transition (prior gradient, release, force, divergence) is shared with DP-SGNHT:
// samplers/stochastic_gradient_kernel.hpp.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "core/rng.hpp"
#include "core/types.hpp"
#include "models/model.hpp"
#include "privacy/batch_sampling.hpp"
#include "privacy/privacy_event.hpp"
#include "privacy/private_data.hpp"
#include "samplers/stochastic_gradient_kernel.hpp"

namespace dpmcmc {

// The release label of both stochastic-gradient kernels (one per iteration).

// Sensitivity of the released sum per unit of T·C: 1 for Poisson (add/remove), 2 for WOR
// (substitute).
double sg_sensitivity_factor(BatchSampling sampling);

// m = 2b/(n√η·Δ), Δ = sg_sensitivity_factor·T·C: the multiplier whose release noise, scaled by
// (η/2)(n/b), has variance η. No validation (see check_sg_options).
double sgld_noise_multiplier(double step_size, const BatchSpec& batch, std::size_t n,
                             double temperature, double clip);

// The planner's template of one iteration of DP-SGLD or DP-SGNHT: one subsampled Gaussian event
// with unit sensitivity, noise m, q = b/n, the batch's sampling and its relation (Poisson ↔
// add/remove, WOR ↔ substitute), label "grad_batch". ConfigError naming --batch unless
// 1 ≤ b ≤ n, naming --step-size unless m is finite and > 0.
std::vector<PrivacyEvent> sg_iteration_template(const BatchSpec& batch, std::size_t n,
                                                double noise_multiplier);

// Checks shared by both kernels, ConfigError naming the option: η finite > 0 (--step-size),
// C finite > 0 (--clip), 1 ≤ b ≤ n (--batch). `who` is the sampler name.
void check_sg_options(const std::string& who, double step_size, double clip, const BatchSpec& batch,
                      std::size_t n);

// ConfigError naming --step-size unless m is finite and > 0 (an overflowing or underflowing
// multiplier from extreme η, b/n or T·C).
void check_sg_multiplier(const std::string& who, double multiplier);

struct DpSgldConfig {
  double step_size = 1e-4;  // η > 0: the Langevin step in θ units (not the per-row step)
  double clip = 1.0;        // C > 0: per-row gradient L2 bound
  BatchSpec batch{BatchSampling::poisson, 1};
};

class DpSgldKernel final : public StochasticGradientKernel {
 public:
  // ConfigError naming the option for a bad η, C, b or multiplier. `model` (dim, prior) must
  // outlive the kernel, and so must `data` in the borrowing form.
  DpSgldKernel(const Model& model, PrivateData& data, DpSgldConfig config);
  DpSgldKernel(const Model& model, std::unique_ptr<PrivateData> data, DpSgldConfig config);

  std::string name() const override { return "dp-sgld"; }
  const DpSgldConfig& config() const { return config_; }

 private:
  // θ ← θ + (η/2)·f. Uses no algorithm randomness: batch and noise come from the release.
  bool step(const Vec& force, Rng& rng, Vec& theta, std::span<double> columns) override;
  std::string divergence_what() const override { return "the next position is not finite"; }
  std::string divergence_advice() const override;

  DpSgldConfig config_;
  Vec next_;
};

}  // namespace dpmcmc
