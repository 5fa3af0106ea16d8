// The input of every per-parameter diagnostic: the draws of ONE scalar quantity from M chains,
// held as an N × M matrix (row = iteration, column = chain). Eigen stores it column-major, so
// each chain is contiguous. All chains must have the same number of draws, as in the posterior
// R package (whose draws_array cannot hold ragged chains); stack_chains refuses ragged input
// rather than silently truncating (which is what Stan's C++ analysis code does).
//
// Definitions follow posterior ≥ 1.5 (Vehtari, Gelman, Simpson, Carpenter, Bürkner 2021,
// "Rank-normalization, folding, and localization: an improved R-hat", Bayesian Analysis 16(2)).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "core/types.hpp"

namespace dpmcmc {

// Draws of one parameter: draws × chains.
using ChainDraws = Eigen::Ref<const Mat>;

// Stacks per-chain vectors into a draws × chains matrix. Throws DataError when the list is
// empty, a chain is empty, or the chains differ in length (the message names the chains, using
// labels[c] when given, e.g. the file each chain was read from).
Mat stack_chains(std::span<const Vec> chains, std::span<const std::string> labels = {});

// posterior's .split_chains: each chain of N draws becomes two chains, draws [0, ⌊N/2⌋) and
// [⌈N/2⌉, N) (0-based), so that for odd N the middle draw is dropped. N == 1 is left unsplit.
Mat split_chains(const ChainDraws& draws);

// True when every entry is finite.
bool all_finite(const ChainDraws& draws);

// posterior's is_constant: max − min < DBL_EPSILON (an absolute tolerance, as there).
bool is_constant(const ChainDraws& draws);

// Draws folded around the median of all draws, |x − median| (for the tail R-hat).
Mat fold_draws(const ChainDraws& draws);

}  // namespace dpmcmc
