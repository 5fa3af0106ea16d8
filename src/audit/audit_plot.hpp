// The audit's figure: the empirical trade-off curve (FPR, FNR) of the chosen test against the
// curve the certificate allows. (ε, δ)-DP bounds every test's false negative rate from below by
//   FNR ≥ max(0, 1 − δ − e^ε FPR, e^{−ε} (1 − δ − FPR))
// (Kairouz, Oh and Viswanath 2015); an empirical point below that curve, beyond sampling error,
// is what a violation looks like.
#pragma once

#include <filesystem>

#include "audit/audit_run.hpp"

namespace dpmcmc {

// The least FNR that (ε, δ)-DP allows at `fpr`.
double certified_fnr(double fpr, double epsilon, double delta);

// Writes DIR/tradeoff.dat, DIR/certified.dat and DIR/tradeoff.gp, and runs gnuplot to draw
// DIR/tradeoff.svg. OutputError when DIR cannot be written; ConfigError (how to install it)
// without gnuplot.
std::filesystem::path write_audit_plot(const AuditOutcome& outcome,
                                       const std::filesystem::path& dir);

}  // namespace dpmcmc
