#include "samplers/penalty_proposal.hpp"

#include <cmath>
#include <cstdint>

namespace dpmcmc {

PenaltyMove propose_penalty_move(PenaltyProposal kind, const Vec& theta, const Vec& scale,
                                 const Vec& direction, Rng& rng, Vec& proposal) {
  proposal = theta;
  const auto dim = static_cast<int>(theta.size());
  PenaltyMove move;
  switch (kind) {
    case PenaltyProposal::full:
      for (int i = 0; i < dim; ++i) proposal[i] += scale[i] * rng.normal();
      move.step_norm = (proposal - theta).norm();
      break;
    case PenaltyProposal::one_component: {
      move.component = static_cast<int>(rng.index(static_cast<std::uint64_t>(dim)));
      const double step = scale[move.component] * rng.normal();
      proposal[move.component] += step;
      move.step_norm = std::abs(step);
      break;
    }
    case PenaltyProposal::guided_walk: {
      move.component = static_cast<int>(rng.index(static_cast<std::uint64_t>(dim)));
      const double step = scale[move.component] * std::abs(rng.normal());
      proposal[move.component] += direction[move.component] * step;
      move.step_norm = step;
      break;
    }
  }
  return move;
}

void update_guided_direction(PenaltyProposal kind, const PenaltyMove& move, bool accepted,
                             Vec& direction) {
  if (kind == PenaltyProposal::guided_walk && !accepted) {
    direction[move.component] = -direction[move.component];
  }
}

}  // namespace dpmcmc
