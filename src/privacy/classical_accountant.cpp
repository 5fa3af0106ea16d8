#include "privacy/classical_accountant.hpp"

#include <algorithm>
#include <utility>

#include "core/error.hpp"
#include "privacy/event_checks.hpp"

namespace dpmcmc {

ClassicalProfile::ClassicalProfile(ApproxDpSums sums,
                                   std::optional<OptimalHomogeneousComposition> optimal)
    : sums_(sums), optimal_(std::move(optimal)) {}

double ClassicalProfile::epsilon(double delta) const {
  double eps = composed_epsilon_basic_advanced(sums_, delta);
  if (optimal_) eps = std::min(eps, optimal_->epsilon(delta));
  return eps;
}

double ClassicalProfile::delta(double epsilon) const {
  double d = composed_delta_basic_advanced(sums_, epsilon);
  if (optimal_) d = std::min(d, optimal_->delta(epsilon));
  return d;
}

bool ClassicalAccountant::supports(const PrivacyEvent& e) const {
  return e.mechanism == Mechanism::approximate_dp;
}

std::unique_ptr<PrivacyProfile> ClassicalAccountant::compose(
    std::span<const PrivacyEvent> events) const {
  check_supported(*this, events);
  check_single_relation(events, name());
  ApproxDpSums sums;
  std::uint64_t total = 0;
  double max_epsilon = 0.0, max_delta = 0.0;
  for (const PrivacyEvent& e : events) {
    sums.add(e.epsilon, e.delta, e.count);
    max_epsilon = std::max(max_epsilon, e.epsilon);
    max_delta = std::max(max_delta, e.delta);
    total = (total > UINT64_MAX - e.count) ? UINT64_MAX : total + e.count;
  }
  // Every event is also (max ε, max δ)-DP, so the optimal composition of `total` such mechanisms
  // bounds a heterogeneous list too (exact when the list is homogeneous). A log of mostly
  // worst-case events with a few cheaper ones (DP-Fast MH's branches) keeps the optimal bound the
  // planner used instead of falling back to advanced composition.
  std::optional<OptimalHomogeneousComposition> optimal;
  if (!events.empty() && total <= kOptimalCompositionMaxK)
    optimal.emplace(max_epsilon, max_delta, total);
  return std::make_unique<ClassicalProfile>(sums, std::move(optimal));
}

}  // namespace dpmcmc
