// TunaMH, the exact minibatch Metropolis–Hastings of Zhang et al. (2020) as given in
// [ZhangZhang2023] Algorithm 1 — the non-private baseline of DP-Fast MH. It reads the
// dataset directly (like RwmhKernel), so it is not private.
//
// Notation. U_i(θ) = −T log p(x_i | θ) is row i's (tempered) energy; the model's RatioBound gives
// |U_i(θ′) − U_i(θ)| ≤ c_i M(θ, θ′) with c_i = T·(the model's untempered c_i), C = Σ c_i
// ([ZhangZhang2023] Assumption 1). One transition from θ:
//   1. θ′ = θ + s ⊙ z, z ~ N(0, I) (symmetric: q(θ|θ′) = q(θ′|θ)); if p(θ′) = 0, reject.
//   2. B ~ Poisson(λ + C M), M = M(θ, θ′).
//   3. B times: draw i with probability c_i / C (alias table, built once) and keep it in the
//      minibatch I with probability
//        p_i = [λ c_i + (C/2)(ΔU_i + c_i M)] / [c_i (λ + C M)],   ΔU_i = U_i(θ′) − U_i(θ),
//      which lies in [0, 1] exactly when |ΔU_i| ≤ c_i M (Assumption 1).
//   4. Accept with probability min(1, r),
//        log r = 2 Σ_{i∈I} artanh(C (U_i(θ) − U_i(θ′)) / (c_i (2λ + C M))) + log p(θ′) − log p(θ).
//
// Why it is exact (derived here; the paper's text states the algorithm only). By Poisson
// thinning, the number of times s_i that row i enters I is, independently over i,
//   s_i ~ Poisson(μ_i),  μ_i = (λ + C M)(c_i / C) p_i = λ c_i / C + c_i M / 2 + ΔU_i / 2,
// and the reverse move θ′ → θ has μ′_i = λ c_i / C + c_i M / 2 − ΔU_i / 2 (M symmetric). MH on the
// extended state (θ, s) accepts with the ratio
//   π(θ′) q(θ|θ′) Π Pois(s_i; μ′_i) / [π(θ) q(θ′|θ) Π Pois(s_i; μ_i)]
//   = [p(θ′)/p(θ)] e^{−Σ ΔU_i} · e^{Σ(μ_i − μ′_i)} · Π (μ′_i/μ_i)^{s_i} = [p(θ′)/p(θ)] Π
//   (μ′_i/μ_i)^{s_i},
// since Σ(μ_i − μ′_i) = Σ ΔU_i cancels the full-data likelihood ratio. With
// x_i = ΔU_i / (2λ c_i / C + c_i M), μ′_i/μ_i = (1 − x_i)/(1 + x_i) = exp(−2 artanh x_i), which is
// step 4; |x_i| < 1 because λ > 0. [ZhangZhang2023] uses a flat prior and passes τ = 0 to MHRatio;
// with a proper prior, the prior ratio is the extra term τ = log p(θ′) − log p(θ) (it is not part
// of any U_i, so it enters exactly). The chain is reversible for π(θ) ∝ p(θ) Π p(x_i|θ)^T.
//
// Cost: B rows are evaluated (each drawn row needs ΔU_i for its keep probability), and
// E[B | θ, θ′] = λ + C M(θ, θ′) ([ZhangZhang2023] Section 3.1 "TunaMH"); unlike the original
// TunaMH, λ is a fixed hyperparameter rather than χ C² M² ([ZhangZhang2023] keeps it so
// for DP-Fast MH).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/alias_table.hpp"
#include "core/types.hpp"
#include "data/dataset.hpp"
#include "models/model.hpp"
#include "models/ratio_bound.hpp"
#include "samplers/kernel.hpp"

namespace dpmcmc {

struct TunaMhConfig {
  // Proposal standard deviation per component; size 1 (the same for all) or dim().
  // [ZhangZhang2023]'s mixture setting: 0.06.
  Vec scale = Vec::Constant(1, 0.06);
  // λ > 0, the part of the expected batch size that does not scale with C·M ([ZhangZhang2023]: 10).
  double lambda = 10.0;
};

class TunaMhKernel final : public Kernel {
 public:
  // Keeps references: model, bound (the same object as model, seen as a RatioBound) and data
  // must outlive the kernel. Computes the per-row bounds once (DataError from the model for a row
  // outside its declared range). ConfigError when λ is not finite and > 0, a scale is not finite
  // and > 0, or its size is neither 1 nor dim.
  TunaMhKernel(const Model& model, const RatioBound& bound, const Dataset& data,
               TunaMhConfig config);

  std::string name() const override { return "tunamh"; }
  int dim() const override { return model_.dim(); }
  // batch_size__: B, the rows evaluated; minibatch_size__: |I|, the rows kept; batch_mean__:
  // E[B | θ, θ′] = λ + C M(θ, θ′) (0 when the proposal left the prior's support: no batch drawn).
  std::vector<std::string> extra_columns() const override {
    return {"batch_size__", "minibatch_size__", "batch_mean__"};
  }

  // ConfigError when θ0 has the wrong size, is not finite, or has prior density 0.
  void init(const Vec& theta0) override;
  // lp__ is NaN: the exact log density needs a pass over all rows, which TunaMH exists to avoid.
  TransitionInfo transition(Rng& rng, std::span<double> extras) override;
  const Vec& position() const override { return theta_; }

  // C = Σ c_i (tempered).
  double total_bound() const { return total_; }
  // c_i (tempered), one per row.
  const Vec& row_bounds() const { return c_; }
  double lambda() const { return lambda_; }
  const Vec& scale() const { return scale_; }

 private:
  const Model& model_;
  const RatioBound& bound_;
  const Dataset& data_;
  double lambda_, temperature_;
  Vec scale_;
  Vec c_;  // tempered c_i
  double total_ = 0.0;
  std::optional<AliasTable> alias_;  // absent when C = 0 (no row can move the likelihood)
  Vec theta_, proposal_;
  double log_prior_ = 0.0;
  bool initialised_ = false;
  // Scratch, reused across transitions (no allocation once grown).
  std::vector<std::size_t> index_;
  Mat rows_;
  Vec llr_;
};

// A TunaMH kernel for `model` given `data` (model and data must outlive it). ConfigError when
// the model does not implement RatioBound ([ZhangZhang2023] Assumption 1), or as TunaMhKernel.
std::unique_ptr<Kernel> make_tunamh(const Model& model, const Dataset& data, TunaMhConfig config);

}  // namespace dpmcmc
