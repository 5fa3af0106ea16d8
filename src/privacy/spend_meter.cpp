#include "privacy/spend_meter.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "privacy/barker_accounting.hpp"
#include "privacy/budget.hpp"
#include "privacy/composition.hpp"
#include "privacy/gaussian_pld.hpp"
#include "privacy/rdp_accountant.hpp"
#include "privacy/rdp_conversion.hpp"
#include "privacy/rdp_events.hpp"

namespace dpmcmc {

std::uint64_t kov_grid_count(std::uint64_t k) {
  if (k <= 1) return 1;
  constexpr double kTwoTo64 = 18446744073709551616.0;
  const double target = static_cast<double>(k);
  // j from the logarithm, stepped down while the previous grid count still reaches k, then up
  // until the count (exact as an integer below 2^64) reaches k; ⌈1.05^909⌉ ≈ 1.82e19 is the last
  // grid count below 2^64, above which the result saturates.
  int j = static_cast<int>(std::floor(std::log(target) / std::log(kKovGridRatio)));
  while (j > 0 && std::ceil(std::pow(kKovGridRatio, j - 1)) >= target) --j;
  for (;; ++j) {
    const double g = std::ceil(std::pow(kKovGridRatio, j));
    if (g >= kTwoTo64) return std::numeric_limits<std::uint64_t>::max();
    if (static_cast<std::uint64_t>(g) >= k) return static_cast<std::uint64_t>(g);
  }
}

double SpendMeter::kov_epsilon(double epsilon, double delta, std::uint64_t count) {
  if (count > kOptimalCompositionMaxK) return std::numeric_limits<double>::infinity();
  // Any count g ≥ the chain's releases bounds them: k releases padded with g − k constant
  // (0, 0)-DP ones are a g-fold composition of (ε, δ)-DP mechanisms, which KOV(g) certifies.
  // Clamped to the largest count KOV is evaluated at, which is still ≥ count.
  const std::uint64_t g = std::min(kov_grid_count(count), kOptimalCompositionMaxK);
  const auto key = std::make_tuple(epsilon, delta, g);
  auto it = kov_.find(key);
  if (it == kov_.end())
    it = kov_.emplace(key, OptimalHomogeneousComposition(epsilon, delta, g).epsilon(delta_)).first;
  return it->second;
}

SpendMeter::SpendMeter(double delta) : delta_(delta), orders_(default_rdp_orders()) {
  check_delta(delta, "delta");
}

double SpendMeter::barker_epsilon_of(std::span<const PrivacyEvent> events) {
  std::vector<double> total;
  for (const auto& e : events) {
    BarkerEventParams p;
    if (!decode_barker_event(e, p)) return std::numeric_limits<double>::infinity();
    const auto key = std::make_tuple(p.q, p.batch, p.noise_variance);
    auto it = barker_curves_.find(key);
    if (it == barker_curves_.end())
      it = barker_curves_.emplace(key, barker_rdp_curve(p.q, p.batch, p.noise_variance)).first;
    if (total.empty()) total.assign(it->second.size(), 0.0);
    total.resize(std::min(total.size(), it->second.size()));  // orders admissible for all
    for (std::size_t a = 0; a < total.size(); ++a)
      total[a] += static_cast<double>(e.count) * it->second[a];
  }
  return barker_curve_epsilon(total, 1.0, delta_).value;
}

double SpendMeter::epsilon(const EventLog& log) {
  const auto events = log.events();
  if (events.empty()) return 0.0;
  bool plain = true;
  for (const auto& e : events) {
    plain = plain && classify_gaussian_release(e) == GaussianRelease::plain;
  }
  // A function of the log alone (no start from the previous value): a resumed chain must write
  // the column bit for bit as the uninterrupted one.
  if (plain) return gaussian_pld_epsilon(gaussian_pld_mu(events), delta_);
  bool approximate = true;
  for (const auto& e : events)
    approximate = approximate && e.mechanism == Mechanism::approximate_dp;
  if (approximate) {
    // Releases known by an (ε, δ) certificate (DP-Fast MH, DP Barker): basic and advanced
    // composition, O(1) from running sums, and the optimal composition at the next grid count
    // (every event is also (max ε, max δ)-DP, as in the classical accountant).
    ApproxDpSums sums;
    double max_epsilon = 0.0, max_delta = 0.0;
    std::uint64_t total = 0;
    for (const auto& e : events) {
      sums.add(e.epsilon, e.delta, e.count);
      max_epsilon = std::max(max_epsilon, e.epsilon);
      max_delta = std::max(max_delta, e.delta);
      total += e.count;
    }
    const double classical = std::min(composed_epsilon_basic_advanced(sums, delta_),
                                      kov_epsilon(max_epsilon, max_delta, total));
    return std::min(classical, barker_epsilon_of(events));
  }

  std::vector<double> total(orders_.size(), 0.0);
  for (const auto& e : events) {
    const GaussianRelease kind = classify_gaussian_release(e);
    if (kind == GaussianRelease::unsupported) return std::numeric_limits<double>::infinity();
    const double q = kind == GaussianRelease::plain ? 1.0 : e.sampling_rate;
    // Rounded down (a certified upper bound), so that a log whose multiplier moves by ~1e-12 as
    // releases merge keeps hitting the cache.
    const double z = rounded_multiplier(e.noise_multiplier(), BoundKind::upper_bound);
    const auto key = std::make_tuple(static_cast<int>(kind), q, z, static_cast<int>(e.relation));
    auto it = curves_.find(key);
    if (it == curves_.end()) {
      const GaussianReleaseGroup group{kind, q, z, 1};
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
