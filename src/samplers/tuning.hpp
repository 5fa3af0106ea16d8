// What warmup adaptation may tune in a kernel (samplers/warmup_adapter.hpp): a step size ε and a
// diagonal metric m (a variance per component). A random walk proposes θ′ = θ + ε·√m ⊙ z; HMC and
// NUTS use the inverse mass matrix M⁻¹ = diag(m) and the leapfrog step ε. Both are public: for a
// private kernel they are functions of released values only (docs/decisions.md).
#pragma once

#include "core/types.hpp"

namespace dpmcmc {

struct Tuning {
  double step = 1.0;  // ε > 0
  Vec metric;         // m, size dim, entries > 0
};

// How a kernel adapts.
struct AdaptationTarget {
  double accept = 0.8;  // the target of the acceptance statistic, in (0, 1)
  bool metric = true;   // also estimate the metric from the warmup draws
  // A random-walk proposal (θ + ε√m ⊙ z): dual averaging then shrinks towards the current step
  // rather than ten times it (dual_averaging.hpp).
  bool random_walk = false;
};

// The proposal sd ε·√m of a random walk with this tuning; SoftwareError unless ε and m are
// finite and > 0 and m has size dim (the adapter never produces anything else).
Vec tuned_scale(const Tuning& tuning, int dim, const char* kernel);

// The target acceptance rate of a Gaussian random-walk Metropolis proposal in dimension d: 0.44
// for d = 1, 0.234 for d ≥ 5 (Gelman, Roberts and Gilks 1996; Roberts, Gelman and Gilks 1997;
// Roberts and Rosenthal 2001), linear in between.
double random_walk_target_accept(int dim);

}  // namespace dpmcmc
