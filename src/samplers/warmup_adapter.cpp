#include "samplers/warmup_adapter.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/error.hpp"
#include "core/state_json.hpp"

namespace dpmcmc {

WindowVariance::WindowVariance(int dim) : mean_(Vec::Zero(dim)), m2_(Vec::Zero(dim)) {}

void WindowVariance::add(const Vec& x) {
  ++count_;
  const Vec delta = x - mean_;
  mean_ += delta / static_cast<double>(count_);
  m2_ += delta.cwiseProduct(x - mean_);
}

void WindowVariance::restart() {
  count_ = 0;
  mean_.setZero();
  m2_.setZero();
}

Vec WindowVariance::variance() const {
  if (count_ < 2) throw SoftwareError("window variance of fewer than 2 draws");
  return m2_ / static_cast<double>(count_ - 1);
}

nlohmann::json WindowVariance::save_state() const {
  return {{"count", count_}, {"mean", state::of(mean_)}, {"m2", state::of(m2_)}};
}

void WindowVariance::load_state(const nlohmann::json& s) {
  const std::uint64_t count = state::to_count(s, "count");
  Vec mean = state::to_vec(s, "mean", mean_.size());
  Vec m2 = state::to_vec(s, "m2", m2_.size());
  if (!mean.allFinite() || !m2.allFinite() || (m2.array() < 0.0).any()) {
    throw DataError("metric window state: values not finite or negative");
  }
  count_ = count;
  mean_ = std::move(mean);
  m2_ = std::move(m2);
}

WarmupAdapter::WarmupAdapter(const AdaptationTarget& target, const Tuning& initial,
                             std::size_t warmup)
    : target_(target),
      schedule_(warmup_schedule(warmup)),
      steps_(target.accept, initial.step, target.random_walk ? 1.0 : 10.0),
      window_(static_cast<int>(initial.metric.size())),
      tuning_(initial) {
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
      Vec metric = (n / (n + 5.0)) * window_.variance().array() + 1e-3 * (5.0 / (n + 5.0));
      // A chain that never moved in a window gives var 0 and so m = 10⁻³·5/(n + 5) > 0; a
      // non-finite draw cannot reach here (the kernels reject non-finite proposals).
      const double shrink = (tuning_.metric.array() / metric.array()).sqrt().maxCoeff();
      tuning_.metric = std::move(metric);
      steps_.restart(tuning_.step * shrink);
      tuning_.step = steps_.step();
      window_.restart();
      ++updates_;
    }
  }
  if (i + 1 == schedule_.warmup) tuning_.step = steps_.averaged_step();
  return tuning_;
}

nlohmann::json WarmupAdapter::save_state() const {
  return {{"step", state::of(tuning_.step)},
          {"metric", state::of(tuning_.metric)},
          {"updates", updates_},
          {"dual_averaging", steps_.save_state()},
          {"window", window_.save_state()}};
}

void WarmupAdapter::load_state(const nlohmann::json& s) {
  const double step = state::to_double(s, "step");
  Vec metric = state::to_vec(s, "metric", tuning_.metric.size());
  const std::uint64_t updates = state::to_count(s, "updates");
  if (!std::isfinite(step) || step <= 0.0 || !metric.allFinite() || (metric.array() <= 0.0).any() ||
      updates > schedule_.window_ends.size()) {
    throw DataError("adaptation state: step, metric or update count out of range");
  }
  steps_.load_state(state::at(s, "dual_averaging"));
  window_.load_state(state::at(s, "window"));
  tuning_.step = step;
  tuning_.metric = std::move(metric);
  updates_ = static_cast<int>(updates);
}

Tuning replay_adaptation(const AdaptationTarget& target, const Tuning& initial, std::size_t warmup,
                         const Vec& accept_stats, const Mat& draws) {
  if (static_cast<std::size_t>(accept_stats.size()) != warmup ||
      static_cast<std::size_t>(draws.rows()) != warmup) {
    throw DataError(
        fmt::format("adaptation replay: {} accept statistics and {} draws for a warmup "
                    "of {}",
                    accept_stats.size(), draws.rows(), warmup));
  }
  WarmupAdapter adapter(target, initial, warmup);
  for (std::size_t i = 0; i < warmup; ++i) {
    const auto row = static_cast<Eigen::Index>(i);
    adapter.observe(i, accept_stats[row], draws.row(row).transpose());
  }
  return adapter.tuning();
}

}  // namespace dpmcmc
