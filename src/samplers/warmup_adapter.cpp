#include "samplers/warmup_adapter.hpp"

#include <fmt/format.h>

#include <Eigen/Eigenvalues>
#include <cmath>

#include "core/error.hpp"
#include "core/state_json.hpp"

namespace dpmcmc {

WindowVariance::WindowVariance(int dim, bool covariance)
    : mean_(Vec::Zero(dim)), m2_(Vec::Zero(dim)), moves_(Vec::Zero(dim)), last_(Vec::Zero(dim)) {
  if (covariance) comoment_ = Mat::Zero(dim, dim);
}

void WindowVariance::add(const Vec& x) {
  if (count_ > 0) moves_ += (x.array() != last_.array()).cast<double>().matrix();
  last_ = x;
  ++count_;
  const Vec delta = x - mean_;
  mean_ += delta / static_cast<double>(count_);
  const Vec after = x - mean_;
  m2_ += delta.cwiseProduct(after);
  if (comoment_.size() != 0) comoment_.noalias() += delta * after.transpose();
}

void WindowVariance::restart() {
  count_ = 0;
  mean_.setZero();
  m2_.setZero();
  moves_.setZero();
  comoment_.setZero();
}

Mat WindowVariance::covariance() const {
  if (count_ < 2 || comoment_.size() == 0) throw SoftwareError("window covariance unavailable");
  const Mat c = comoment_ / static_cast<double>(count_ - 1);
  return 0.5 * (c + c.transpose());  // exactly symmetric
}

Vec WindowVariance::variance() const {
  if (count_ < 2) throw SoftwareError("window variance of fewer than 2 draws");
  return m2_ / static_cast<double>(count_ - 1);
}

nlohmann::json WindowVariance::save_state() const {
  nlohmann::json s = {{"count", count_},
                      {"mean", state::of(mean_)},
                      {"m2", state::of(m2_)},
                      {"moves", state::of(moves_)},
                      {"last", state::of(last_)}};
  if (comoment_.size() != 0) {
    s["comoment"] = state::of(Vec(Eigen::Map<const Vec>(comoment_.data(), comoment_.size())));
  }
  return s;
}

void WindowVariance::load_state(const nlohmann::json& s) {
  const std::uint64_t count = state::to_count(s, "count");
  Vec mean = state::to_vec(s, "mean", mean_.size());
  Vec m2 = state::to_vec(s, "m2", m2_.size());
  Vec moves = state::to_vec(s, "moves", moves_.size());
  Vec last = state::to_vec(s, "last", last_.size());
  if (!mean.allFinite() || !m2.allFinite() || (m2.array() < 0.0).any() || !last.allFinite() ||
      !moves.allFinite() || (moves.array() < 0.0).any()) {
    throw DataError("metric window state: values not finite or negative");
  }
  if (comoment_.size() != 0) {
    const Vec c = state::to_vec(s, "comoment", comoment_.size());
    if (!c.allFinite()) throw DataError("metric window state: values not finite");
    comoment_ = Eigen::Map<const Mat>(c.data(), comoment_.rows(), comoment_.cols());
  }
  count_ = count;
  mean_ = std::move(mean);
  m2_ = std::move(m2);
  moves_ = std::move(moves);
  last_ = std::move(last);
}

WarmupAdapter::WarmupAdapter(const AdaptationTarget& target, const Tuning& initial,
                             std::size_t warmup, bool dense)
    : target_(target),
      schedule_(warmup_schedule(warmup)),
      steps_(target.accept, initial.step, target.favour_long_steps ? 10.0 : 1.0),
      window_(static_cast<int>(initial.metric.size()), dense),
      tuning_(initial),
      dense_(dense) {
  if (dense && !target.dense_capable) {
    throw ConfigError("adaptation: this sampler has no dense metric (use the diagonal one)");
  }
  if (initial.metric.size() == 0 || !initial.metric.allFinite() ||
      (initial.metric.array() <= 0.0).any()) {
    throw ConfigError("adaptation: the initial metric must be finite and > 0");
  }
}

const Tuning& WarmupAdapter::observe(std::size_t i, double accept_stat, const Vec& position) {
  tuning_.step = steps_.update(accept_stat);
  if (target_.metric && schedule_.in_window(i)) {
    window_.add(position);
    if (schedule_.ends_window(i) && window_.count() >= 2) {
      const auto n = static_cast<double>(window_.count());
      // Shrunk towards 10⁻³ times the previous metric (diagonal), with Stan's weight 5/(n + 5):
      // a chain that never moved in a window still gets m > 0. Stan shrinks towards 10⁻³ in
      // absolute units, which swamps parameters whose posterior sd is below ~0.03
      // (gauss-correlated-2d's is 0.002, and a dense metric then loses the correlation); in
      // units of the previous metric the rule does not depend on the parameters' units. A
      // non-finite draw cannot reach here (the kernels reject non-finite proposals).
      const double weight = 5.0 / (n + 5.0);
      double shrink = 0.0;
      if (dense_) {
        const Mat old =
            tuning_.dense.size() != 0 ? tuning_.dense : Mat(tuning_.metric.asDiagonal());
        Mat sigma = (n / (n + 5.0)) * window_.covariance() +
                    Mat((1e-3 * weight) * tuning_.metric.asDiagonal());
        // The largest eigenvalue of Σ_new⁻¹Σ_old: the generalised problem Σ_old v = λ Σ_new v.
        const Eigen::GeneralizedSelfAdjointEigenSolver<Mat> ges(old, sigma, Eigen::EigenvaluesOnly);
        shrink = std::sqrt(ges.eigenvalues().maxCoeff());
        tuning_.metric = sigma.diagonal();
        tuning_.dense = std::move(sigma);
      } else {
        Vec metric = (n / (n + 5.0)) * window_.variance() + (1e-3 * weight) * tuning_.metric;
        if (target_.pool_windows) {
          // A private walk's component that moved k times holds k + 1 distinct values, however
          // many draws: weigh its variance by k, towards the metric it had (tuning.hpp).
          const Vec k = window_.moves();
          metric = (k.array() / (k.array() + 5.0)) * window_.variance().array() +
                   (5.0 / (k.array() + 5.0)) * tuning_.metric.array();
        }
        shrink = (tuning_.metric.array() / metric.array()).sqrt().maxCoeff();
        tuning_.metric = std::move(metric);
      }
      if (!tuning_.metric.allFinite() || !std::isfinite(shrink)) {
        throw ConfigError(fmt::format(
            "adaptation: the variance of warmup iterations {}-{} is not finite (the chain moved "
            "beyond 1e154); check the prior and the starting point, or run with --adapt false",
            i + 1 - window_.count(), i));
      }
      steps_.restart(target_.restart_step > 0.0 ? target_.restart_step : tuning_.step * shrink);
      tuning_.step = steps_.step();
      if (!target_.pool_windows) window_.restart();
      ++updates_;
    }
  }
  if (i + 1 == schedule_.warmup) tuning_.step = steps_.averaged_step();
  return tuning_;
}

nlohmann::json WarmupAdapter::save_state() const {
  nlohmann::json s = {{"step", state::of(tuning_.step)},
                      {"metric", state::of(tuning_.metric)},
                      {"updates", updates_},
                      {"dual_averaging", steps_.save_state()},
                      {"window", window_.save_state()}};
  if (tuning_.dense.size() != 0) {
    s["dense"] = state::of(Vec(Eigen::Map<const Vec>(tuning_.dense.data(), tuning_.dense.size())));
  }
  return s;
}

void WarmupAdapter::load_state(const nlohmann::json& s) {
  const double step = state::to_double(s, "step");
  Vec metric = state::to_vec(s, "metric", tuning_.metric.size());
  const std::uint64_t updates = state::to_count(s, "updates");
  if (!std::isfinite(step) || step <= 0.0 || !metric.allFinite() || (metric.array() <= 0.0).any() ||
      updates > schedule_.window_ends.size()) {
    throw DataError("adaptation state: step, metric or update count out of range");
  }
  Mat dense;
  if (s.contains("dense")) {
    const auto dim = tuning_.metric.size();
    const Vec flat = state::to_vec(s, "dense", dim * dim);
    dense = Eigen::Map<const Mat>(flat.data(), dim, dim);
    if (!dense_ || !dense.allFinite()) throw DataError("adaptation state: unexpected dense metric");
  }
  steps_.load_state(state::at(s, "dual_averaging"));
  window_.load_state(state::at(s, "window"));
  tuning_.dense = std::move(dense);
  tuning_.step = step;
  tuning_.metric = std::move(metric);
  updates_ = static_cast<int>(updates);
}

Tuning replay_adaptation(const AdaptationTarget& target, const Tuning& initial, std::size_t warmup,
                         const Vec& accept_stats, const Mat& draws, bool dense) {
  if (static_cast<std::size_t>(accept_stats.size()) != warmup ||
      static_cast<std::size_t>(draws.rows()) != warmup) {
    throw DataError(
        fmt::format("adaptation replay: {} accept statistics and {} draws for a warmup "
                    "of {}",
                    accept_stats.size(), draws.rows(), warmup));
  }
  WarmupAdapter adapter(target, initial, warmup, dense);
  for (std::size_t i = 0; i < warmup; ++i) {
    const auto row = static_cast<Eigen::Index>(i);
    adapter.observe(i, accept_stats[row], draws.row(row).transpose());
  }
  return adapter.tuning();
}

}  // namespace dpmcmc
