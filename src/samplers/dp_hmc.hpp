// Differentially private Hamiltonian Monte Carlo ([Raisa2021] Algorithm 4;
// [RaisaKoskelaHonkela2021] Algorithm 1), the variant the papers analyse.
//
// One transition from θ = θ_{i−1}:
//   1. step size η_i = η, or η·h_i with h_i a randomised Halton point (as HmcKernel, the shared
//      jittered_step_size of hmc.hpp; [RaisaKoskelaHonkela2021] Section 3);
//   2. G_0 = ∇log p(θ) + [T·Σᵢ clip_{b_g}(∇log p(xᵢ|θ)) + N(0, σ_g² I)]: a FRESH gradient release
//      at the current position, every iteration. It is never the final gradient of the previous
//      (accepted) trajectory: reusing it would reuse that release's noise in two iterations, which
//      is not the algorithm analysed ([Raisa2021] Section 4.2, last paragraphs) and
//      not what the planner's template (dp_hmc_template: L + 1 "grad_sum" per iteration) counts;
//   3. p_0 ~ N(0, M) from the algorithm stream (diagonal M);
//   4. L leapfrog steps (leapfrog.hpp) in which every new position θ_j gets its own release G_j:
//      G_0 … G_L, i.e. exactly L + 1 "grad_sum" releases per iteration;
//   5. one "llr_sum" release R + ξ = T·Σᵢ clip_{b_l‖θ′−θ‖}(log p(xᵢ|θ′) − log p(xᵢ|θ)) + N(0, σ_l²)
//      and the penalty test: accept θ′ = θ_L when
//        log u < ΔH − σ_l²/2,  ΔH = R + ξ + K(p_0) − K(p_L) + log p(θ′) − log p(θ)
//      (penalty_accept of dp_penalty.hpp, one uniform from the algorithm stream).
// Noise: grad_sum with multiplier τ_g√n gives σ_g = τ_g√n·2T·b_g (Theorem 4.2's σ_g = 2τ_g√n·b_g at
// T = 1); llr_sum with multiplier τ_l√n gives σ_l = τ_l√n·2T·b_l‖θ′ − θ‖ (Theorem 4.2's σ_l).
// Tempering multiplies the sums and their noise by T (PrivateData); the prior is exact.
//
// Releases that are not made. A proposal needs no "llr_sum" release when the trajectory left the
// finite numbers (rejected, as HmcKernel does, without drawing the uniform), when log p(θ′) = −∞
// (rejected by the public prior; the uniform is drawn, as HmcKernel's Metropolis rule draws it),
// or when θ′ = θ (the data term is exactly 0). A trajectory that leaves the finite numbers stops
// there: the gradient releases already made are recorded (they were made), the rest are not.
// A non-finite per-row gradient met *inside* a trajectory (PrivateData refuses it with a
// SoftwareError before releasing anything) ends the trajectory the same way: it is what a
// diverging trajectory does once θ overflows the model's arithmetic. At the current position it
// is an error of the model and propagates. Hence recorded releases ≤ planned, and equal when no
// trajectory diverges.
//
// Reduction to HMC. The algorithm is DpHmcSampler, written against DpHmcData (the two releases);
// DpHmcKernel runs it on a PrivateData. With a DpHmcData that returns exact, unclipped, noiseless
// sums (noise_sd 0) the sampler IS HmcKernel: the algorithm stream is used in the same order
// (Halton permutations at the first transition, momenta, one uniform per finite trajectory), the
// leapfrog is the same function, and penalty_accept with σ = 0 is Metropolis on the same uniform
// (tests/samplers/dp_hmc_test.cpp checks identical draws). The noise stream is PrivateData's.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/rng.hpp"
#include "core/types.hpp"
#include "models/model.hpp"
#include "privacy/private_data.hpp"
#include "samplers/halton.hpp"
#include "samplers/hmc.hpp"
#include "samplers/leapfrog.hpp"
#include "samplers/private_kernel.hpp"

namespace dpmcmc {

struct DpHmcConfig {
  double tau_l = 0.1;   // τ_l > 0: log-likelihood-ratio noise multiplier τ_l√n
  double tau_g = 0.4;   // τ_g > 0: gradient noise multiplier τ_g√n
  double clip_l = 2.0;  // b_l > 0: per-row log-likelihood ratio clipped to ±b_l‖θ′ − θ‖
  double clip_g = 1.0;  // b_g > 0: per-row gradient clipped to L2 norm b_g
  double step_size = 0.0005;  // η > 0
  int steps = 10;             // L ≥ 1
  // Diagonal of the mass matrix M; size 1 (the same for all) or dim, entries finite and > 0.
  Vec mass = Vec::Ones(1);
  StepJitter jitter = StepJitter::none;  // halton: preset's randomized_step_size
};

// What one release told the sampler besides its value (for the draw columns).
struct ReleaseStats {
  double noise_sd = 0.0;  // σ of the release's noise (0: exact)
  std::size_t rows = 0;
  std::size_t clipped = 0;
};

// The data side of Algorithm 4: the only two things DP HMC asks about the likelihood.
class DpHmcData {
 public:
  virtual ~DpHmcData() = default;
  // Writes T·Σᵢ clip_{b_g}(∇log p(xᵢ|θ)) + N(0, σ_g² I) into out (already of size dim).
  virtual ReleaseStats grad_sum(const Vec& theta, Vec& out) = 0;
  // Returns T·Σᵢ clip_{b_l‖θ′−θ‖}(log p(xᵢ|θ′) − log p(xᵢ|θ)) + N(0, σ_l²) in value.
  // Called only with θ′ ≠ θ, both finite.
  virtual ReleaseStats llr_sum(const Vec& theta, const Vec& theta_prime, double& value) = 0;
};

// DpHmcData on a chain's PrivateData with the noise multipliers τ_g√n and τ_l√n.
class PrivateDpHmcData final : public DpHmcData {
 public:
  // Keeps a reference to data. Does not validate the config (DpHmcSampler does).
  PrivateDpHmcData(PrivateData& data, const DpHmcConfig& config);
  ReleaseStats grad_sum(const Vec& theta, Vec& out) override;
  ReleaseStats llr_sum(const Vec& theta, const Vec& theta_prime, double& value) override;
  double gradient_multiplier() const { return mult_g_; }
  double ratio_multiplier() const { return mult_l_; }

 private:
  PrivateData& data_;
  double clip_g_, clip_l_, mult_g_, mult_l_;
};

// What one transition did, beyond TransitionInfo.
struct DpHmcStepInfo {
  double step_size = 0.0;
  int grad_releases = 0;         // ≤ L + 1
  std::size_t grad_rows = 0;     // rows summed over all gradient releases
  std::size_t grad_clipped = 0;  // of which clipped
  double grad_noise_sd = 0.0;    // σ_g (0 when no release)
  bool llr_released = false;
  std::size_t llr_rows = 0, llr_clipped = 0;
  double llr_noise_sd = 0.0;  // σ_l (0 when no release)
  bool divergent = false;     // the trajectory left the finite numbers
};

// Per-trajectory counters of dp_leapfrog.
struct TrajectoryStats {
  int releases = 0;
  std::size_t rows = 0, clipped = 0;
  double noise_sd = 0.0;
};

// Steps 2 and 4 of Algorithm 4 from (θ, p): releases G_0 at θ (into grad), then runs `steps`
// leapfrog steps of size `step` with a release at every new position (prior gradient added
// exactly). On exit (θ, p) is the end of the trajectory and grad holds G at it. A release at a
// non-finite position is not made (the trajectory is abandoned, finite = false); see the file
// comment for non-finite per-row gradients. Exposed for the reversibility test.
LeapfrogResult dp_leapfrog(const Model& model, DpHmcData& data, Vec& theta, Vec& p, Vec& grad,
                           const Vec& inv_mass, double step, int steps, TrajectoryStats& stats);

// The algorithm, independent of where the releases come from.
class DpHmcSampler {
 public:
  // ConfigError naming the parameter unless τ_l, τ_g, b_l, b_g, η are finite and > 0, L ≥ 1 and
  // the mass is valid. `model` (dim and prior) must outlive the sampler.
  DpHmcSampler(const Model& model, DpHmcConfig config);

  int dim() const { return dim_; }
  const DpHmcConfig& config() const { return config_; }
  // Checks θ0 (size, finite, finite log prior; ConfigError). Releases nothing.
  void init(const Vec& theta0);
  // One iteration of Algorithm 4 (file comment). lp__ is NaN (the exact density is unknown).
  TransitionInfo transition(Rng& rng, DpHmcData& data, DpHmcStepInfo& step);
  const Vec& position() const { return theta_; }
  // ε = the step size η, m = M⁻¹ (warmup adaptation; checked by tuned_scale).
  Tuning tuning() const { return {config_.step_size, inv_mass_}; }
  void set_tuning(const Tuning& tuning);
  // The log prior, the iteration count and the step-size sequence (checkpoints).
  nlohmann::json save_state() const;
  void load_state(const nlohmann::json& state);

 private:
  const Model& model_;
  DpHmcConfig config_;
  int dim_;
  Vec inv_mass_, sqrt_mass_;
  Vec theta_, grad_, p_, theta_new_, p_new_;
  double log_prior_ = 0.0;
  bool initialised_ = false;
  std::optional<RandomizedHalton> halton_;
  std::uint64_t iteration_ = 0;
};

class DpHmcKernel final : public PrivateKernel {
 public:
  // Per iteration at most L + 1 "grad_sum" and 1 "llr_sum" releases (exhausted() before an
  // iteration the allowance cannot cover). ConfigError as DpHmcSampler. `model` must outlive the
  // kernel, and so must `data` in the borrowing form.
  DpHmcKernel(const Model& model, PrivateData& data, DpHmcConfig config);
  DpHmcKernel(const Model& model, std::unique_ptr<PrivateData> data, DpHmcConfig config);

  std::string name() const override { return "dp-hmc"; }
  int dim() const override { return sampler_.dim(); }
  // {"grad_clip_frac__", "llr_clip_frac__", "noise_sd_grad__", "noise_sd_llr__", "stepsize__",
  //  "eps_spent__"}: the clipped share of rows over this iteration's gradient releases and of its
  // ratio release, σ_g and σ_l (0 when no such release was made), η_i, the spend callback value
  // (NaN when unset).
  std::vector<std::string> extra_columns() const override;
  std::vector<std::string> publishable_columns() const override;
  void init(const Vec& theta0) override { sampler_.init(theta0); }
  // BudgetExhausted (nothing released) when exhausted().
  TransitionInfo transition(Rng& rng, std::span<double> extras) override;
  const Vec& position() const override { return sampler_.position(); }
  nlohmann::json save_state() const override;
  void load_state(const nlohmann::json& state) override;
  const DpHmcConfig& config() const { return sampler_.config(); }
  // Adapts η and the mass from released values only (docs/decisions.md): the gradient releases
  // are calibrated to the fixed clip b_g, the ratio release to b_l·‖θ′ − θ‖ with a fixed σ/Δ, so
  // neither the step nor the mass enters a calibration. Target 0.45, not HMC's 0.65: Beskos,
  // Pillai, Roberts, Sanz-Serna and Stuart (2013) find a(ℓ) = 2Φ(−u), u ∝ ℓ², for a step
  // h = ℓ d^(−1/4); at a fixed integration time the cost is the L ∝ 1/ℓ gradients, and √u·Φ(−u)
  // peaks at a = 0.651. Here L is fixed and every iteration costs the same budget whatever the
  // step, so for trajectories short against the posterior (jump² ∝ (hL)² ∝ u) the efficiency
  // is u·Φ(−u), which peaks at a = 0.452 (docs/decisions.md, "Warmup adaptation"). For the same
  // reason the step's dual averaging centres on the configured step, not ten times it.
  std::optional<AdaptationTarget> adaptation() const override {
    AdaptationTarget target{kAdaptationTarget, true};
    target.favour_long_steps = false;
    return target;
  }
  static constexpr double kAdaptationTarget = 0.45;
  Tuning tuning() const override { return sampler_.tuning(); }
  void set_tuning(const Tuning& tuning) override { sampler_.set_tuning(tuning); }
  double gradient_multiplier() const { return source_.gradient_multiplier(); }
  double ratio_multiplier() const { return source_.ratio_multiplier(); }

 private:
  DpHmcSampler sampler_;
  PrivateDpHmcData source_;
};

}  // namespace dpmcmc
