// DP Barker ([Raisa2021] Section 3.3, Algorithm 3; [Raisa2021short] Section 3.2;
// after Heikkilä et al. 2019).
//
// One transition from θ:
//   1. propose θ′ = θ + scale ⊙ z, z ~ N(0, I) (algorithm stream; symmetric, so the proposal term
//      ln q(θ|θ′)/q(θ′|θ) of λ is 0);
//   2. one release PrivateData::llr_batch_barker: a secret batch of b rows (without replacement),
//      ratios clipped to ±√b/n0 (n0 = nT), λ_B = (nT/b)Σ r_j, σ_b² = ((nT)²/b)var(r) ≤ 1, and
//        Y = λ_B + N(0, σ² − σ_b²) + V_corr,
//      V_corr ~ the fitted correction of samplers/logistic_correction.hpp, drawn from the privacy
//      noise stream inside the release;
//   3. accept iff Y + log p(θ′) − log p(θ) > 0.
// By the CLT λ_B ≈ N(λ, σ_b²) around the full-data λ, so λ_B + N(0, σ² − σ_b²) ≈ λ + N(0, σ²) and
// N(0, σ²) + V_corr ≈ Logistic(0, 1): the test accepts with probability ≈ 1/(1 + e^{−λ*}) (λ* with
// the prior term), Barker's rule, which is reversible with respect to the (tempered, clipped)
// posterior. The approximations: the CLT over the batch, and the V_corr fit (its CDF error,
// LogisticCorrection::fit().cdf_sup, bounds the error of the acceptance probability at fixed λ).
//
// Every proposal makes a release, except those the public prior rules out (rejected without one)
// and a zero step θ′ = θ (accepted without one): samplers/private_mh_kernel.hpp.
// The chain never stops early and never truncates: σ_b² ≤ 1 < σ² holds by construction of the clip
// bound and is checked in the release (a violation is a bug, SoftwareError), so the noise
// variance σ² − σ_b² is always positive.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/rng.hpp"
#include "core/types.hpp"
#include "models/model.hpp"
#include "privacy/private_data.hpp"
#include "samplers/logistic_correction.hpp"
#include "samplers/private_mh_kernel.hpp"

namespace dpmcmc {

struct DpBarkerConfig {
  // Proposal standard deviation per component; size 1 (the same for all) or dim.
  Vec scale = Vec::Constant(1, 0.1);
  double noise_variance = 2.0;  // σ², 1 < σ² < π²/3 (the thesis and Theorem 3.3 use 2)
  std::size_t batch = 1300;  // b, 6 ≤ b ≤ n, and b(σ² − 1) > 15 (an order for Theorem 3.3)
  // The fitted V_corr for σ², shared by the chains of a run (run/barker_setup.cpp fits it once);
  // null: the kernel fits its own. Must be a fit for noise_variance with default settings.
  std::shared_ptr<const LogisticCorrection> correction;
};

class DpBarkerKernel final : public PrivateMhKernel {
 public:
  // ConfigError naming --noise-variance, --batch (with n), the proposal sd, or the tempering
  // (T > 1, i.e. n0 > n) when out of range. `model` must outlive the kernel, and so must `data` in
  // the borrowing form. Fits V_corr for σ² unless the config carries the fit.
  DpBarkerKernel(const Model& model, PrivateData& data, DpBarkerConfig config);
  DpBarkerKernel(const Model& model, std::unique_ptr<PrivateData> data, DpBarkerConfig config);

  std::string name() const override { return "dp-barker"; }
  // Columns {"clip_frac__", "noise_sd__", "eps_spent__"}: the share of the batch's ratios clipped
  // (curator-only), σ of the test noise (√σ², public; 0 when no release was made), the spend.
  // σ_b² is NOT a column: it is a function of the private batch that the release does not
  // publish (only λ_B + N(0, σ² − σ_b²) is covered by Theorem 3.3). accept_stat__ is the accept
  // indicator (0 or 1).
  const LogisticCorrection& correction() const { return *correction_; }
  // √b/n0: the clip bound on each row's untempered log-likelihood ratio.
  double clip_bound() const { return clip_; }

 private:
  void setup();
  // Steps 2–3 of the box above.
  AcceptDecision noisy_test(const NoisyMove& move, Rng& rng, std::span<double> columns) override;

  DpBarkerConfig config_;
  std::shared_ptr<const LogisticCorrection> correction_;
  std::function<double(NoiseRng&)> draw_correction_;
  double clip_ = 0.0;
};

}  // namespace dpmcmc
