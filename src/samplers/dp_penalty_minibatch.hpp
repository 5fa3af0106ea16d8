// The minibatch DP penalty ([Raisa2021] Section 3.4, Lemma 3.4, Theorem 3.5).
//
// One transition from θ:
//   1. propose θ′ (full / OCU / GWMH: samplers/penalty_proposal.hpp, as DpPenaltyKernel);
//   2. release through PrivateData::llr_batch_corrected, for a secret batch B of b rows drawn
//      without replacement from the privacy noise stream, with clip bound β = L‖θ′ − θ‖₂:
//        λ̂ = λ − σ_b²/2 + N(0, σ²),  λ = (nT/b)Σ_B r_x,  σ_b² = (nT/b)²(Σ_B r_x² − R²/b),
//      σ = √τ·c, c = 2nTβ/b + 2(b−1)(nT)²β²/b³ the exact sensitivity of λ − σ_b²/2
//      (privacy/minibatch_templates.hpp; Theorem 3.5's σ² = τc², with c tightened);
//   3. accept with probability min{1, exp(λ̂ + log p(θ′) − log p(θ) − σ²/2)}, which is
//      min{1, exp(λ* − (σ² + σ_b²)/2)} of Section 3.4 with λ* = λ + log prior ratio + noise.
// Exactness is approximate: the penalty method is exact when the log-ratio estimate is Gaussian
// with known variance; here λ is Gaussian only by the central limit theorem over the batch and
// its variance is estimated by σ_b² (Section 3.4: "approximately normally distributed"). The
// bias vanishes as b grows; with small batches or heavy-tailed ratios the chain targets a
// slightly different distribution. Nothing is clipped away in the CLT argument: clipping (as in
// the full-data penalty) changes the target when it binds.
//
// τ keeps the thesis' meaning (σ² = τc², noise multiplier √τ; docs/references.md, thesis
// minibatch penalty), unlike the full-data penalty's τn^α, so the presets' values apply unchanged.
//
// Proposals that need no release (prior −∞, non-finite θ′, zero step) are handled by the shared
// skeleton (samplers/private_mh_kernel.hpp), without touching the data.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "core/rng.hpp"
#include "core/types.hpp"
#include "models/model.hpp"
#include "privacy/private_data.hpp"
#include "samplers/penalty_proposal.hpp"
#include "samplers/private_mh_kernel.hpp"

namespace dpmcmc {

// "dp-penalty-minibatch", "dp-penalty-minibatch-ocu", "dp-penalty-minibatch-gwmh".
std::string penalty_minibatch_sampler_name(PenaltyProposal proposal);

struct DpPenaltyMinibatchConfig {
  // Proposal standard deviation per component; size 1 (the same for all) or dim.
  Vec scale = Vec::Constant(1, 0.1);
  double tau = 0.7;         // τ > 0: noise variance τc² (multiplier √τ)
  double clip = 1.0;        // L > 0: each row's ratio is clipped to ±L‖θ′ − θ‖₂
  std::size_t batch = 100;  // b, 1 ≤ b ≤ n: rows per iteration, without replacement
  PenaltyProposal proposal = PenaltyProposal::full;
};

class DpPenaltyMinibatchKernel final : public PrivateMhKernel {
 public:
  // ConfigError naming the parameter unless τ and L are finite and > 0, 1 ≤ b ≤ n (naming
  // --batch and n) and the scale is valid (finite, > 0, size 1 or dim). `model` supplies dim
  // and the prior; it must outlive the kernel, and so must `data` in the borrowing form.
  DpPenaltyMinibatchKernel(const Model& model, PrivateData& data, DpPenaltyMinibatchConfig config);
  DpPenaltyMinibatchKernel(const Model& model, std::unique_ptr<PrivateData> data,
                           DpPenaltyMinibatchConfig config);

  std::string name() const override { return penalty_minibatch_sampler_name(config_.proposal); }
  // Columns {"clip_frac__", "noise_sd__", "eps_spent__"}: the share of the batch's rows clipped
  // (curator-only), σ of the release (0 when none was made), the spend. σ_b² is not a column: it
  // is a function of the private batch that is never released on its own.

  // √τ, the noise multiplier σ/c of every release (what the template uses).
  double noise_multiplier() const { return multiplier_; }

 private:
  void setup();
  // Steps 2–3 of the box above.
  AcceptDecision noisy_test(const NoisyMove& move, Rng& rng, std::span<double> columns) override;

  DpPenaltyMinibatchConfig config_;
  double multiplier_ = 0.0;
};

}  // namespace dpmcmc
