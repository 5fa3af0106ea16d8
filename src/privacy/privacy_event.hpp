// Privacy events (docs/architecture.md): plain data describing one release (or `count` identical
// releases) of a mechanism. Accountants interpret lists of events; they never trust a formula
// about what a sampler "should" have done.
#pragma once

#include <cstdint>

#include "privacy/release_kind.hpp"

namespace dpmcmc {

enum class Mechanism {
  // Gaussian mechanism: L2 sensitivity Δ, noise N(0, σ² I). Privacy depends on σ/Δ only.
  gaussian,
  // Gaussian mechanism applied to a subsample drawn with rate q (see Sampling).
  subsampled_gaussian,
  // A mechanism known only through an (ε, δ)-DP guarantee per release (e.g. DP-Fast MH's
  // per-iteration certificate); composed by (ε, δ) composition theorems only.
  approximate_dp,
};

enum class Sampling {
  none,                 // the whole dataset
  poisson,              // each row independently with probability q
  without_replacement,  // a fixed-size batch of b rows, q = b/n
};

enum class Neighbouring {
  add_remove,  // datasets differ by adding or removing one row
  substitute,  // datasets of the same size differ in one row
};

struct PrivacyEvent {
  Mechanism mechanism = Mechanism::gaussian;
  double sensitivity = 1.0;    // L2 sensitivity Δ of the released sum (Gaussian kinds)
  double noise_sd = 1.0;       // σ of the added Gaussian noise per coordinate (Gaussian kinds)
  double sampling_rate = 1.0;  // q ∈ (0, 1]
  Sampling sampling = Sampling::none;
  Neighbouring relation = Neighbouring::add_remove;
  double epsilon = 0.0;                   // approximate_dp only
  double delta = 0.0;                     // approximate_dp only
  std::uint64_t count = 1;                // number of identical releases this event stands for
  ReleaseKind kind = ReleaseKind::other;  // what was released (typed: never a label string)

  // σ/Δ: the only quantity a Gaussian event's privacy depends on.
  double noise_multiplier() const { return noise_sd / sensitivity; }
};

}  // namespace dpmcmc
