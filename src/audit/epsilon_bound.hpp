// From two samples of a mechanism's output statistics — trials on a dataset D and on its
// neighbour D′ — to a lower bound on the ε the mechanism can have at δ (the auditor's estimate;
// docs/privacy-accounting.md, "Auditing").
//
// Threshold tests (Jagielski, Ullman and Oprea 2020; Nasr et al. 2021): a test decides "D′" when
// the event E = {s > t} (or {s ≤ t}) of one statistic s happens. (ε, δ)-DP requires, for every E,
//   P_{D′}(E) ≤ e^ε P_D(E) + δ,  i.e.  ε ≥ log((1 − δ − FNR) / FPR),
// with FPR = P_D(E) and FNR = P_{D′}(not E), and the same with D and D′ exchanged. With upper
// Clopper–Pearson bounds on FPR and FNR, each at level β/2,
//   ε_lb = log((1 − δ − FNR_upper) / FPR_upper)
// is below the mechanism's true ε with probability ≥ 1 − β (union bound).
//
// The test is chosen and judged on different trials: the first half of the trials selects the
// statistic, the threshold, the direction of E and the roles of D and D′ (the largest
// Clopper–Pearson-penalised bound among a tail-heavy grid of thresholds), and only the second
// half's counts enter ε_lb. Selecting on the same trials that are judged would make the
// confidence claim false (the maximum of many noisy bounds is biased upwards).
//
// The hockey-stick estimate is a plug-in: the pooled sample's equal-mass bins, p_b and q_b the
// two samples' frequencies, δ̂(ε) = max over both orders of Σ_b max(0, p_b − e^ε q_b), and ε̂ the
// smallest ε with δ̂(ε) ≤ δ. It has no confidence statement (binning smooths the tails and
// sampling noise inflates them); it is reported beside ε_lb as a second look.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/types.hpp"

namespace dpmcmc {

// trials × statistics; row i is trial i's statistics.
struct AuditSamples {
  std::vector<std::string> names;
  Mat on_d;
  Mat on_d_prime;
};

struct ThresholdTest {
  std::size_t statistic = 0;
  double threshold = 0.0;
  bool above = true;     // E = {s > threshold}; false: E = {s <= threshold}
  bool swapped = false;  // false: E is evidence for D′; true: for D (roles exchanged)
};

struct EpsilonLowerBound {
  double epsilon = 0.0;  // ε_lb (0 when no test shows anything)
  ThresholdTest test;
  std::string statistic;
  double fpr = 0.0, fnr = 0.0;  // point estimates on the judged half
  double fpr_upper = 1.0, fnr_upper = 1.0;
  std::uint64_t selection_trials = 0, judged_trials = 0;
};

// ConfigError unless both samples have the same shape with ≥ 4 trials and ≥ 1 statistic,
// 0 ≤ δ < 1 and 0 < β < 1.
EpsilonLowerBound epsilon_lower_bound(const AuditSamples& samples, double delta, double beta);

// The Clopper–Pearson-penalised bound of one test on trial rows [begin, end) of both samples.
double penalised_bound(const AuditSamples& samples, const ThresholdTest& test, double delta,
                       double beta, Eigen::Index begin, Eigen::Index end);

struct HockeyStickEstimate {
  double epsilon = 0.0;  // ε̂ at δ (a plug-in estimate; +∞ when δ̂ > δ even at ε = 50)
  std::size_t bins = 0;
};

// The plug-in estimate above for column `statistic` over all trials.
HockeyStickEstimate hockey_stick_estimate(const AuditSamples& samples, std::size_t statistic,
                                          double delta);

// The (FPR, FNR) pairs of the thresholds of column `statistic` over all trials, E as in `test`:
// the empirical trade-off curve of the chosen test, `points` thresholds at pooled quantiles.
std::vector<std::pair<double, double>> tradeoff_curve(const AuditSamples& samples,
                                                      const ThresholdTest& test,
                                                      std::size_t points);

}  // namespace dpmcmc
