// The accept/reject rule of a Metropolis–Hastings-type kernel, kept as one swappable function
// (docs/architecture.md, BlackJAX's shape): RWMH and HMC build a MoveProposal and ask the rule
// whether to move. The non-private rules live here; the private ones (the penalty test of
// [RaisaKoskelaHonkela2021] Section 3 / Algorithm 1, DP Barker, TunaMH) plug into the same slot
// and compute the data part of the ratio through PrivateData releases instead of
// log_density_from/log_density_to.
#pragma once

#include <functional>

#include "core/rng.hpp"
#include "core/types.hpp"

namespace dpmcmc {

// Everything a rule may need about one proposed move θ → θ′. The references must outlive the
// call only (rules do not keep them).
struct MoveProposal {
  const Vec& from;  // θ, the current position
  const Vec& to;    // θ′, the proposed position
  // log π(θ) and log π(θ′) up to a shared constant, as far as the kernel knows them; NaN when the
  // kernel never sees the exact density (private kernels), in which case the rule obtains the
  // data term itself.
  double log_density_from;
  double log_density_to;
  // The data-free rest of the log acceptance ratio: log q(θ | θ′) − log q(θ′ | θ) for a proposal
  // density q (0 for a symmetric random walk), K(p) − K(p′) for HMC's kinetic energy.
  double log_correction;
};

struct AcceptDecision {
  bool accept = false;
  // Stan's accept_stat__: the probability with which this rule accepts this proposal.
  double accept_stat = 0.0;
};

// A rule draws whatever uniforms it needs from the chain's algorithm stream. Private rules carry
// their own state (PrivateData, noise stream) inside the callable.
using AcceptRule = std::function<AcceptDecision(const MoveProposal&, Rng&)>;

// log α = log π(θ′) − log π(θ) + log_correction for the exact rules; a NaN (e.g. from −∞ − −∞ or
// a NaN density) is mapped to −∞ so that such a proposal is always rejected, never accepted.
double log_acceptance_ratio(const MoveProposal& move);

// Metropolis–Hastings: accept with probability min(1, exp(log α)). Always draws exactly one
// uniform, so the stream position does not depend on the outcome.
AcceptDecision metropolis_accept(const MoveProposal& move, Rng& rng);

// Barker's rule: accept with probability 1 / (1 + exp(−log α)) (the non-private form of the DP
// Barker test, [Raisa2021short]). Also a valid detailed-balance rule, with a lower
// acceptance rate than Metropolis. Always draws exactly one uniform.
AcceptDecision barker_accept(const MoveProposal& move, Rng& rng);

}  // namespace dpmcmc
