// The DP penalty algorithm of Yıldırım and Ermiş ([Raisa2021] Section 3.1,
// Theorems 3.1–3.2; [Yildirim2020] Section 2) and its one-component (OCU) and
// guided-walk (GWMH) variants.
//
// One transition from θ:
//   1. propose θ′ (see PenaltyProposal; every variant is symmetric in the sense below);
//   2. release  λ̂ = T·Σᵢ clip(log p(xᵢ|θ′) − log p(xᵢ|θ), ±b‖θ′ − θ‖₂) + N(0, σ²)
//      through PrivateData::llr_sum with noise multiplier τ·n^α, so that
//      σ = τ n^α · Δ,  Δ = 2·T·b‖θ′ − θ‖₂ (Theorem 3.1's σ² = τ² n^{2α} c², c = 2b‖θ′ − θ‖₂);
//   3. accept with probability min{1, exp(λ̂ + log p(θ′) − log p(θ) − σ²/2)}
//      (the penalty −σ²/2 of Ceperley and Dewing corrects for the noise:
//      [Yildirim2020] Section 2; the chain targets π exactly when nothing is clipped).
// Everything but step 2 is post-processing of released values and the public prior.
//
// Variants ([Raisa2021] Section 3.1, after YE19):
//   full           θ′ = θ + s ⊙ z, z ~ N(0, I).
//   one_component  (OCU) j uniform in {1..d}; θ′_j = θ_j + s_j z, other components unchanged:
//                  ‖θ′ − θ‖ = s_j|z|, so the noise is smaller than for a full move.
//   guided_walk    (GWMH, with OCU) each component j carries a direction d_j ∈ {−1, +1};
//                  j uniform, θ′_j = θ_j + d_j·s_j|z|. After an accept d_j is kept, after a
//                  reject it is flipped. This is Gustafson's (1998) guided walk applied to one
//                  coordinate: on the extended state (θ, d) the move (θ, d) → (θ′, d) has as
//                  reverse (θ′, −d) → (θ, −d) with the same half-normal step density, so the
//                  acceptance ratio is π(θ′)/π(θ) as in the symmetric case, the penalty
//                  correction carries over unchanged (σ depends on |θ′_j − θ_j| only, so it is
//                  the same forwards and backwards), and π × Uniform{±1}^d is invariant (the
//                  chain is non-reversible in θ alone). Directions start at +1 on init().
//
// Moves that need no release (outside the prior's support, θ′ = θ) and the transition's
// skeleton: samplers/private_mh_kernel.hpp; they are recorded with noise_sd__ = 0. Hence
// releases ≤ transitions. Ownership of the chain's PrivateData, exhaustion and the spend column:
// PrivateKernel.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/rng.hpp"
#include "core/types.hpp"
#include "models/model.hpp"
#include "privacy/private_data.hpp"
#include "samplers/accept_rule.hpp"
#include "samplers/penalty_proposal.hpp"
#include "samplers/private_mh_kernel.hpp"

namespace dpmcmc {

// PenaltyProposal and the proposal step: samplers/penalty_proposal.hpp.

// "dp-penalty", "dp-penalty-ocu", "dp-penalty-gwmh".
std::string penalty_sampler_name(PenaltyProposal proposal);

struct DpPenaltyConfig {
  // Proposal standard deviation per component; size 1 (the same for all) or dim.
  Vec scale = Vec::Constant(1, 0.1);
  double tau = 0.1;  // τ > 0: noise multiplier τ·n^α
  double clip = 1.0;  // b > 0: each row's log-likelihood ratio is clipped to ±b‖θ′ − θ‖₂
  double alpha = 0.5;  // α > 0 (YE19 recommend ½, used in all the thesis' experiments)
  PenaltyProposal proposal = PenaltyProposal::full;
};

// The penalty accept rule: accept with probability min{1, exp(λ̂ − σ²/2)}, where λ̂ is the noisy
// log acceptance ratio (data part + prior part + proposal correction) and σ the sd of its noise.
// NaN λ̂ is rejected. Always draws exactly one uniform from the algorithm stream.
AcceptDecision penalty_accept(double noisy_log_ratio, double noise_sd, Rng& rng);

// E min{1, exp(r + σX − σ²/2)}, X ~ N(0, 1): the expected acceptance probability of the
// penalty test for an exact log ratio r and noise sd σ ≥ 0 ([Yildirim2020] proof of
// Proposition 1):  Φ(r/σ − σ/2) + e^r Φ(−r/σ − σ/2); min{1, e^r} at σ = 0. Decreasing in σ.
double penalty_expected_acceptance(double r, double sigma);

class DpPenaltyKernel final : public PrivateMhKernel {
 public:
  // Throws ConfigError naming the parameter unless τ, b, α are finite and > 0 and the scale is
  // valid (finite, > 0, size 1 or dim). `model` supplies dim and the prior only; it must outlive
  // the kernel, and so must `data` in the borrowing form. `data` is the chain's PrivateData, or
  // an OwnerGroup for the data-sharing penalty ([Yildirim2020] Algorithm 2): the group
  // answers with the sum of its owners' noisy contributions and noise sd √N·σ, so the penalty
  // −Nσ²/2 of Algorithm 2 is this kernel's −σ²/2 with the group's σ, and n is the group's total.
  DpPenaltyKernel(const Model& model, DataOwner& data, DpPenaltyConfig config);
  DpPenaltyKernel(const Model& model, std::unique_ptr<DataOwner> data, DpPenaltyConfig config);

  std::string name() const override { return penalty_sampler_name(config_.proposal); }
  // Columns {"clip_frac__", "noise_sd__", "eps_spent__"}: the share of rows clipped in this
  // iteration's release (curator-only), σ of the release (0 when none was made), the spend.

  // τ·n^α, the noise multiplier σ/Δ of every release (what the planner's template uses).
  double noise_multiplier() const { return multiplier_; }

 private:
  void setup();
  // Steps 2–3 of the box above.
  AcceptDecision noisy_test(const NoisyMove& move, Rng& rng, std::span<double> columns) override;

  DpPenaltyConfig config_;
  double multiplier_ = 0.0;
};

}  // namespace dpmcmc
