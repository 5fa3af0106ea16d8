// Monte Carlo standard errors (posterior ≥ 1.5 mcse_mean, mcse_sd; CmdStan stansummary's MCSE).
// Input: draws × chains of one parameter. NaN under the same conditions as the ESS.
#pragma once

#include "diagnostics/chains.hpp"

namespace dpmcmc {

// Sample standard deviation of all draws pooled (denominator S − 1), the StdDev column.
double pooled_sd(const ChainDraws& draws);

// posterior's mcse_mean: pooled_sd / sqrt(ess_mean) (ess_mean = split, not rank-normalised).
double mcse_mean(const ChainDraws& draws);

// posterior's mcse_sd (≥ 1.5, Kenney & Keeping 1951, p. 141, without assuming normality): with
// c = x − mean(x), E = mean(c²), ESS = ess_mean(c²),
//   Var(var̂) ≈ (mean(c⁴) − E²)/ESS,  MCSE(sd) = sqrt(Var(var̂) / (4E))   (first-order delta).
double mcse_sd(const ChainDraws& draws);

// CmdStan 2.35 stansummary's MCSE column: pooled_sd / sqrt(stansummary_ess(x)).
double stansummary_mcse(const ChainDraws& draws);

}  // namespace dpmcmc
