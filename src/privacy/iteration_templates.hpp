// Per-iteration privacy event templates of the thesis' algorithms, for the planner and for
// `dpmcmc account --algorithm …`. Releases are normalised to unit sensitivity (the clip bound and
// ‖θ − θ′‖ scale both the sensitivity and the noise, so only their ratio matters; see
// [Raisa2021] proofs of Theorems 3.2 and 4.3), under the substitute relation the
// thesis uses. A sampler's recorded events (sensitivity 2b‖θ − θ′‖, noise 2τ√n·b‖θ − θ′‖, …)
// have the same noise multipliers, so planned and recorded spends agree.
#pragma once

#include <cstdint>
#include <vector>

#include "privacy/privacy_event.hpp"

namespace dpmcmc {

// DP penalty ([Raisa2021] Theorems 3.1 and 3.2): one log-likelihood-ratio release
// per iteration with noise multiplier τn^α (α = ½ in the thesis' experiments). Label "llr_sum".
// ConfigError unless τ > 0, n > 0, α > 0.
std::vector<PrivacyEvent> dp_penalty_template(double tau, double n, double alpha = 0.5);

// DP HMC ([Raisa2021] Theorems 4.2 and 4.3; Algorithm 4): per iteration one
// log-likelihood-ratio release with multiplier τ_l√n ("llr_sum") and L + 1 gradient releases
// with multiplier τ_g√n ("grad_sum", count L + 1). ConfigError unless τ_l, τ_g, n > 0.
std::vector<PrivacyEvent> dp_hmc_template(double tau_l, double tau_g, std::uint64_t leapfrog_steps,
                                          double n);

// Noisy sufficient statistics released once (models/noisy_statistics.hpp): one Gaussian release
// of the statistic vector with noise multiplier z. Label "suff_stat". ConfigError unless z > 0.
std::vector<PrivacyEvent> noisy_statistics_template(double noise_multiplier);

// The same budget split into `pilots` pilot releases and a final one (dp-nss on a logistic or
// poisson regression, models/noisy_statistics.hpp): the pilots take `share` of zCDP's ρ = 1/(2z²)
// equally and the final release the rest, so
//   z_pilot = z √(pilots / share),  z_final = z / √(1 − share),
// and Σ 1/z_k² = 1/z²: the Gaussian releases compose to the one release of multiplier z under
// the exact Gaussian PLD (Dong, Roth and Su 2022, Corollary 3.3: μ = √Σμ_k²), so the split costs
// nothing in ε. ConfigError unless z > 0 and, with pilots, 0 < share < 1.
struct StagedNoise {
  double pilot = 0.0, final = 0.0;
};
StagedNoise staged_noise(double noise_multiplier, std::uint64_t pilots, double share);
// Its template: the pilots' event (count `pilots`, omitted without pilots), then the final's.
std::vector<PrivacyEvent> noisy_statistics_template(double noise_multiplier, std::uint64_t pilots,
                                                    double share);

}  // namespace dpmcmc
