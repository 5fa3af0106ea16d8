// Random-walk Metropolis–Hastings, the non-private baseline: θ′ = θ + s ⊙ z with z ~ N(0, I) and
// per-component proposal scales s, accepted by a swappable AcceptRule (Metropolis by default) on
// the exact log posterior (models/posterior.hpp).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "core/types.hpp"
#include "data/dataset.hpp"
#include "models/model.hpp"
#include "samplers/accept_rule.hpp"
#include "samplers/kernel.hpp"

namespace dpmcmc {

struct RwmhConfig {
  // Proposal standard deviation per component; size 1 (the same for all) or dim().
  Vec scale = Vec::Constant(1, 0.1);
  // The clipping study ([Raisa2021] Section 6.2; samplers/clipped_llr.hpp): when
  // set, make_rwmh clips each row's log-likelihood ratio to ±clip·‖θ′ − θ‖₂ in the accept test and
  // records the clipped share of rows in the draw column clip_frac__ (the name DP penalty uses).
  // Unset: the exact kernel, unchanged.
  std::optional<double> clip;
};

// log π(θ) up to a constant. An empty function means "not known to the kernel": a private
// accept rule then computes the data part of the ratio itself (MoveProposal gets NaN).
using LogDensityFn = std::function<double(const Vec& theta)>;

class RwmhKernel final : public Kernel {
 public:
  // Throws ConfigError naming the option when a scale is not finite and positive or its size is
  // neither 1 nor dim.
  RwmhKernel(int dim, LogDensityFn log_density, RwmhConfig config,
             AcceptRule rule = metropolis_accept);

  std::string name() const override { return "rwmh"; }
  int dim() const override { return dim_; }
  // Throws ConfigError when θ0 has the wrong size, is not finite, or has log π(θ0) = −∞ or NaN.
  void init(const Vec& theta0) override;
  TransitionInfo transition(Rng& rng, std::span<double> extras) override;
  const Vec& position() const override { return theta_; }
  nlohmann::json save_state() const override;
  void load_state(const nlohmann::json& state) override;
  // Target: the random-walk rate of random_walk_target_accept(dim); the metric adapts. The tuning
  // starts at ε = 1, m = s² (the configured scale squared); the proposal sd is ε·√m, or with a
  // dense tuning the proposal is θ + ε·Lz, LLᵀ = Σ.
  std::optional<AdaptationTarget> adaptation() const override;
  Tuning tuning() const override { return tuning_; }
  void set_tuning(const Tuning& tuning) override;

  const Vec& scale() const { return scale_; }

 private:
  int dim_;
  LogDensityFn log_density_;
  AcceptRule rule_;
  Vec scale_;
  Tuning tuning_;
  Mat chol_;  // a dense tuning: ε·L with LLᵀ = Σ (empty: the diagonal scale_)
  Vec theta_, proposal_;
  double lp_ = 0.0;
  bool initialised_ = false;
};

// An RWMH kernel on the exact posterior of `model` given `data` (the kernel owns its Posterior,
// so one kernel per chain is thread-safe as long as the model's const methods are). With
// config.clip, `rule` is applied to the clipped ratio (clipped_llr_rule) and the kernel has the
// extra column clip_frac__; ConfigError unless the bound is finite and > 0. (RwmhKernel itself
// ignores config.clip: it has no data.)
std::unique_ptr<Kernel> make_rwmh(const Model& model, const Dataset& data, RwmhConfig config,
                                  AcceptRule rule = metropolis_accept);

}  // namespace dpmcmc
