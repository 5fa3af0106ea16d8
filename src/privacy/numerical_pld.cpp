#include "privacy/numerical_pld.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "privacy/rdp_events.hpp"

namespace dpmcmc {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

void check_delta(double delta) {
  if (!(delta > 0.0 && delta < 1.0))
    throw ConfigError(fmt::format("δ must be in (0, 1), got {}", delta));
}
void check_epsilon(double epsilon) {
  if (!(epsilon >= 0.0) || std::isnan(epsilon))
    throw ConfigError(fmt::format("ε must be ≥ 0, got {}", epsilon));
}

}  // namespace

double DiscretePld::finite_mass() const {
  long double s = 0;
  for (double p : pmf) s += p;
  return static_cast<double>(s);
}

double DiscretePld::delta(double epsilon) const {
  check_epsilon(epsilon);
  if (epsilon == kInf) return rounding == PldRounding::pessimistic ? infinity_mass : 0.0;
  long double s = infinity_mass;
  for (std::size_t i = pmf.size(); i-- > 0;) {
    const double l = loss(i);
    if (l <= epsilon) break;
    s += static_cast<long double>(pmf[i]) * -std::expm1(epsilon - l);
  }
  s += rounding == PldRounding::pessimistic ? roundoff_mass : -roundoff_mass;
  return std::clamp(static_cast<double>(s), 0.0, 1.0);
}

double DiscretePld::epsilon(double delta) const {
  check_delta(delta);
  // Solve D(ε) = target with D(ε) = inf + Σ_{ℓ_i > ε} p_i (1 − e^{ε − ℓ_i}), continuous and
  // decreasing; on [ℓ_{i−1}, ℓ_i) it is inf + S_p − e^ε S_e with suffix sums S_p, S_e.
  const double target =
      delta - (rounding == PldRounding::pessimistic ? roundoff_mass : -roundoff_mass);
  if (infinity_mass >= target) return kInf;
  long double sp = 0, se = 0;
  for (std::size_t i = pmf.size(); i-- > 0;) {
    const double l = loss(i);
    if (l <= 0.0) break;
    sp += pmf[i];
    se += static_cast<long double>(pmf[i]) * std::exp(-l);
    const double left = std::max(0.0, l - interval);
    const long double d_left = infinity_mass + sp - std::exp(static_cast<long double>(left)) * se;
    if (d_left > target) {
      if (se <= 0) return l;
      const long double e = std::log((infinity_mass + sp - target) / se);
      return std::clamp(static_cast<double>(e), left, l);
    }
  }
  return 0.0;
}

NumericalPldProfile::NumericalPldProfile(std::vector<DiscretePld> directions, PldRounding rounding)
    : directions_(std::move(directions)), rounding_(rounding) {}

double NumericalPldProfile::epsilon(double delta) const {
  check_delta(delta);
  double e = 0.0;
  for (const auto& d : directions_) e = std::max(e, d.epsilon(delta));
  return e;
}

double NumericalPldProfile::delta(double epsilon) const {
  check_epsilon(epsilon);
  double v = 0.0;
  for (const auto& d : directions_) v = std::max(v, d.delta(epsilon));
  return v;
}

std::string NumericalPldProfile::caveat(double delta) const {
  check_delta(delta);
  double roundoff = 0.0, infinite = 0.0;
  for (const auto& d : directions_) {
    roundoff = std::max(roundoff, d.roundoff_mass);
    infinite = std::max(infinite, d.infinity_mass);
  }
  constexpr const char* coarser = "a coarser --pld-interval (fewer bins, less round-off)";
  if (rounding_ == PldRounding::pessimistic) {
    if (roundoff + infinite < delta) return {};
    return fmt::format(
        "no finite ε certified at δ = {:g}: the error allowance of the numerical PLD ({:.3g} FFT "
        "round-off bound + {:.3g} loss mass beyond the grid) is at least δ; the true ε may be "
        "finite; use {}, a larger δ or the rdp accountant",
        delta, roundoff, infinite, coarser);
  }
  if (roundoff >= delta) {
    return fmt::format(
        "loose lower bound: the FFT round-off bound {:.3g} is at least δ = {:g}, so ε is computed "
        "at δ + {:.3g}; use {} or a larger δ (the rdp accountant gives upper bounds only)",
        roundoff, delta, roundoff, coarser);
  }
  // Optimistic rounding moves every loss down to a grid point: releases whose losses are mostly
  // below one interval h collapse to loss 0, and the composition with them.
  if (epsilon(delta) == 0.0) {
    return "trivial lower bound ε = 0: the losses of single releases may be below the grid "
           "interval; a finer --pld-interval gives an informative lower bound";
  }
  return {};
}

NumericalPldAccountant::NumericalPldAccountant(PldRounding rounding, NumericalPldOptions options)
    : rounding_(rounding), options_(options) {
  validate(options_);
}

std::string NumericalPldAccountant::name() const {
  return rounding_ == PldRounding::pessimistic ? "pld-numerical-upper" : "pld-numerical-lower";
}

BoundKind NumericalPldAccountant::bound() const {
  return rounding_ == PldRounding::pessimistic ? BoundKind::upper_bound : BoundKind::lower_bound;
}

bool NumericalPldAccountant::supports(const PrivacyEvent& event) const {
  return classify_gaussian_release(event) != GaussianRelease::unsupported;
}

DiscretePld NumericalPldAccountant::power(double q, double noise_multiplier, PldDirection direction,
                                          std::uint64_t k) const {
  const std::lock_guard lock(mutex_);
  auto& powers = powers_[std::make_tuple(q, noise_multiplier, static_cast<int>(direction))];
  if (powers.empty())
    powers.push_back(subsampled_gaussian_pld(q, noise_multiplier, direction, rounding_, options_));
  DiscretePld result = identity_pld(options_.interval, rounding_);
  bool is_identity = true;
  for (std::size_t j = 0; k > 0; ++j, k >>= 1u) {
    if (j == powers.size())
      powers.push_back(dpmcmc::compose(powers[j - 1], powers[j - 1], options_));
    if (k & 1u) {
      result = is_identity ? powers[j] : dpmcmc::compose(result, powers[j], options_);
      is_identity = false;
    }
  }
  return result;
}

std::unique_ptr<NumericalPldProfile> NumericalPldAccountant::compose_pld(
    std::span<const PrivacyEvent> events) const {
  const auto list = group_gaussian_releases(*this, events);
  const bool any_poisson = std::any_of(list.groups.begin(), list.groups.end(), [](const auto& g) {
    return g.kind == GaussianRelease::poisson_add_remove;
  });
  // Add/remove with Poisson releases: the remove and add directions are composed separately.
  // Otherwise every pair involved is symmetric and one composition covers both orders.
  std::vector<PldDirection> directions{PldDirection::remove};
  if (any_poisson) directions.push_back(PldDirection::add);
  std::vector<DiscretePld> composed;
  for (PldDirection dir : directions) {
    DiscretePld total = identity_pld(options_.interval, rounding_);
    bool first = true;
    for (const auto& g : list.groups) {
      PldDirection d = PldDirection::remove;  // plain Gaussian: symmetric pair
      if (g.kind == GaussianRelease::poisson_add_remove) d = dir;
      if (g.kind == GaussianRelease::wor_substitute) d = PldDirection::symmetric;
      DiscretePld part = power(g.sampling_rate, g.noise_multiplier, d, g.count);
      total = first ? std::move(part) : dpmcmc::compose(total, part, options_);
      first = false;
    }
    composed.push_back(std::move(total));
  }
  return std::make_unique<NumericalPldProfile>(std::move(composed), rounding_);
}

std::unique_ptr<PrivacyProfile> NumericalPldAccountant::compose(
    std::span<const PrivacyEvent> events) const {
  return compose_pld(events);
}

}  // namespace dpmcmc
