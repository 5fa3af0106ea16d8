#include "privacy/spend_meter.hpp"

#include <limits>

#include "privacy/budget.hpp"
#include "privacy/composition.hpp"
#include "privacy/gaussian_pld.hpp"
#include "privacy/rdp_accountant.hpp"
#include "privacy/rdp_conversion.hpp"
#include "privacy/rdp_events.hpp"

namespace dpmcmc {

SpendMeter::SpendMeter(double delta) : delta_(delta), orders_(default_rdp_orders()) {
  check_delta(delta, "delta");
}

double SpendMeter::epsilon(const EventLog& log) {
  const auto events = log.events();
  if (events.empty()) return 0.0;
  bool plain = true;
  for (const auto& e : events) {
    plain = plain && classify_gaussian_release(e) == GaussianRelease::plain;
  }
  if (plain) return gaussian_pld_epsilon(gaussian_pld_mu(events), delta_);
  bool approximate = true;
  for (const auto& e : events)
    approximate = approximate && e.mechanism == Mechanism::approximate_dp;
  if (approximate) {
    // Releases known by an (ε, δ) certificate (DP-Fast MH, DP Barker): the better of basic and
    // advanced composition, O(1) from running sums (the report adds the optimal composition and
    // the samplers' own accountants).
    ApproxDpSums sums;
    for (const auto& e : events) sums.add(e.epsilon, e.delta, e.count);
    return composed_epsilon_basic_advanced(sums, delta_);
  }

  std::vector<double> total(orders_.size(), 0.0);
  for (const auto& e : events) {
    const GaussianRelease kind = classify_gaussian_release(e);
    if (kind == GaussianRelease::unsupported) return std::numeric_limits<double>::infinity();
    const double q = kind == GaussianRelease::plain ? 1.0 : e.sampling_rate;
    const auto key = std::make_tuple(static_cast<int>(kind), q, e.noise_multiplier(),
                                     static_cast<int>(e.relation));
    auto it = curves_.find(key);
    if (it == curves_.end()) {
      const GaussianReleaseGroup group{kind, q, e.noise_multiplier(), 1};
      std::vector<double> curve(orders_.size());
      for (std::size_t i = 0; i < orders_.size(); ++i) {
        curve[i] = rdp_of_release(group, orders_[i]);
      }
      it = curves_.emplace(key, std::move(curve)).first;
    }
    for (std::size_t i = 0; i < orders_.size(); ++i) {
      total[i] += static_cast<double>(e.count) * it->second[i];
    }
  }
  // rdp_curve_epsilon without refinement evaluates the curve at the grid orders only.
  const auto curve = [&](double alpha) {
    for (std::size_t i = 0; i < orders_.size(); ++i) {
      if (orders_[i] == alpha) return total[i];
    }
    return std::numeric_limits<double>::infinity();
  };
  return rdp_curve_epsilon(curve, orders_, delta_, RdpConversion::improved, false).value;
}

}  // namespace dpmcmc
