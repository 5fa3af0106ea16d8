#include "audit/epsilon_bound.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "audit/clopper_pearson.hpp"
#include "core/error.hpp"

namespace dpmcmc {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

void check_samples(const AuditSamples& s, double delta, double beta) {
  if (s.on_d.rows() != s.on_d_prime.rows() || s.on_d.cols() != s.on_d_prime.cols() ||
      s.on_d.rows() < 4 || s.on_d.cols() < 1 ||
      static_cast<std::size_t>(s.on_d.cols()) != s.names.size()) {
    throw ConfigError(fmt::format(
        "audit: expected two samples of the same shape with >= 4 trials and >= 1 named "
        "statistic, got {}x{} and {}x{} with {} names",
        s.on_d.rows(), s.on_d.cols(), s.on_d_prime.rows(), s.on_d_prime.cols(), s.names.size()));
  }
  if (!(delta >= 0.0 && delta < 1.0) || !(beta > 0.0 && beta < 1.0)) {
    throw ConfigError(
        fmt::format("audit: expected 0 <= delta < 1 and 0 < beta < 1, got {} and {}", delta, beta));
  }
}

// log((1 − δ − FNR_u) / FPR_u) with Clopper–Pearson bounds at β/2 each (−∞ when the numerator
// is not positive).
double bound_of_counts(std::uint64_t false_pos, std::uint64_t false_neg, std::uint64_t trials,
                       double delta, double beta) {
  const double fpr_u = clopper_pearson_upper(false_pos, trials, beta / 2.0);
  const double fnr_u = clopper_pearson_upper(false_neg, trials, beta / 2.0);
  const double num = 1.0 - delta - fnr_u;
  if (!(num > 0.0)) return -kInf;
  return std::log(num / fpr_u);
}

// How many of the sorted values are > t.
std::uint64_t count_above(const std::vector<double>& sorted, double t) {
  return static_cast<std::uint64_t>(sorted.end() -
                                    std::upper_bound(sorted.begin(), sorted.end(), t));
}

// (false positives, false negatives) of `test` given the counts above its threshold of the two
// samples (`n` trials each).
std::pair<std::uint64_t, std::uint64_t> errors(const ThresholdTest& test, std::uint64_t above_d,
                                               std::uint64_t above_dp, std::uint64_t n) {
  // E happens under D (a false positive when E is evidence for D′) and misses under D′.
  std::uint64_t in_e_d = test.above ? above_d : n - above_d;
  std::uint64_t in_e_dp = test.above ? above_dp : n - above_dp;
  if (test.swapped) std::swap(in_e_d, in_e_dp);
  return {in_e_d, n - in_e_dp};
}

std::vector<double> sorted_column(const Mat& m, Eigen::Index col, Eigen::Index begin,
                                  Eigen::Index end) {
  std::vector<double> v(static_cast<std::size_t>(end - begin));
  for (Eigen::Index i = begin; i < end; ++i) v[static_cast<std::size_t>(i - begin)] = m(i, col);
  std::sort(v.begin(), v.end());
  return v;
}

std::vector<double> merged(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> out(a.size() + b.size());
  std::merge(a.begin(), a.end(), b.begin(), b.end(), out.begin());
  return out;
}

// Quantile levels dense in both tails (where a Gaussian mechanism's best threshold lies) and
// even in the middle.
std::vector<double> threshold_levels(std::size_t pooled) {
  std::vector<double> levels;
  const double smallest = 1.0 / static_cast<double>(pooled);
  for (double l = smallest; l < 0.5; l *= 1.25) {
    levels.push_back(l);
    levels.push_back(1.0 - l);
  }
  for (int i = 1; i < 20; ++i) levels.push_back(i / 20.0);
  return levels;
}

double at_level(const std::vector<double>& sorted, double level) {
  const auto i = std::min(sorted.size() - 1,
                          static_cast<std::size_t>(level * static_cast<double>(sorted.size())));
  return sorted[i];
}

}  // namespace

double penalised_bound(const AuditSamples& samples, const ThresholdTest& test, double delta,
                       double beta, Eigen::Index begin, Eigen::Index end) {
  const auto col = static_cast<Eigen::Index>(test.statistic);
  std::uint64_t above_d = 0, above_dp = 0;
  for (Eigen::Index i = begin; i < end; ++i) {
    above_d += samples.on_d(i, col) > test.threshold ? 1 : 0;
    above_dp += samples.on_d_prime(i, col) > test.threshold ? 1 : 0;
  }
  const auto n = static_cast<std::uint64_t>(end - begin);
  const auto [fp, fn] = errors(test, above_d, above_dp, n);
  return bound_of_counts(fp, fn, n, delta, beta);
}

EpsilonLowerBound epsilon_lower_bound(const AuditSamples& samples, double delta, double beta) {
  check_samples(samples, delta, beta);
  const Eigen::Index trials = samples.on_d.rows();
  const Eigen::Index half = trials / 2;
  const auto n_sel = static_cast<std::uint64_t>(half);

  ThresholdTest best;
  double best_score = -kInf;
  for (Eigen::Index col = 0; col < samples.on_d.cols(); ++col) {
    const auto d = sorted_column(samples.on_d, col, 0, half);
    const auto dp = sorted_column(samples.on_d_prime, col, 0, half);
    const auto pooled = merged(d, dp);
    for (const double level : threshold_levels(pooled.size())) {
      const double t = at_level(pooled, level);
      const std::uint64_t above_d = count_above(d, t), above_dp = count_above(dp, t);
      for (const bool above : {true, false}) {
        for (const bool swapped : {false, true}) {
          const ThresholdTest test{static_cast<std::size_t>(col), t, above, swapped};
          const auto [fp, fn] = errors(test, above_d, above_dp, n_sel);
          const double score = bound_of_counts(fp, fn, n_sel, delta, beta);
          if (score > best_score) {
            best_score = score;
            best = test;
          }
        }
      }
    }
  }

  // Judged on the second half only.
  EpsilonLowerBound out;
  out.test = best;
  // No test scored above −∞ (every candidate's error bounds sum past 1 − δ): nothing was chosen.
  out.statistic = std::isfinite(best_score) ? samples.names[best.statistic] : "none";
  out.selection_trials = n_sel;
  out.judged_trials = static_cast<std::uint64_t>(trials - half);
  const auto col = static_cast<Eigen::Index>(best.statistic);
  std::uint64_t above_d = 0, above_dp = 0;
  for (Eigen::Index i = half; i < trials; ++i) {
    above_d += samples.on_d(i, col) > best.threshold ? 1 : 0;
    above_dp += samples.on_d_prime(i, col) > best.threshold ? 1 : 0;
  }
  const std::uint64_t n = out.judged_trials;
  const auto [fp, fn] = errors(best, above_d, above_dp, n);
  out.fpr = static_cast<double>(fp) / static_cast<double>(n);
  out.fnr = static_cast<double>(fn) / static_cast<double>(n);
  out.fpr_upper = clopper_pearson_upper(fp, n, beta / 2.0);
  out.fnr_upper = clopper_pearson_upper(fn, n, beta / 2.0);
  out.epsilon = std::max(0.0, bound_of_counts(fp, fn, n, delta, beta));
  return out;
}

HockeyStickEstimate hockey_stick_estimate(const AuditSamples& samples, std::size_t statistic,
                                          double delta) {
  check_samples(samples, delta, 0.5);
  const auto col = static_cast<Eigen::Index>(statistic);
  const Eigen::Index trials = samples.on_d.rows();
  const auto d = sorted_column(samples.on_d, col, 0, trials);
  const auto dp = sorted_column(samples.on_d_prime, col, 0, trials);
  const auto pooled = merged(d, dp);
  // Equal-mass bins of ~500 pooled values (10 to 1000 bins); ties share a bin.
  const std::size_t bins = std::clamp<std::size_t>(pooled.size() / 500, 10, 1000);
  std::vector<double> edges;
  for (std::size_t b = 1; b < bins; ++b) {
    const double e = at_level(pooled, static_cast<double>(b) / static_cast<double>(bins));
    if (edges.empty() || e > edges.back()) edges.push_back(e);
  }
  std::vector<double> p, q;
  std::uint64_t prev_d = 0, prev_dp = 0;
  const auto n = static_cast<double>(trials);
  for (std::size_t b = 0; b <= edges.size(); ++b) {
    const std::uint64_t below_d = b < edges.size() ? d.size() - count_above(d, edges[b]) : d.size();
    const std::uint64_t below_dp =
        b < edges.size() ? dp.size() - count_above(dp, edges[b]) : dp.size();
    p.push_back(static_cast<double>(below_d - prev_d) / n);
    q.push_back(static_cast<double>(below_dp - prev_dp) / n);
    prev_d = below_d;
    prev_dp = below_dp;
  }
  const auto divergence = [&](double eps) {
    double pq = 0.0, qp = 0.0;
    const double w = std::exp(eps);
    for (std::size_t b = 0; b < p.size(); ++b) {
      pq += std::max(0.0, p[b] - w * q[b]);
      qp += std::max(0.0, q[b] - w * p[b]);
    }
    return std::max(pq, qp);
  };
  HockeyStickEstimate out;
  out.bins = p.size();
  double lo = 0.0, hi = 50.0;
  if (divergence(lo) <= delta) return out;
  if (divergence(hi) > delta) {
    out.epsilon = kInf;
    return out;
  }
  for (int i = 0; i < 60; ++i) {
    const double mid = 0.5 * (lo + hi);
    (divergence(mid) <= delta ? hi : lo) = mid;
  }
  out.epsilon = hi;
  return out;
}

std::vector<std::pair<double, double>> tradeoff_curve(const AuditSamples& samples,
                                                      const ThresholdTest& test,
                                                      std::size_t points) {
  const auto col = static_cast<Eigen::Index>(test.statistic);
  const Eigen::Index trials = samples.on_d.rows();
  const auto d = sorted_column(samples.on_d, col, 0, trials);
  const auto dp = sorted_column(samples.on_d_prime, col, 0, trials);
  const auto pooled = merged(d, dp);
  const auto n = static_cast<std::uint64_t>(trials);
  std::vector<std::pair<double, double>> curve;
  for (std::size_t i = 0; i <= points; ++i) {
    ThresholdTest t = test;
    t.threshold = at_level(pooled, static_cast<double>(i) / static_cast<double>(points + 1));
    const auto [fp, fn] = errors(t, count_above(d, t.threshold), count_above(dp, t.threshold), n);
    curve.emplace_back(static_cast<double>(fp) / static_cast<double>(n),
                       static_cast<double>(fn) / static_cast<double>(n));
  }
  return curve;
}

}  // namespace dpmcmc
