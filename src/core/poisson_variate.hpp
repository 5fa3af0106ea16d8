// Exact Poisson variates on the algorithm stream (Rng has none, and <random>'s distributions are
// implementation-defined, docs/architecture.md). TunaMH draws its batch size B ~ Poisson(λ + C·M(θ,
// θ′)) every iteration ([ZhangZhang2023] Algorithm 1), with means from below 1 to 10⁵ and
// more.
//
// Two exact methods:
//  - mean < 10: inversion by sequential search, P(k) = e^{−μ} μ^k / k! accumulated until it
//    exceeds a uniform (Devroye 1986, "Non-Uniform Random Variate Generation", Section X.3.2);
//    expected work 1 + μ steps.
//  - mean ≥ 10: PTRS, the transformed rejection method with squeeze of W. Hörmann, "The
//    transformed rejection method for generating Poisson random variables", Insurance:
//    Mathematics and Economics 12 (1993) 39–45 — a hat built from the transformation
//    k = ⌊(2a/(½ − |u|) + b) u + μ + 0.43⌋, accepted against the pmf in log space; its constants
//    are the paper's, valid for μ ≥ 10; expected ≈ 1.15 uniform pairs per variate.
#pragma once

#include <cstdint>

#include "core/rng.hpp"

namespace dpmcmc {

// One Poisson(mean) variate. ConfigError unless mean is finite and ≥ 0 (mean 0 gives 0).
std::uint64_t poisson_variate(Rng& rng, double mean);

}  // namespace dpmcmc
