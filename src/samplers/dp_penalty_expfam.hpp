// The penalty algorithm for exponential families ([Yildirim2020] Section 3.3,
// Algorithm 3): instead of a clipped log-likelihood-ratio sum, each iteration releases a fresh
// noisy sufficient statistic Ŝ = S + N(0, σ² I), S = Σᵢ s(xᵢ), and computes the log-likelihood
// ratio from it (the paper's equation (7) with Ŝ for S):
//   d̂(θ, θ′) = (η(θ′) − η(θ))ᵀ Ŝ − n (A(θ′) − A(θ)).
// Derivation of the noise of d̂ (the paper's equation (8), ξ_n = σ²): with Ŝ = S + σZ,
// Z ~ N(0, I_k), d̂ = d + σ (η(θ′) − η(θ))ᵀ Z, and (η′ − η)ᵀ Z ~ N(0, ‖η′ − η‖²), so
//   d̂ ~ N(d, σ_d²),   σ_d = σ ‖η(θ′) − η(θ)‖₂.
// Accept with probability min{1, p(θ′)/p(θ) · exp(d̂ − σ_d²/2)} (Algorithm 3, step 2, symmetric
// proposal so q cancels): the penalty test of samplers/dp_penalty.hpp (penalty_accept) with σ_d.
// Because E exp(d̂ − σ_d²/2) = exp(d) and σ_d is symmetric in (θ, θ′), the chain targets the
// posterior given the *data* exactly (Ceperley and Dewing; [Yildirim2020] Section 2),
// with no clipping bias at all (rows outside the declared range are refused, see
// PrivateData::suff_stat).
//
// Noise. σ = τ·n^α·Δ with Δ = ‖hi − lo‖₂ the sensitivity of S: Corollary 1's
// ξ_n = σ₀²(∇₂S)² n^{2α}/c² is this with τ = σ₀/c. The release does not depend on θ or θ′, so
// its privacy cost per iteration is a Gaussian mechanism with multiplier τn^α, whatever the move.
//
// Cost. PrivateData computes S once and then only draws k normals per release; the kernel's
// iteration is O(d + k) (plus the model's η and A), independent of n.
//
// Moves that need no release (the shared skeleton, samplers/private_mh_kernel.hpp;
// post-processing, free): a proposal outside the prior's support (log p(θ′) = −∞) is rejected and
// θ′ = θ is accepted without a release.
// Algorithm 3 as printed releases Ŝ every iteration; skipping a release whose value would not be
// used only spends less. Hence releases ≤ transitions.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/expfam_model.hpp"
#include "privacy/privacy_event.hpp"
#include "privacy/private_data.hpp"
#include "samplers/dp_penalty.hpp"
#include "samplers/private_mh_kernel.hpp"

namespace dpmcmc {

struct DpPenaltyExpFamConfig {
  // Gaussian random-walk proposal sd per component; size 1 (the same for all) or dim.
  Vec scale = Vec::Constant(1, 0.1);
  double tau = 0.1;    // τ > 0: noise multiplier τ·n^α of every release
  double alpha = 0.5;  // α > 0
  // A model view the kernel reads (models/glm_expfam.hpp), kept alive as long as the kernel: the
  // kernel's model, when given; null when the caller owns the model.
  std::shared_ptr<const ExpFamModel> view;
};

// The per-iteration event template of this sampler for the planner: one Gaussian release of
// unit sensitivity with noise multiplier τn^α, substitute relation, label "suff_stat".
// ConfigError unless τ, n, α are finite and > 0.
std::vector<PrivacyEvent> dp_penalty_expfam_template(double tau, double n, double alpha = 0.5);

class DpPenaltyExpFamKernel final : public PrivateMhKernel {
 public:
  // ConfigError naming the parameter unless τ, α are finite and > 0, τn^α is finite, and the
  // scale is valid; DataError naming the row when a row's statistic is outside the model's
  // declared range (PrivateData::prepare_suff_stat, which releases nothing). The model must outlive
  // the kernel (and `data` in the borrowing form); it must be the model `data` was built with.
  DpPenaltyExpFamKernel(const ExpFamModel& model, PrivateData& data, DpPenaltyExpFamConfig config);
  DpPenaltyExpFamKernel(const ExpFamModel& model, std::unique_ptr<PrivateData> data,
                        DpPenaltyExpFamConfig config);

  std::string name() const override { return "dp-penalty-expfam"; }
  // Columns {"clip_frac__", "noise_sd__", "eps_spent__"}: always 0 (nothing is clipped,
  // out-of-range rows are refused), σ_d = σ‖η(θ′) − η(θ)‖ of this iteration's noisy log ratio
  // (0 when no release was made), the spend.

  // τ·n^α = σ/Δ of every release.
  double noise_multiplier() const { return multiplier_; }

 private:
  void setup();
  // Algorithm 3, steps 1–2.
  AcceptDecision noisy_test(const NoisyMove& move, Rng& rng, std::span<double> columns) override;
  void on_init() override;
  void on_accept() override;

  const ExpFamModel& model_;
  DpPenaltyExpFamConfig config_;
  double multiplier_ = 0.0;
  Vec eta_, eta_new_;  // η(θ) of the current state and of the tested θ′
  double log_partition_ = 0.0, log_partition_new_ = 0.0;  // A(θ), A(θ′)
};

}  // namespace dpmcmc
