// Numeric helpers that must not overflow or lose all digits in the tails: the privacy
// accountants evaluate δ down to 1e-300 and ε up to 1e4 (issue "Privacy accounting toolkit").
#pragma once

#include <span>

namespace dpmcmc {

// log(exp(a) + exp(b)) without overflow; -inf is the identity.
double log_add_exp(double a, double b);
// log(exp(a) − exp(b)) for a ≥ b; returns -inf when a == b.
double log_sub_exp(double a, double b);
// log Σ exp(x_i); -inf for an empty span.
double log_sum_exp(std::span<const double> x);
// log erfc(x) for every finite x: direct where erfc(x) is representable with full relative
// accuracy, an asymptotic series beyond (x > 26, where erfc underflows).
double log_erfc(double x);
// log Φ(x), the standard normal log-CDF, accurate in the far left tail.
double log_normal_cdf(double x);
// log R(t) = log(Φ(−t)/φ(t)), the log of the normal Mills ratio, for every finite t ≥ 0 (about
// −log t for large t, where Φ(−t) and φ(t) both underflow).
double log_mills_ratio(double t);

}  // namespace dpmcmc
