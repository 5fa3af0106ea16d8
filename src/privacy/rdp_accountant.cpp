#include "privacy/rdp_accountant.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "privacy/rdp.hpp"

namespace dpmcmc {

double rdp_of_release(const GaussianReleaseGroup& g, double alpha, WorRdpBound wor_bound) {
  switch (g.kind) {
    case GaussianRelease::plain:
      return rdp_gaussian(alpha, g.noise_multiplier);
    case GaussianRelease::poisson_add_remove:
      return rdp_poisson_subsampled_gaussian(alpha, g.sampling_rate, g.noise_multiplier);
    case GaussianRelease::wor_substitute:
      switch (wor_bound) {
        case WorRdpBound::wbk_theorem9:
          return rdp_wbk_subsampled_gaussian(alpha, g.sampling_rate, g.noise_multiplier);
        case WorRdpBound::tight_pair:
          return rdp_wor_subsampled_gaussian(alpha, g.sampling_rate, g.noise_multiplier);
        case WorRdpBound::minimum:
          return std::min(rdp_wbk_subsampled_gaussian(alpha, g.sampling_rate, g.noise_multiplier),
                          rdp_wor_subsampled_gaussian(alpha, g.sampling_rate, g.noise_multiplier));
      }
      break;
    case GaussianRelease::unsupported:
      break;
  }
  throw SoftwareError("rdp_of_release: unsupported release kind");
}

double RdpReleaseCache::get(const GaussianReleaseGroup& g, double alpha, WorRdpBound wor_bound) {
  const auto key = std::make_tuple(static_cast<int>(g.kind), g.sampling_rate, g.noise_multiplier,
                                   static_cast<int>(wor_bound), alpha);
  {
    const std::lock_guard lock(mutex_);
    const auto it = values_.find(key);
    if (it != values_.end()) return it->second;
  }
  const double v = rdp_of_release(g, alpha, wor_bound);
  const std::lock_guard lock(mutex_);
  return values_.emplace(key, v).first->second;
}

RdpProfile::RdpProfile(std::vector<GaussianReleaseGroup> groups, RdpOptions options,
                       std::shared_ptr<RdpReleaseCache> cache)
    : groups_(std::move(groups)),
      options_(std::move(options)),
      cache_(std::move(cache)),
      grid_(options_.orders) {
  std::sort(grid_.begin(), grid_.end());
  grid_values_.reserve(grid_.size());
  // The grid orders recur in every composition of the same releases: from the cache. (The
  // refinement's real orders rarely recur and are computed afresh, so the cache stays small.)
  for (double a : grid_) {
    double total = 0.0;
    for (const auto& g : groups_) {
      total += static_cast<double>(g.count) * (cache_ ? cache_->get(g, a, options_.wor_bound)
                                                      : rdp_of_release(g, a, options_.wor_bound));
    }
    grid_values_.push_back(total);
  }
}

double RdpProfile::curve(double alpha) const {
  const auto it = std::lower_bound(grid_.begin(), grid_.end(), alpha);
  if (it != grid_.end() && *it == alpha) {
    return grid_values_[static_cast<std::size_t>(it - grid_.begin())];
  }
  return rdp(alpha);
}

double RdpProfile::rdp(double alpha) const {
  double total = 0.0;
  for (const auto& g : groups_) {
    total += static_cast<double>(g.count) * rdp_of_release(g, alpha, options_.wor_bound);
  }
  return total;
}

RdpOptimum RdpProfile::epsilon_at(double delta) const {
  if (groups_.empty()) {
    rdp_to_epsilon(2.0, 0.0, delta, options_.conversion);  // validates δ
    return {0.0, 0.0};
  }
  return rdp_curve_epsilon([this](double a) { return curve(a); }, options_.orders, delta,
                           options_.conversion, options_.refine);
}

RdpOptimum RdpProfile::delta_at(double epsilon) const {
  if (groups_.empty()) {
    rdp_to_log_delta(2.0, 0.0, epsilon, options_.conversion);  // validates ε
    return {0.0, 0.0};
  }
  return rdp_curve_delta([this](double a) { return curve(a); }, options_.orders, epsilon,
                         options_.conversion, options_.refine);
}

double RdpProfile::epsilon(double delta) const {
  return epsilon_at(delta).value;
}
double RdpProfile::delta(double epsilon) const {
  return delta_at(epsilon).value;
}

RdpAccountant::RdpAccountant(RdpOptions options) : options_(std::move(options)) {
  // Validate the grid once, here, rather than at the first query.
  rdp_curve_epsilon([](double) { return 0.0; }, options_.orders, 0.5, options_.conversion, false);
}

bool RdpAccountant::supports(const PrivacyEvent& event) const {
  return classify_gaussian_release(event) != GaussianRelease::unsupported;
}

std::unique_ptr<RdpProfile> RdpAccountant::compose_rdp(std::span<const PrivacyEvent> events) const {
  auto list = group_gaussian_releases(*this, events);
  return std::make_unique<RdpProfile>(std::move(list.groups), options_, cache_);
}

std::unique_ptr<PrivacyProfile> RdpAccountant::compose(std::span<const PrivacyEvent> events) const {
  return compose_rdp(events);
}

}  // namespace dpmcmc
