#include "privacy/advanced_gaussian_accountant.hpp"

#include <boost/math/tools/minima.hpp>
#include <cmath>
#include <limits>

#include "privacy/composition.hpp"
#include "privacy/event_checks.hpp"
#include "privacy/gaussian_calibration.hpp"
#include "privacy/rdp_events.hpp"

namespace dpmcmc {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

AdvancedGaussianProfile::AdvancedGaussianProfile(std::vector<Group> groups)
    : groups_(std::move(groups)) {
  for (const auto& g : groups_) releases_ += static_cast<double>(g.count);
}

double AdvancedGaussianProfile::epsilon_at_split(double delta_per_release, double delta) const {
  if (releases_ == 0.0) return 0.0;
  if (!(delta_per_release > 0.0) || delta_per_release * releases_ >= delta) return kInf;
  ApproxDpSums sums;
  for (const auto& g : groups_) {
    sums.add(analytic_gaussian_epsilon(1.0, g.noise_multiplier, delta_per_release),
             delta_per_release, g.count);
  }
  return composed_epsilon_basic_advanced(sums, delta);
}

double AdvancedGaussianProfile::epsilon(double delta) const {
  if (releases_ == 0.0) return 0.0;
  // Search log δ₀ over (δ/K)·[1e-30, 1): a coarse grid locates the best split (the objective is
  // smooth but not guaranteed unimodal over 30 decades), Brent refines between its neighbours.
  const double top = std::log(delta / releases_);
  const double bottom = top - 30.0 * std::log(10.0);
  const int points = 61;
  const auto at = [&](double log_d0) { return epsilon_at_split(std::exp(log_d0), delta); };
  double best = kInf, best_x = top;
  const double step = (top - bottom) / (points - 1);
  for (int i = 0; i < points; ++i) {
    // The top point δ₀ = δ/K leaves no slack: nudge it inside.
    const double x = i == points - 1 ? top - 1e-9 : bottom + step * i;
    const double v = at(x);
    if (v < best) {
      best = v;
      best_x = x;
    }
  }
  if (!std::isfinite(best)) return kInf;
  const double lo = std::max(bottom, best_x - step);
  const double hi = std::min(top - 1e-9, best_x + step);
  const auto refined = boost::math::tools::brent_find_minima(at, lo, hi, 40);
  return std::min(best, refined.second);
}

double AdvancedGaussianProfile::delta(double epsilon) const {
  if (releases_ == 0.0) return 0.0;
  // ε(δ) is non-increasing in δ: bisection on log δ for the smallest δ with ε(δ) ≤ target,
  // returned on the safe (larger-δ) side.
  double lo = std::log(1e-300), hi = std::log(1.0 - 1e-12);
  if (this->epsilon(std::exp(hi)) > epsilon) return 1.0;
  for (int i = 0; i < 100 && hi - lo > 1e-10; ++i) {
    const double mid = 0.5 * (lo + hi);
    (this->epsilon(std::exp(mid)) <= epsilon ? hi : lo) = mid;
  }
  return std::exp(hi);
}

bool AdvancedGaussianAccountant::supports(const PrivacyEvent& e) const {
  return classify_gaussian_release(e) == GaussianRelease::plain;
}

std::unique_ptr<PrivacyProfile> AdvancedGaussianAccountant::compose(
    std::span<const PrivacyEvent> events) const {
  check_supported(*this, events);
  check_single_relation(events, name());
  std::vector<AdvancedGaussianProfile::Group> groups;
  for (const auto& e : events) groups.push_back({e.noise_multiplier(), e.count});
  return std::make_unique<AdvancedGaussianProfile>(std::move(groups));
}

}  // namespace dpmcmc
