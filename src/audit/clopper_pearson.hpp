// One-sided Clopper–Pearson bounds on a binomial proportion (Clopper and Pearson 1934): the
// auditor's confidence bounds on a test's false positive and false negative rates. With k
// successes in n trials, the upper bound u at level β is the p with P(Bin(n, p) ≤ k) = β, i.e.
// the (1 − β) quantile of Beta(k + 1, n − k) (1 when k = n); the lower bound is the β quantile of
// Beta(k, n − k + 1) (0 when k = 0). P(p > u) ≤ β whatever p is: the bound is exact, not
// asymptotic, which matters in the tails where an audit's rates are a few per million.
#pragma once

#include <cstdint>

namespace dpmcmc {

// ConfigError unless k ≤ n, n ≥ 1 and 0 < β < 1.
double clopper_pearson_upper(std::uint64_t k, std::uint64_t n, double beta);
double clopper_pearson_lower(std::uint64_t k, std::uint64_t n, double beta);

}  // namespace dpmcmc
