#include "privacy/rdp_events.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/error.hpp"
#include "privacy/event_checks.hpp"
#include "privacy/event_names.hpp"

namespace dpmcmc {

GaussianRelease classify_gaussian_release(const PrivacyEvent& e) {
  if (e.mechanism == Mechanism::approximate_dp) return GaussianRelease::unsupported;
  if (e.sampling == Sampling::none) return GaussianRelease::plain;
  if (e.sampling == Sampling::poisson && e.relation == Neighbouring::add_remove) {
    return e.sampling_rate == 1.0 ? GaussianRelease::plain : GaussianRelease::poisson_add_remove;
  }
  if (e.sampling == Sampling::without_replacement && e.relation == Neighbouring::substitute) {
    return e.sampling_rate == 1.0 ? GaussianRelease::plain : GaussianRelease::wor_substitute;
  }
  return GaussianRelease::unsupported;
}

double rounded_multiplier(double z, BoundKind bound) {
  if (!(z > 0.0) || !std::isfinite(z)) return z;
  int exponent = 0;
  const double mantissa = std::frexp(z, &exponent);  // z = mantissa · 2^exponent, ½ ≤ mantissa < 1
  const double scaled = std::ldexp(mantissa, 32);  // exact: 32 integer bits and a fraction
  const double kept = bound == BoundKind::upper_bound ? std::floor(scaled) : std::ceil(scaled);
  return std::ldexp(kept, exponent - 32);
}

GaussianReleaseList group_gaussian_releases(const Accountant& accountant,
                                            std::span<const PrivacyEvent> events) {
  check_supported(accountant, events);
  GaussianReleaseList out;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const PrivacyEvent& e = events[i];
    if (i == 0) {
      out.relation = e.relation;
    } else if (e.relation != out.relation) {
      throw ConfigError(fmt::format(
          "accountant '{}': event #{} {} uses the '{}' neighbouring relation but event #1 uses "
          "'{}'; guarantees for different relations do not compose",
          accountant.name(), i + 1, describe(e), to_string(e.relation), to_string(out.relation)));
    }
    GaussianReleaseGroup g;
    g.kind = classify_gaussian_release(e);
    g.sampling_rate = g.kind == GaussianRelease::plain ? 1.0 : e.sampling_rate;
    g.noise_multiplier = rounded_multiplier(e.noise_multiplier(), accountant.bound());
    g.count = e.count;
    bool merged = false;
    for (auto& h : out.groups) {
      if (h.kind == g.kind && h.sampling_rate == g.sampling_rate &&
          h.noise_multiplier == g.noise_multiplier) {
        h.count += g.count;
        merged = true;
        break;
      }
    }
    if (!merged) out.groups.push_back(g);
  }
  return out;
}

}  // namespace dpmcmc
