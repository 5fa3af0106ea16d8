// Hamiltonian Monte Carlo, the non-private baseline and the skeleton of DP HMC
// ([RaisaKoskelaHonkela2021] Algorithm 1 without the noise): a fresh momentum p ~ N(0, M) with a
// diagonal mass matrix M, L leapfrog steps of size η_i (leapfrog.hpp), and a swappable accept
// rule on H(θ, p) − H(θ′, p′) (accept_rule.hpp; the penalty test plugs in there). With
// StepJitter::halton the step size of iteration i is η_i = h_i·η, h_i ∈ (0, 1) the i-th point of
// a randomised Halton sequence in base 2 (Section 3 of the same paper); the randomisation is drawn
// from the chain's algorithm stream at the first transition after init(), so it differs between
// chains and is reproducible from (seed, chain). A step size fixed for a whole trajectory keeps
// the leapfrog proposal an involution (with the momentum flip), so π stays invariant.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "data/dataset.hpp"
#include "models/model.hpp"
#include "samplers/accept_rule.hpp"
#include "samplers/halton.hpp"
#include "samplers/kernel.hpp"
#include "samplers/metric.hpp"

namespace dpmcmc {

enum class StepJitter { none, halton };

struct HmcConfig {
  double step_size = 0.1;  // η > 0
  int steps = 10;          // L ≥ 1
  // Diagonal of the mass matrix M; size 1 (the same for all) or dim(), entries > 0.
  Vec mass = Vec::Ones(1);
  StepJitter jitter = StepJitter::none;
  // A transition is flagged divergent__ when H(θ′, p′) − H(θ, p) exceeds this (Stan's 1000) or the
  // trajectory leaves the finite numbers.
  double divergence_threshold = 1000.0;
  // The clipping study ([Raisa2021] Section 6.2; samplers/clipped_llr.hpp): when
  // set, make_hmc clips each row's log-likelihood ratio between the start θ and the end θ′ of the
  // trajectory to ±clip·‖θ′ − θ‖₂ in the accept test (as DP HMC's accept step, Algorithm 4; the
  // gradients stay exact) and records the clipped share of rows in the draw column
  // llr_clip_frac__ (the name DP HMC uses). Unset: the exact kernel, unchanged.
  std::optional<double> clip;
};

// The step size of one iteration: η itself, or with StepJitter::halton η·h_i, h_i the point
// `iteration` of a randomised Halton sequence in base 2 ([RaisaKoskelaHonkela2021] Section 3),
// which is created from `rng` on first use (the chain's algorithm stream, at its first transition
// after init). Shared by HmcKernel and DP HMC so that both use the algorithm stream identically.
double jittered_step_size(double step, StepJitter jitter, std::optional<RandomizedHalton>& halton,
                          std::uint64_t iteration, Rng& rng);

// Writes ∇ log π(θ) into grad (already sized dim) and returns log π(θ) up to a constant — or NaN
// when the callback does not know it (DP HMC's noisy gradient releases).
using GradientFn = std::function<double(const Vec& theta, Vec& grad)>;

// Whether the gradient callback also returns the exact log density.
enum class DensityKnown { yes, no };

// The start of a gradient-based chain (HMC, NUTS): checks θ0 (size, finite), evaluates the
// gradient there into grad (resized to dim) and returns log π(θ0); ConfigError naming `kernel`
// when θ0, a known log π(θ0) or the gradient is not finite.
double gradient_at_start(const GradientFn& gradient, const Vec& theta0, int dim,
                         const std::string& kernel, DensityKnown density, Vec& grad);

class HmcKernel final : public Kernel {
 public:
  // Throws ConfigError naming the option for η ≤ 0 or non-finite, L < 1, bad masses.
  HmcKernel(int dim, GradientFn gradient, HmcConfig config, AcceptRule rule = metropolis_accept,
            DensityKnown density = DensityKnown::yes);

  std::string name() const override { return "hmc"; }
  int dim() const override { return dim_; }
  // Stan's names: the step size of this iteration, leapfrog steps taken, divergence flag (0/1),
  // and the Hamiltonian at the returned state (NaN when the density is not known).
  std::vector<std::string> extra_columns() const override {
    return {"stepsize__", "n_leapfrog__", "divergent__", "energy__"};
  }
  // Throws ConfigError for a wrong-sized or non-finite θ0 or a non-finite known log π(θ0).
  void init(const Vec& theta0) override;
  TransitionInfo transition(Rng& rng, std::span<double> extras) override;
  const Vec& position() const override { return theta_; }
  nlohmann::json save_state() const override;
  void load_state(const nlohmann::json& state) override;
  // Target acceptance 0.8 (Stan's default); ε is the step size, m = M⁻¹ the inverse mass.
  std::optional<AdaptationTarget> adaptation() const override {
    return AdaptationTarget{0.8, true, false, true};
  }
  Tuning tuning() const override {
    return {config_.step_size, metric_.diagonal(), metric_.matrix()};
  }
  void set_tuning(const Tuning& tuning) override;

  const HmcConfig& config() const { return config_; }

 private:
  int dim_;
  GradientFn gradient_;
  HmcConfig config_;
  AcceptRule rule_;
  bool density_known_;
  Metric metric_;
  // Current state and the scratch of the proposal (no allocation per transition).
  Vec theta_, grad_, p_, theta_new_, p_new_, grad_new_;
  double lp_ = 0.0;
  bool initialised_ = false;
  std::optional<RandomizedHalton> halton_;
  std::uint64_t iteration_ = 0;
};

// An HMC kernel on the exact posterior of `model` given `data` (owns its Posterior; one kernel
// per chain). With config.clip, `rule` is applied to the clipped ratio (clipped_llr_rule) and the
// kernel has the extra column llr_clip_frac__ after Stan's four; ConfigError unless the bound is
// finite and > 0. (HmcKernel itself ignores config.clip: it has no data.)
std::unique_ptr<Kernel> make_hmc(const Model& model, const Dataset& data, HmcConfig config,
                                 AcceptRule rule = metropolis_accept);

}  // namespace dpmcmc
