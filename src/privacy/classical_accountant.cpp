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
  bool homogeneous = true;
  for (const PrivacyEvent& e : events) {
    sums.add(e.epsilon, e.delta, e.count);
    homogeneous = homogeneous && e.epsilon == events[0].epsilon && e.delta == events[0].delta;
    total = (total > UINT64_MAX - e.count) ? UINT64_MAX : total + e.count;
  }
  std::optional<OptimalHomogeneousComposition> optimal;
  if (!events.empty() && homogeneous && total <= kOptimalCompositionMaxK)
    optimal.emplace(events[0].epsilon, events[0].delta, total);
  return std::make_unique<ClassicalProfile>(sums, std::move(optimal));
}

}  // namespace dpmcmc
