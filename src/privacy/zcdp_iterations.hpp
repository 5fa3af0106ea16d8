// The thesis' closed-form iteration counts under zCDP accounting ([Raisa2021]).
// Both follow from the zCDP budget ρ = (√(ε − ln δ) − √(−ln δ))² (zcdp_rho_budget) divided by
// the zCDP cost of one iteration; the generic planner with the "zcdp" accountant and the
// templates of iteration_templates.hpp must give the same counts (tested).
#pragma once

#include <cstdint>

namespace dpmcmc {

// Theorem 3.1 (DP penalty, substitute relation): noise variance σ² = τ²n^{2α}c²(θ, θ′) on a
// log-likelihood ratio of sensitivity c(θ, θ′), i.e. a unit-sensitivity release with noise τn^α
// and zCDP cost 1/(2τ²n^{2α}) per iteration; hence k = ⌊2τ²n^{2α}ρ⌋.
// Requires ε > 0, 0 < δ < 1, τ > 0, n > 0, α > 0 (ConfigError otherwise).
std::uint64_t dp_penalty_iterations_zcdp(double epsilon, double delta, double tau, double n,
                                         double alpha = 0.5);

// Theorem 4.2 (DP HMC, substitute relation): per iteration one log-likelihood-ratio release with
// zCDP cost ρ_l = 1/(2τ_l²n) and L + 1 gradient releases with ρ_g = 1/(2τ_g²n);
// k = ⌊ρ/(ρ_l + (L + 1)ρ_g)⌋. Requires ε > 0, 0 < δ < 1, τ_l, τ_g > 0, n > 0 (ConfigError).
std::uint64_t dp_hmc_iterations_zcdp(double epsilon, double delta, double tau_l, double tau_g,
                                     std::uint64_t leapfrog_steps, double n);

}  // namespace dpmcmc
