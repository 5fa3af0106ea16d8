// Neighbouring datasets for the auditor: candidate pairs (D, D′) that differ in one canary row
// chosen to push a mechanism's sensitivity to its bound (issue #27). The auditor knows nothing
// of the mechanism, so it tries several and keeps the one a pilot run separates best.
//
// From a base dataset (public synthetic data) and per column its observed range [lo, hi]
// (width w, 1 when constant): the extreme values lo − m·w and hi + m·w for m ∈ {0, 1, 10}
// (m = 0 keeps the canary inside a declared box, as an exponential family's statistic requires;
// m = 10 is far beyond any clip bound). Binary columns take 0 and 1.
//   substitute   row 0 of D and of D′ differ: column j at its low and at its high extreme, each
//                column alone ("x.j±m") and all columns at once ("corner±m"); and the untouched
//                row 0 against the high corner ("row0/corner+m").
//   add/remove   D is the base; D′ appends one canary row: each single-column extreme and both
//                corners.
#pragma once

#include <string>
#include <vector>

#include "data/dataset.hpp"
#include "privacy/privacy_event.hpp"

namespace dpmcmc {

struct NeighbourPair {
  std::string name;  // how the canary was chosen, e.g. "x.1 far (m = 10)"
  Dataset d;
  Dataset d_prime;
};

// ConfigError for an empty base.
std::vector<NeighbourPair> canary_pairs(const Dataset& base, Neighbouring relation);

}  // namespace dpmcmc
