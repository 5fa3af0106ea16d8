// Sample quantiles of all draws pooled over chains.
#pragma once

#include "core/types.hpp"

namespace dpmcmc {

// Hyndman & Fan (1996) type 7, the default of R's quantile(), of numpy.quantile and hence of the
// posterior package and ArviZ: with the n pooled draws sorted, x_(1) ≤ … ≤ x_(n), and
// h = (n − 1)p, Q(p) = (1 − f) x_(⌊h⌋+1) + f x_(⌊h⌋+2), f = h − ⌊h⌋ (1-based order statistics).
// p ∈ [0, 1]; throws UsageError otherwise, DataError for an empty sample. NaN if any draw is NaN.
double quantile(const Eigen::Ref<const Mat>& draws, double p);

// Several probabilities with one sort.
Vec quantiles(const Eigen::Ref<const Mat>& draws, const Vec& probs);

// The quantile printed by CmdStan 2.35's stansummary (stan::mcmc::chains::quantiles, built on
// boost::accumulators' tail_quantile with a cache holding every draw). No interpolation: with
// S sorted pooled draws x_(1) ≤ … ≤ x_(S),
//   p < 1/2:  x_(k),          k = ⌈S p⌉          (left tail: k-th smallest)
//   p ≥ 1/2:  x_(S + 1 − k),  k = ⌈S (1 − p)⌉    (right tail: k-th largest)
// with 1 − p evaluated in double precision as boost does (so for S = 4000, p = 0.95 gives
// k = ⌈200.0000000000002⌉ = 201, i.e. x_(3800)). k is clamped to [1, S] (boost returns NaN
// outside its cache). Reproduces the 5%, 50%, 95% columns of the fixture
// tests/fixtures/stan-bernoulli/stansummary-2.35.csv exactly, which type 7 does not.
double stansummary_quantile(const Eigen::Ref<const Mat>& draws, double p);

}  // namespace dpmcmc
