// Reading an event list for the Gaussian-family accountants (RDP and numerical PLD): which of the
// three supported release kinds each event is, and identical events merged so that each distinct
// (kind, q, σ/Δ) is analysed once and composed `count` times.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "privacy/accountant.hpp"
#include "privacy/privacy_event.hpp"

namespace dpmcmc {

enum class GaussianRelease {
  plain,               // Gaussian mechanism on the whole data (or q = 1), either relation
  poisson_add_remove,  // Poisson subsampling with rate q < 1, add/remove neighbours
  wor_substitute,      // fixed-size batch without replacement, q = b/n < 1, substitute neighbours
  unsupported,         // any other combination (approximate_dp, Poisson + substitute, ...)
};

// The kind of one event; does not validate its numbers (see validate_event).
GaussianRelease classify_gaussian_release(const PrivacyEvent& event);

struct GaussianReleaseGroup {
  GaussianRelease kind = GaussianRelease::plain;
  double sampling_rate = 1.0;     // q (1 for plain)
  double noise_multiplier = 1.0;  // σ/Δ
  std::uint64_t count = 0;        // number of releases
};

struct GaussianReleaseList {
  Neighbouring relation = Neighbouring::add_remove;  // shared by every event
  std::vector<GaussianReleaseGroup> groups;          // in order of first appearance
};

// σ/Δ rounded to 32 significant bits (relative change < 2⁻³¹), towards the side that keeps the
// bound certified: down for an upper bound (a smaller multiplier spends more), up otherwise.
// The float-safe noise records multipliers that differ from the planned one by ~1e-12
// (grid_noise.hpp); rounded, they are equal, so the releases of a run form one group and the
// accountants' caches (numerical PLD powers, RDP values) serve the plan, the record and every
// iteration's spend column alike.
double rounded_multiplier(double noise_multiplier, BoundKind bound);

// Validates every event (validate_event), throws ConfigError naming the first event `accountant`
// cannot interpret, and throws ConfigError when the events mix neighbouring relations: a bound
// for add/remove neighbours and one for substitute neighbours do not compose into a bound for
// either. Events with equal kind, q and rounded σ/Δ (rounded_multiplier for the accountant's
// bound) are merged (their counts added).
GaussianReleaseList group_gaussian_releases(const Accountant& accountant,
                                            std::span<const PrivacyEvent> events);

}  // namespace dpmcmc
