// Warnings a private run on a user regression earns before its draws are looked at: limits of
// the sampler on that model that follow from public inputs alone (the family, the sampler, its
// parameters, n, the plan), so they cost no privacy and come first in the report (issue 60,
// "advice that is true").
//  - reach: the penalty family and DP HMC, whose budget bounds how far a chain can move
//    (run/penalty_reach.hpp), below the effective draws the convergence checks ask for;
//  - scale_bias: dp-sgld and dp-sgnht on linear or normal with σ sampled. Each row's log σ
//    gradient −1 + r²/σ² is at least −1 and unbounded above; clipping the rows' gradients cuts
//    its upper tail only, so the chains settle where the clipped sum is zero, at a σ too small
//    (docs/user-guide.md, "What the budget buys the stochastic-gradient samplers").
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "diagnostics/convergence_warnings.hpp"
#include "models/glm.hpp"
#include "run/penalty_reach.hpp"

namespace dpmcmc {

struct KnownLimitsInput {
  const std::string& sampler;
  const GlmSpec& glm;
  const nlohmann::json& params;  // the run's sampler parameters (after the budget's scaling)
  std::size_t n;
  std::size_t iterations;  // per chain, warmup included
  int chains;
  bool release_once_fits;  // the family has a released statistic: dp-nss applies
};

struct KnownLimits {
  std::optional<PenaltyReach> reach;  // for the samplers it applies to
  std::vector<ConvergenceWarning> warnings;
};

KnownLimits known_limits(const KnownLimitsInput& in);

}  // namespace dpmcmc
