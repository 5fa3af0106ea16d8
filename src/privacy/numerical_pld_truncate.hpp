// Truncation of a discretised PLD to its significant range (internal to the numerical PLD
// accountant; the rules are those of the error budget in numerical_pld.hpp).
#pragma once

#include "privacy/numerical_pld.hpp"

namespace dpmcmc {

// Clamps negative round-off to 0, applies the hard window [loss_min, loss_max], cuts tails of
// total mass ≤ tail_mass on each side (pessimistic: top tail → +∞, bottom tail → lowest kept
// bin; optimistic: top tail → top kept bin, bottom tail dropped), strips zero ends, and throws
// ConfigError when more than max_bins bins remain.
void truncate_pld(DiscretePld& pld, const NumericalPldOptions& options);

}  // namespace dpmcmc
