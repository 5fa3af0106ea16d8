// Warmup adaptation of a kernel's step size and diagonal metric (samplers/tuning.hpp), Stan's
// scheme: dual averaging of the step (dual_averaging.hpp) at every warmup iteration and the
// metric re-estimated at the end of each slow window (warmup_schedule.hpp) from that window's
// draws, regularised with Stan's weights towards 10⁻³ times the previous metric (Stan: towards
// 10⁻³ in absolute units): m = (n/(n + 5))·var + 10⁻³·m_old·(5/(n + 5)).
//
// After a metric update the step restarts from ε·max_i √(m_old,i / m_new,i) (dense: the square
// root of the largest eigenvalue of Σ_new⁻¹Σ_old, the same quantity): the direction whose
// scale shrinks the most keeps the step it had in units of its posterior sd, so that no direction
// starts with a step far beyond the one that was working. (Stan searches for a new step with extra
// density evaluations instead; a private kernel cannot evaluate the density without a release, so
// one rule serves every kernel.) A random walk restarts instead from 2.38/√d, its optimum when
// the metric is the posterior covariance (AdaptationTarget::restart_step). At the end of warmup
// the step is the dual-averaging average ε̄. With AdaptationTarget::pool_windows (the private
// random walks) each update estimates from every draw since the first slow window began, and
// shrinks component j's variance towards its previous metric with the weight k_j/(k_j + 5) of
// the k_j moves it made in those draws, in place of Stan's 10⁻³ (tuning.hpp).
//
// The adapter reads only the acceptance statistic of each transition and the kernel's position,
// the values the runner writes to the draw columns accept_stat__ and θ: for a private kernel,
// functions of released values (docs/decisions.md). replay() recomputes the tuning from those
// columns, which is how the leak scan checks it.
#pragma once

#include <nlohmann/json.hpp>

#include "core/types.hpp"
#include "samplers/dual_averaging.hpp"
#include "samplers/tuning.hpp"
#include "samplers/warmup_schedule.hpp"

namespace dpmcmc {

// Welford's running mean and variance (or covariance) of the draws of one window.
class WindowVariance {
 public:
  explicit WindowVariance(int dim = 0, bool covariance = false);
  void add(const Vec& x);
  void restart();
  std::size_t count() const { return count_; }
  // Sample variance (denominator n − 1) per component; needs count() ≥ 2.
  Vec variance() const;
  // Sample covariance (denominator n − 1); needs count() ≥ 2 and `covariance`.
  Mat covariance() const;
  // Per component, how often it changed between consecutive draws since the last restart: the
  // moves a random walk made, each component's count of distinct steps.
  const Vec& moves() const { return moves_; }
  nlohmann::json save_state() const;
  void load_state(const nlohmann::json& state);

 private:
  std::size_t count_ = 0;
  Vec mean_, m2_, moves_, last_;
  Mat comoment_;  // Σ (x − x̄)(x − x̄)ᵀ, with `covariance`
};

class WarmupAdapter {
 public:
  // Starts from `initial` (the kernel's hand-set tuning) for a warmup of `warmup` iterations;
  // with `dense` the metric is the window's covariance, regularised the same way towards
  // 10⁻³·diag(m_old), instead of its variances. ConfigError for a target outside (0, 1) or a step
  // that is not finite and > 0.
  WarmupAdapter(const AdaptationTarget& target, const Tuning& initial, std::size_t warmup,
                bool dense = false);

  // Records warmup iteration i (0-based, in order): its acceptance statistic and the position
  // after it. Returns the tuning for the next iteration.
  const Tuning& observe(std::size_t i, double accept_stat, const Vec& position);
  // The tuning now (after the last warmup iteration: the one kept for sampling).
  const Tuning& tuning() const { return tuning_; }
  // Metric updates so far.
  int metric_updates() const { return updates_; }

  nlohmann::json save_state() const;
  // DataError for a malformed state (or one of another dimension).
  void load_state(const nlohmann::json& state);

 private:
  AdaptationTarget target_;
  WarmupSchedule schedule_;
  DualAveraging steps_;
  WindowVariance window_;
  Tuning tuning_;
  bool dense_ = false;
  int updates_ = 0;
};

// Recomputes the tuning from published columns: the warmup's accept_stat__ (one per iteration)
// and its θ draws (rows × dim), kept with thin 1. Equal, bit for bit, to what the run applied.
Tuning replay_adaptation(const AdaptationTarget& target, const Tuning& initial, std::size_t warmup,
                         const Vec& accept_stats, const Mat& draws, bool dense = false);

}  // namespace dpmcmc
