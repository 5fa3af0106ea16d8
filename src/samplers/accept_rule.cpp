#include "samplers/accept_rule.hpp"

#include <cmath>
#include <limits>

namespace dpmcmc {

double log_acceptance_ratio(const MoveProposal& move) {
  const double r = move.log_density_to - move.log_density_from + move.log_correction;
  return std::isnan(r) ? -std::numeric_limits<double>::infinity() : r;
}

AcceptDecision metropolis_accept(const MoveProposal& move, Rng& rng) {
  const double log_alpha = log_acceptance_ratio(move);
  const double log_u = std::log(rng.uniform_pos());
  return {log_u < log_alpha, log_alpha >= 0.0 ? 1.0 : std::exp(log_alpha)};
}

AcceptDecision barker_accept(const MoveProposal& move, Rng& rng) {
  const double log_alpha = log_acceptance_ratio(move);
  // 1 / (1 + e^{−x}) evaluated without overflow on either side.
  const double p = log_alpha >= 0.0 ? 1.0 / (1.0 + std::exp(-log_alpha))
                                    : std::exp(log_alpha) / (1.0 + std::exp(log_alpha));
  const double u = rng.uniform();
  return {u < p, p};
}

}  // namespace dpmcmc
