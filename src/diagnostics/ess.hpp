// Effective sample sizes (Vehtari et al. 2021, Sections 3.2 and 4; posterior ≥ 1.5 .ess and the
// functions built on it). Input: draws × chains of one parameter (diagnostics/chains.hpp).
// Every function returns NaN when a draw is non-finite, when there are fewer than 3 draws per
// (split) chain, or when all draws are equal (posterior returns NA in these cases).
#pragma once

#include "diagnostics/chains.hpp"

namespace dpmcmc {

// The multi-chain ESS of Vehtari et al. (2021, Section 3.2), exactly as posterior's .ess, on
// the chains as given (no splitting, no rank normalisation):
//   W = mean of the chains' N-denominator autocovariance at lag 0 times N/(N−1),
//   var⁺ = W (N−1)/N + var(chain means) [the latter only for M > 1, denominator M−1],
//   ρ̂_t = 1 − (W − mean_chains γ̂_t)/var⁺,
// Geyer's initial positive sequence on the pairs (ρ̂_{2k}, ρ̂_{2k+1}) (stopping before the last
// 4 lags), then the initial monotone sequence, τ̂ = −1 + 2 Σ_{t<T} ρ̂_t + ρ̂_T⁺ (the "improved"
// antithetic-friendly estimate), τ̂ ≥ 1/log10(NM), ESS = NM/τ̂.
double ess_geyer(const ChainDraws& draws);

// Where Stan's C++ (stan::analyze::compute_effective_sample_size, used by CmdStan 2.35's
// stansummary) differs from posterior: when the initial positive sequence never turns negative
// before the length limit (chains that barely move, e.g. a step size constant within each chain),
// Stan's sum runs over one more lag, τ̂_Stan = τ̂_posterior + 2 ρ̂_T. Otherwise they agree.
// (Stan also lets a negative τ̂ through its cap; both variants here clamp τ̂ ≥ 1/log10(NM).)
enum class GeyerTruncation { posterior, stan };
double ess_geyer(const ChainDraws& draws, GeyerTruncation truncation);

// posterior's ess_basic: ess_geyer of the split chains (split = true) or of the chains as
// given (split = false). ess_basic(x, false) is the N_Eff column of CmdStan's stansummary
// except in the corner case described at GeyerTruncation (see stansummary_ess).
double ess_basic(const ChainDraws& draws, bool split = true);

// CmdStan 2.35 stansummary's N_Eff: ess_geyer of the unsplit chains with Stan's truncation.
double stansummary_ess(const ChainDraws& draws);

// posterior's ess_mean: ess_basic(x, true); the ESS used for the MCSE of the mean.
double ess_mean(const ChainDraws& draws);

// Bulk-ESS: ess_geyer of the rank-normalised (z_scale) split chains.
double ess_bulk(const ChainDraws& draws);

// ESS of the quantile p: ess_geyer of the split chains of the indicator I(x ≤ Q(p)), Q the
// type-7 quantile of all draws (diagnostics/quantile.hpp). p = 1 is replaced by (S − ½)/S.
double ess_quantile(const ChainDraws& draws, double p);

// Tail-ESS: min(ess_quantile(x, 0.05), ess_quantile(x, 0.95)).
double ess_tail(const ChainDraws& draws);

// posterior's ess_sd: ess_geyer of the split chains of |x − mean(x)|.
double ess_sd(const ChainDraws& draws);

}  // namespace dpmcmc
