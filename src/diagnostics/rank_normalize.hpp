// Rank normalisation (Vehtari et al. 2021, Section 4.1; posterior's r_scale / z_scale).
#pragma once

#include "diagnostics/chains.hpp"

namespace dpmcmc {

// Ranks 1 … S of all S entries pooled over chains, ties given their average rank (R's
// rank(ties.method = "average")), in the shape of the input.
Mat average_ranks(const ChainDraws& draws);

// z_(i) = Φ⁻¹((r_(i) − 3/8) / (S + 1/4)): Blom's (1958) offset c = 3/8 in posterior's
// backtransform_ranks (r − c)/(S − 2c + 1), and in ArviZ's _z_scale.
Mat z_scale(const ChainDraws& draws);

}  // namespace dpmcmc
