// The running spend of one chain for the eps_spent__ draw column: ε(δ) of the events a chain has
// recorded so far, evaluated after every transition, so it must cost microseconds, not an FFT.
//   * Only full-batch Gaussian releases: the closed-form Gaussian PLD (gaussian_pld.hpp), exact.
//   * Otherwise (subsampled releases): RDP at the default order grid without refinement, each
//     distinct release's curve computed once and cached, then scaled by its count (RDP composes
//     additively). A certified upper bound, usually a little above the run's tightest figure.
//   * Only (ε, δ)-certified releases (approximate_dp: DP-Fast MH, DP Barker): the better of basic
//     and advanced composition of the certificates (composition.hpp), from running sums.
// The run's certified total, with every accountant, is in the report; this column is a progress
// gauge of one chain.
#pragma once

#include <map>
#include <tuple>
#include <vector>

#include "privacy/event_log.hpp"

namespace dpmcmc {

class SpendMeter {
 public:
  // ConfigError unless δ ∈ (0, 1).
  explicit SpendMeter(double delta);

  // ε(δ) of `log`'s events (0 for an empty log; +∞ for events neither route interprets).
  double epsilon(const EventLog& log);

 private:
  double delta_;
  // RDP per order of one release, keyed by (kind, q, σ/Δ, relation).
  std::map<std::tuple<int, double, double, int>, std::vector<double>> curves_;
  std::vector<double> orders_;
};

}  // namespace dpmcmc
