// The running spend of one chain for the eps_spent__ draw column: ε(δ) of the events a chain has
// recorded so far, evaluated after every transition, so it must cost microseconds, not an FFT.
//   * Only full-batch Gaussian releases: the closed-form Gaussian PLD (gaussian_pld.hpp), exact.
//   * Otherwise (subsampled releases): RDP at the default order grid without refinement, each
//     distinct release's curve computed once and cached, then scaled by its count (RDP composes
//     additively). A certified upper bound, usually a little above the run's tightest figure.
//   * Only (ε, δ)-certified releases (approximate_dp: DP-Fast MH, DP Barker): the best of basic
//     and advanced composition of the certificates (composition.hpp, from running sums) and of
//     Kairouz–Oh–Viswanath's optimal composition of the count at the largest (ε, δ), as the
//     classical accountant certifies. KOV costs O(k) per evaluation, so it is evaluated at grid
//     counts g_j = ⌈r^j⌉ (r = kKovGridRatio) only, at the smallest g_j ≥ the count (capped at
//     kOptimalCompositionMaxK; an upper bound, since k releases padded with g − k trivial ones
//     are a g-fold composition) and cached: at most a few percent above the exact value rather
//     than the tens of percent of advanced composition.
//     DP Barker's events are also composed as the barker-rdp accountant composes them (Theorem 3.3
//     of the DP Barker paper in RDP; each distinct release's curve computed once and kept), and
//     the smaller value is shown: the run is planned by barker-rdp, so the classical route alone
//     showed a spend ten times the certified one (242 against 20 on the mixture at ε = 20).
// The run's certified total, with every accountant, is in the report; this column is a progress
// gauge of one chain.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <tuple>
#include <vector>

#include "privacy/event_log.hpp"

namespace dpmcmc {

// Ratio of the grid counts at which the meter evaluates the optimal composition.
inline constexpr double kKovGridRatio = 1.05;

// The smallest count ⌈r^j⌉ (r = kKovGridRatio, j ≥ 0) that is at least k ≥ 1; UINT64_MAX when
// that count would not fit in 64 bits.
std::uint64_t kov_grid_count(std::uint64_t k);

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
  // KOV ε(δ) keyed by (ε, δ, grid count).
  std::map<std::tuple<double, double, std::uint64_t>, double> kov_;
  double kov_epsilon(double epsilon, double delta, std::uint64_t count);
  // DP Barker's per-iteration RDP curves, keyed by (q, batch, σ²).
  std::map<std::tuple<double, std::size_t, double>, std::vector<double>> barker_curves_;
  // ε(δ) of `events` by the barker-rdp accountant's route; +∞ unless every event is Barker's.
  double barker_epsilon_of(std::span<const PrivacyEvent> events);
};

}  // namespace dpmcmc
