// Honest convergence reporting (issue #25): after every run, what its diagnostics say is wrong
// and what to try, in words, on stdout and in report.json. Thresholds:
//   R̂ > 1.01, or undefined (a chain that never moved): the chains disagree (Vehtari, Gelman,
//     Simpson, Carpenter and Bürkner 2021, Section 4: use the sample only when R̂ < 1.01);
//   bulk- or tail-ESS < 100 per chain: too few effective draws for the quantities the summary
//     reports (the same paper recommends ≥ 100 per chain, e.g. 400 for four chains);
//   acceptance < 5 %: almost every proposal is rejected (for a private test: the noise dominates);
//   acceptance > 95 % for a random-walk proposal: its steps are too small to explore (Roberts,
//     Gelman and Gilks 1997: ≈ 23 % is optimal in high dimension, 44 % in one);
//   any divergent transition after warmup (a divergent__ column, HMC and NUTS): the integrator
//     could not follow the posterior's curvature somewhere, and the draws may be biased there
//     (Betancourt 2017, Section 6.2; Stan warns at one);
//   a step and metric adapted over fewer than 150 warmup iterations: Stan's schedule needs 75 + 25
//     + 50 (fast, slow, fast), and below it the tuning comes from a few noisy accept statistics.
//     (Adapted private samplers lose to the papers' hand tuning at warmups of 12 to 239
//     iterations: experiments/results/adaptation-full/README.md.)
// Only the model's parameters are checked, and the sampler's divergent__ column.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "diagnostics/summary.hpp"

namespace dpmcmc {

// What the acceptance rate of a sampler can say.
enum class AcceptanceCheck {
  none,         // no accept test (DP-SGLD, DP-SGNHT): nothing
  low_only,     // HMC-type: only a rate near 0 is a symptom (near 1 is a small step, not a fault)
  random_walk,  // random-walk MH: near 0 and near 1 are both symptoms
};

struct ConvergenceWarning {
  std::string check;    // "rhat", "ess_bulk", "ess_tail", "acceptance", "divergent", "adaptation"
  std::string subject;  // a parameter name, or "chain K"
  double value = 0.0;   // NaN for an undefined R̂
  double threshold = 0.0;
  std::string problem;  // what is wrong, e.g. "R-hat 1.256 > 1.01: the chains disagree"
  std::string advice;   // what to try
};

// The warnings of a run: `summary` over its kept draws (empty parameters: nothing to check),
// `parameters` the model's parameter names, acceptance_rates[c] chain c's sampling-phase rate
// (NaN: none). `private_run` adds the advice only a private run needs (its length comes from ε);
// `budget`, when given, is that advice in full: what its budget bought and what a larger one
// would buy for this sampler and model (e.g. "epsilon = 4 allows 1500 iterations per chain (750
// warmup), too few for this posterior: a larger --epsilon buys more iterations").
// `adapted_warmup` is the warmup the tuning adapted over (none: the run did not adapt).
std::vector<ConvergenceWarning> convergence_warnings(
    const Summary& summary, std::span<const std::string> parameters,
    std::span<const double> acceptance_rates, AcceptanceCheck acceptance, bool private_run,
    const std::string& budget = "", std::optional<std::size_t> adapted_warmup = {});

// The shortest warmup the adaptation schedule is built for (Stan's 75 + 25 + 50).
inline constexpr std::size_t kAdaptationWarmupMin = 150;

// [{"check": …, "subject": …, "value": … (null when undefined), "threshold": …, "problem": …,
//   "advice": …}].
nlohmann::json warnings_json(std::span<const ConvergenceWarning> warnings);

// For a terminal: one "WARNING: subject: problem; problem" line per subject, then each distinct
// advice once as "  try: …". Empty when there is no warning.
std::string format_warnings(std::span<const ConvergenceWarning> warnings);

}  // namespace dpmcmc
