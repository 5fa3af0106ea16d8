// The kept draws of a run as its diagnostics see them: the chains that kept any draw, cut to the
// shortest when an interrupted run left them of unequal length (R̂ and ESS need equal lengths).
#pragma once

#include <span>
#include <string>

#include "core/types.hpp"
#include "diagnostics/summary.hpp"
#include "run/runner.hpp"

namespace dpmcmc {

struct KeptDraws {
  // Every column; empty when the shortest chain that kept any draw kept fewer than 4.
  Summary summary;
  // The parameter columns of the first `shortest` draws of every chain that kept any, stacked
  // in chain order.
  Mat pooled;
};

// Summary and pooled parameter draws of `run`. chain_labels[c] (e.g. the chain's file) names
// chain c in the summary's messages. The draws are moved out of `run` and back rather than
// copied, so a long run (DP-SGLD keeps 10⁷ draws per chain) is never held twice; `run` is
// unchanged on return, also when the summary throws (DataError for draws whose column count
// differs from run.columns).
KeptDraws kept_draws(RunResult& run, std::span<const std::string> chain_labels);

}  // namespace dpmcmc
