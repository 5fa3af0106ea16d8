// The proposal step shared by the DP penalty kernels (full-data and minibatch;
// [Raisa2021] Sections 3.1 and 3.4): a Gaussian random walk on all components, a
// one-component update (OCU), or the guided walk on one component (GWMH). The variants and why
// each leaves the penalty correction unchanged are described in samplers/dp_penalty.hpp.
// Everything here is post-processing: it reads the algorithm stream and public values only.
#pragma once

#include "core/rng.hpp"
#include "core/types.hpp"

namespace dpmcmc {

enum class PenaltyProposal { full, one_component, guided_walk };

struct PenaltyMove {
  int component = -1;      // the moved component (OCU, GWMH); −1 for a full move
  double step_norm = 0.0;  // ‖θ′ − θ‖₂, which scales the clip bound and the noise
};

// Writes θ′ into `proposal` (sized like θ). Draws from `rng`: full — one normal per component;
// OCU and GWMH — a component index, then one normal. GWMH moves component j by
// direction[j]·scale[j]·|z|. `scale` and `direction` have θ's size.
PenaltyMove propose_penalty_move(PenaltyProposal kind, const Vec& theta, const Vec& scale,
                                 const Vec& direction, Rng& rng, Vec& proposal);

// GWMH bookkeeping after the accept/reject decision: the moved component's direction is kept
// after an accept and flipped after a reject. No-op for the other variants.
void update_guided_direction(PenaltyProposal kind, const PenaltyMove& move, bool accepted,
                             Vec& direction);

}  // namespace dpmcmc
