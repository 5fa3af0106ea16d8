#include "privacy/barker_accounting.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <numbers>

#include "core/error.hpp"
#include "core/numeric.hpp"
#include "privacy/accountants.hpp"
#include "privacy/event_checks.hpp"

namespace dpmcmc {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double log_binomial(double a, double j) {
  return std::lgamma(a + 1.0) - std::lgamma(j + 1.0) - std::lgamma(a - j + 1.0);
}

// ε(α) of one iteration for α = 0 … A (entries 0, 1 unused: +∞), A = barker_max_order.
std::vector<double> one_iteration_curve(double q, std::size_t batch, double noise_variance) {
  const std::uint64_t top = barker_max_order(batch, noise_variance);
  std::vector<double> curve(static_cast<std::size_t>(std::max<std::uint64_t>(top, 1) + 1), kInf);
  if (top < 2) return curve;
  std::vector<double> base(curve.size(), kInf);  // ε′(j)
  for (std::uint64_t j = 2; j <= top; ++j)
    base[j] = barker_batch_rdp(double(j), batch, noise_variance);
  const double log_q = std::log(q);
  const double e2 = base[2];
  // min{4(e^{ε′(2)} − 1), 2e^{ε′(2)}} in log space.
  const double log_min2 = std::min(std::log(4.0) + std::log(std::expm1(e2)), std::log(2.0) + e2);
  std::vector<double> terms;
  for (std::uint64_t a = 2; a <= top; ++a) {
    const double ad = static_cast<double>(a);
    terms.clear();
    terms.push_back(2.0 * log_q + log_binomial(ad, 2.0) + log_min2);
    for (std::uint64_t j = 3; j <= a; ++j) {
      const double jd = static_cast<double>(j);
      terms.push_back(std::log(2.0) + jd * log_q + log_binomial(ad, jd) + (jd - 1.0) * base[j]);
    }
    const double log_sum = log_sum_exp(terms);
    curve[a] = log_add_exp(0.0, log_sum) / (ad - 1.0);
  }
  return curve;
}

// min over 3 ≤ α ≤ top of k·curve(α) + ln(1/δ)/(α−1).
BarkerOptimum curve_epsilon(const std::vector<double>& curve, double k, double delta) {
  BarkerOptimum best{kInf, 0};
  const double log_inv_delta = -std::log(delta);
  for (std::size_t a = 3; a < curve.size(); ++a) {
    if (!std::isfinite(curve[a])) continue;
    const double eps = k * curve[a] + log_inv_delta / (static_cast<double>(a) - 1.0);
    if (eps < best.value) best = {eps, a};
  }
  if (best.order != 0) best.value = std::max(0.0, best.value);
  return best;
}

void check_delta(double delta, const char* who) {
  if (!(delta > 0.0 && delta < 1.0))
    throw ConfigError(fmt::format("{}: δ must be in (0, 1), got {}", who, delta));
}

class BarkerProfile final : public PrivacyProfile {
 public:
  // An empty curve stands for no release at all (ε = δ = 0).
  explicit BarkerProfile(std::vector<double> curve) : curve_(std::move(curve)) {}
  double epsilon(double delta) const override {
    check_delta(delta, "barker-rdp");
    if (curve_.empty()) return 0.0;
    return curve_epsilon(curve_, 1.0, delta).value;
  }
  double delta(double epsilon) const override {
    if (curve_.empty()) return 0.0;
    double best = 1.0;
    for (std::size_t a = 3; a < curve_.size(); ++a) {
      if (!std::isfinite(curve_[a])) continue;
      best = std::min(best, std::exp((static_cast<double>(a) - 1.0) * (curve_[a] - epsilon)));
    }
    return best;
  }

 private:
  std::vector<double> curve_;  // composed RDP per integer order (index = α)
};

}  // namespace

void validate_barker(double noise_variance, std::size_t batch, std::size_t n) {
  constexpr double kLogisticVariance = std::numbers::pi * std::numbers::pi / 3.0;
  if (!(noise_variance > 1.0 && noise_variance < kLogisticVariance)) {
    throw ConfigError(fmt::format(
        "dp-barker: --noise-variance (σ²) is {}, expected 1 < σ² < π²/3 = {:.6f}: the noise must "
        "exceed the largest batch variance the clip bound allows (1), and V_corr only exists "
        "below the logistic variance π²/3",
        noise_variance, kLogisticVariance));
  }
  if (batch <= 5 || batch > n) {
    throw ConfigError(fmt::format(
        "dp-barker: --batch (batch size b) is {}, expected 6 ≤ b ≤ n = {} rows", batch, n));
  }
  if (barker_max_order(batch, noise_variance) < 3) {
    throw ConfigError(fmt::format(
        "dp-barker: --batch (batch size b) {} is too small for --noise-variance {}: Theorem 3.3 "
        "needs an integer order 3 ≤ α < b(σ² − 1)/5, i.e. b(σ² − 1) > 15",
        batch, noise_variance));
  }
}

std::uint64_t barker_max_order(std::size_t batch, double noise_variance) {
  const double limit = static_cast<double>(batch) * (noise_variance - 1.0) / 5.0;  // α < limit
  if (!(limit > 1.0) || !std::isfinite(limit)) return 0;
  auto top = static_cast<std::uint64_t>(std::floor(limit));
  if (static_cast<double>(top) >= limit) --top;
  return top;
}

double barker_batch_rdp(double alpha, std::size_t batch, double noise_variance) {
  const double b = static_cast<double>(batch);
  const double m = noise_variance - 1.0;
  const double room = b * m - 5.0 * alpha;
  if (!(alpha > 1.0) || !(m > 0.0) || !(room > 0.0)) return kInf;
  return 5.0 / (2.0 * b * m) + std::log(noise_variance * b / room) / (2.0 * (alpha - 1.0)) +
         2.0 * alpha / room;
}

double barker_rdp(std::uint64_t alpha, double q, std::size_t batch, double noise_variance) {
  if (alpha < 2 || alpha > barker_max_order(batch, noise_variance)) return kInf;
  if (!(q > 0.0 && q <= 1.0)) throw ConfigError(fmt::format("barker_rdp: q = {} ∉ (0, 1]", q));
  return one_iteration_curve(q, batch, noise_variance)[alpha];
}

BarkerOptimum barker_epsilon(std::uint64_t k, double q, std::size_t batch, double noise_variance,
                             double delta) {
  check_delta(delta, "barker_epsilon");
  if (k == 0) return {0.0, 0};
  return curve_epsilon(one_iteration_curve(q, batch, noise_variance), static_cast<double>(k),
                       delta);
}

std::uint64_t barker_iterations(double epsilon, double delta, double q, std::size_t batch,
                                double noise_variance) {
  check_delta(delta, "barker_iterations");
  const auto curve = one_iteration_curve(q, batch, noise_variance);
  std::uint64_t best = 0;
  for (std::size_t a = 3; a < curve.size(); ++a) {
    if (!std::isfinite(curve[a]) || !(curve[a] > 0.0)) continue;
    const double room = epsilon + std::log(delta) / (static_cast<double>(a) - 1.0);
    if (!(room > 0.0)) continue;
    const double k = std::floor(std::min(room / curve[a], 0x1.0p53));
    best = std::max(best, static_cast<std::uint64_t>(k));
  }
  return best;
}

std::vector<double> barker_rdp_curve(double q, std::size_t batch, double noise_variance) {
  return one_iteration_curve(q, batch, noise_variance);
}

BarkerOptimum barker_curve_epsilon(const std::vector<double>& curve, double k, double delta) {
  check_delta(delta, "barker_curve_epsilon");
  return curve_epsilon(curve, k, delta);
}

PrivacyEvent dp_barker_event(double noise_variance, std::size_t batch, std::size_t n) {
  validate_barker(noise_variance, batch, n);
  const double q = static_cast<double>(batch) / static_cast<double>(n);
  // The per-iteration certificate depends only on (σ², b, n): cache the last one per thread
  // (PrivateData records one event per iteration).
  struct Key {
    double s2 = 0.0;
    std::size_t b = 0, n = 0;
    double eps = 0.0;
  };
  thread_local Key cache;
  if (cache.s2 != noise_variance || cache.b != batch || cache.n != n) {
    cache = {noise_variance, batch, n,
             barker_epsilon(1, q, batch, noise_variance, kBarkerEventDelta).value};
  }
  PrivacyEvent e;
  e.mechanism = Mechanism::approximate_dp;
  e.epsilon = cache.eps;
  e.delta = kBarkerEventDelta;
  e.sampling = Sampling::without_replacement;
  e.sampling_rate = q;
  e.relation = Neighbouring::substitute;
  e.sensitivity = 2.0 / std::sqrt(static_cast<double>(batch));
  e.noise_sd = std::sqrt(noise_variance);
  e.count = 1;
  e.kind = ReleaseKind::barker_test;
  return e;
}

std::vector<PrivacyEvent> dp_barker_template(double noise_variance, std::size_t batch,
                                             std::size_t n) {
  return {dp_barker_event(noise_variance, batch, n)};
}

bool decode_barker_event(const PrivacyEvent& e, BarkerEventParams& out) {
  if (e.mechanism != Mechanism::approximate_dp || e.kind != ReleaseKind::barker_test ||
      e.sampling != Sampling::without_replacement || e.relation != Neighbouring::substitute)
    return false;
  if (!(e.sampling_rate > 0.0 && e.sampling_rate <= 1.0)) return false;
  if (!(e.sensitivity > 0.0 && std::isfinite(e.sensitivity))) return false;
  if (!(e.noise_sd > 0.0 && std::isfinite(e.noise_sd))) return false;
  const double b = 4.0 / (e.sensitivity * e.sensitivity);
  const double rounded = std::round(b);
  if (!(rounded >= 6.0 && rounded < 0x1.0p53) || std::abs(b - rounded) > 1e-6 * rounded)
    return false;
  out.batch = static_cast<std::size_t>(rounded);
  out.q = e.sampling_rate;
  out.noise_variance = e.noise_sd * e.noise_sd;
  return barker_max_order(out.batch, out.noise_variance) >= 3 &&
         out.noise_variance < std::numbers::pi * std::numbers::pi / 3.0;
}

bool BarkerRdpAccountant::supports(const PrivacyEvent& event) const {
  BarkerEventParams p;
  return decode_barker_event(event, p);
}

std::unique_ptr<PrivacyProfile> BarkerRdpAccountant::compose(
    std::span<const PrivacyEvent> events) const {
  check_supported(*this, events);
  check_single_relation(events, name());
  // Group identical releases so that each curve is computed once.
  struct Group {
    BarkerEventParams p;
    double count = 0.0;
  };
  std::vector<Group> groups;
  for (const PrivacyEvent& e : events) {
    BarkerEventParams p;
    decode_barker_event(e, p);
    auto it = std::find_if(groups.begin(), groups.end(), [&](const Group& g) {
      return g.p.batch == p.batch && g.p.q == p.q && g.p.noise_variance == p.noise_variance;
    });
    if (it == groups.end()) {
      groups.push_back({p, 0.0});
      it = groups.end() - 1;
    }
    it->count += static_cast<double>(e.count);
  }
  std::vector<double> total;
  for (const Group& g : groups) {
    const auto curve = one_iteration_curve(g.p.q, g.p.batch, g.p.noise_variance);
    if (total.empty()) total.assign(curve.size(), 0.0);
    total.resize(std::min(total.size(), curve.size()));  // orders admissible for every event
    for (std::size_t a = 0; a < total.size(); ++a) total[a] += g.count * curve[a];
  }
  return std::make_unique<BarkerProfile>(std::move(total));
}

}  // namespace dpmcmc
