// Potential scale reduction R̂ (Vehtari et al. 2021; posterior ≥ 1.5 rhat, rhat_basic).
// Input: draws × chains of one parameter. NaN when a draw is non-finite or all draws are equal;
// rhat_classic and rhat_basic give +∞ when every chain is constant but not all at one value (no
// within-chain variance: chains that never moved, each from its own start; the formula below
// with W = 0). rhat() then gives +∞ or NaN: folding about the median can make the chains equal
// (two chains fold to the same distance, up to rounding), and the tail R̂ is then undefined.
#pragma once

#include "diagnostics/chains.hpp"

namespace dpmcmc {

// The classic R̂ of the chains as given (Gelman et al., BDA3 eq. 11.4; posterior's .rhat):
//   B = N · var(chain means), W = mean of the chains' variances (denominators M−1 and N−1),
//   R̂ = sqrt(((N−1)/N · W + B/N) / W).
double rhat_classic(const ChainDraws& draws);

// posterior's rhat_basic: rhat_classic of the split chains (split = true) or as given.
double rhat_basic(const ChainDraws& draws, bool split = true);

// Rank-normalised split R̂ of the bulk: rhat_classic(z_scale(split_chains(x))).
double rhat_bulk(const ChainDraws& draws);

// Rank-normalised split R̂ of the tails: the same on the draws folded around their median,
// |x − median(x)| (median of all draws).
double rhat_tail(const ChainDraws& draws);

// The R̂ to report: max(rhat_bulk, rhat_tail) (Vehtari et al. 2021, Section 4.2).
double rhat(const ChainDraws& draws);

}  // namespace dpmcmc
