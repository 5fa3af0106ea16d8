// DP-Fast MH ([ZhangZhang2023] Algorithm 2): TunaMH's exact minibatch MH (tunamh.hpp)
// with a batch-size cap K and a full-batch fallback, Gaussian noise on the log ratio scaled by
// the sensitivities of Lemma 1, the penalty correction −σ²/2, the log-prior term, and an
// optional "privacy for free" branch. The privacy analysis is re-derived in
// privacy/fastmh_guarantee.hpp and docs/dp-fast-mh.md; the differences from the paper:
//   * C and max c_i are replaced by public values C̄ = n·c̄ and c̄ (c̄ the model's declared per-row
//     bound) through a zero-energy padding row: TunaMH on the padded data has the same target,
//     and B, the branch and the sensitivities no longer depend on the private rows;
//   * the minibatch noise is calibrated by amplification by sampling with replacement evaluated
//     exactly (not the paper's linearisation "6Kpε"), the full-batch noise by the analytic
//     Gaussian mechanism; both give exactly the target (ε, δ) per iteration;
//   * "privacy for free" is (0, 1 − e^{−Δ})-DP, not (Δ, 0)-DP (the reject probabilities have no
//     bounded ratio): off by default; when enabled it is used only when that δ is ≤ the
//     per-iteration δ, and recorded as (0, δ_free).
//
// One transition from θ (algorithm stream: the proposal and the accept uniform of noisy
// branches; everything touching rows is PrivateData::fastmh_release, on the noise stream):
//   1. θ′ = θ + s ⊙ z; if p(θ′) = 0 or is NaN, reject with no release; if θ′ = θ, accept with
//      no release (the shared skeleton, samplers/private_mh_kernel.hpp);
//   2. M = M(θ, θ′); if M = 0 the likelihood cannot change: accept by the prior ratio;
//   3. release: B ~ Poisson(λ + C̄M); minibatch iff B < K (unless full_batch), noisy Y − σ²/2
//      (or the free branch's decision); one approximate_dp event "fastmh";
//   4. accept with probability min(1, exp(Y − σ²/2 + log p(θ′) − log p(θ))).
// Exactness: each branch is a reversible penalty/TunaMH kernel and the branch probability is
// symmetric in (θ, θ′) ([ZhangZhang2023] Theorem 3) — but see docs/dp-fast-mh.md: conditioning
// TunaMH's batch on B < K perturbs its Poisson structure, a bias that vanishes when P(B ≥ K) does.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "models/model.hpp"
#include "models/ratio_bound.hpp"
#include "privacy/fastmh_guarantee.hpp"
#include "privacy/private_data.hpp"
#include "samplers/private_mh_kernel.hpp"

namespace dpmcmc {

struct DpFastMhConfig {
  // Proposal standard deviation per component; size 1 (the same for all) or dim (0.06 in
  // [ZhangZhang2023]).
  Vec scale = Vec::Constant(1, 0.06);
  double lambda = 10.0;          // λ > 0
  std::uint64_t max_batch = 60;  // K ≥ 1: minibatch iff B < K
  double epsilon = 0.05;         // ε per iteration (> 0)
  double delta = 1e-5;           // δ per iteration, in (0, 1)
  bool full_batch = false;       // always the full-batch branch (the "full-batch" variant of
                                 // [ZhangZhang2023])
  bool free_branch = false;      // allow "privacy for free" (see above); off by default
  double row_bound = 0.0;        // c̄ (untempered) > 0; 0 = the model's declared bound
};

// The model's declared bound c̄ ≥ every c_i (untempered): GaussianMixtureModel
// √2(R + a1 + a2)/σx², LogisticRegressionModel R. ConfigError for other models (give
// row_bound explicitly).
double declared_row_bound(const Model& model);

class DpFastMhKernel final : public PrivateMhKernel {
 public:
  // ConfigError naming the option unless λ > 0, K ≥ 1, ε > 0, δ ∈ (0, 1), the scale is valid,
  // the model implements RatioBound and c̄ > 0. `model` must outlive the kernel (and `data` in
  // the borrowing form). Rows with c_i > c̄ are refused (DataError) at the first release.
  DpFastMhKernel(const Model& model, PrivateData& data, DpFastMhConfig config);
  DpFastMhKernel(const Model& model, std::unique_ptr<PrivateData> data, DpFastMhConfig config);

  std::string name() const override {
    return config_.full_batch ? "dp-fast-mh-full" : "dp-fast-mh";
  }
  // Columns: batch_size__ (B, the padded batch's Poisson draw, kept when B ≥ K sends the
  // iteration to the full batch; n in the full-batch variant; 0 without release; curator-only),
  // full_batch__ (0/1), free__ (0/1), eps_iter__ (the ε recorded for this iteration, 0 without
  // release), noise_sd__ (σ), eps_spent__ (the spend callback's value; NaN when unset).
  // accept_stat__: min(1, exp(noisy log ratio)) in noisy branches; in free branches the decision
  // itself (0 or 1), since the exact probability is not private.

  const FastMhCalibration& calibration() const { return calibration_; }
  double row_bound() const { return row_bound_; }
  // Counters over transitions since construction.
  std::uint64_t iterations() const { return transitions(); }
  std::uint64_t releases() const { return minibatch_ + full_; }
  std::uint64_t minibatch_iterations() const { return minibatch_; }
  std::uint64_t full_batch_iterations() const { return full_; }
  std::uint64_t free_iterations() const { return free_; }
  std::uint64_t batch_total() const { return batch_total_; }  // Σ B over minibatch iterations
  // Σ rows evaluated: a function of the private data, for cost measurement only (never written).
  std::uint64_t rows_evaluated() const { return rows_evaluated_; }
  // The counters above, with the MH kernel's state.
  nlohmann::json save_state() const override;
  void load_state(const nlohmann::json& state) override;

 private:
  void setup();
  // Steps 2–4 of the box above.
  AcceptDecision noisy_test(const NoisyMove& move, Rng& rng, std::span<double> columns) override;

  const RatioBound* bound_ = nullptr;
  DpFastMhConfig config_;
  FastMhCalibration calibration_;
  double row_bound_ = 0.0;
  std::uint64_t minibatch_ = 0, full_ = 0, free_ = 0, batch_total_ = 0, rows_evaluated_ = 0;
};

}  // namespace dpmcmc
