// What a dataset's runs have spent together (issue #30), under the composition rule the dataset
// was registered with.
//
// Why a rule fixed in advance. Runs on one dataset are chosen adaptively: a curator picks the next
// run's sampler, ε and length after seeing what earlier runs published (seed shopping is exactly
// that), and a stopped run settles to a count chosen on the way. The privacy parameters of the
// sequence are therefore themselves adaptive, which ordinary composition theorems do not cover
// (Rogers, Roth, Ullman and Vadhan 2016, "Privacy odometers and filters"). What is covered is a
// *filter*: a stopping rule on the running sum of a privacy measure, fixed before the first run.
// Two filters are used, chosen once per dataset at `ledger init`:
//  - gaussian: every release is a plain Gaussian mechanism (no subsampling) of sensitivity Δ and
//    noise σ, i.e. μ-Gaussian DP with μ = Δ/σ. Gaussian DP admits fully adaptive composition:
//    while Σ μᵢ² ≤ μ_B², the whole interaction is μ_B-GDP (Smith and Thakurta 2022, "Fully
//    adaptive composition for Gaussian differential privacy"). μ-GDP is exactly the privacy
//    curve of the Gaussian mechanism, which the pld-gaussian accountant computes, so a run is
//    admitted when that accountant's ε of all runs' releases at δ_a is at most E.
//  - basic: any mechanism; each run counts its own certificate (εᵢ, δᵢ), and a run is admitted
//    while Σεᵢ ≤ E and Σδᵢ ≤ D (basic composition is a valid filter: Rogers et al. 2016).
// The float-safe noise adds a term under the gaussian rule: each run's discrete releases are
// within total variation K·η of the continuous ones (privacy/discrete_noise_bound.hpp), the
// hybrid argument runs over the releases of all runs as over one run's, so the whole sequence is
// (ε, δ_c(ε) + (1 + e^ε)·ΣK·η)-DP, and the check is ε_c(δ_a) ≤ E with δ_a = D − (1 + e^E)·ΣK·η.
// (Under the basic rule each run's δᵢ already includes its own discretisation term.)
#pragma once

#include <span>
#include <string>
#include <utility>
#include <vector>

#include "privacy/budget.hpp"
#include "privacy/privacy_event.hpp"

namespace dpmcmc {

enum class CompositionRule { gaussian, basic };
const char* to_string(CompositionRule rule);
// "gaussian" or "basic"; UsageError naming `option` otherwise.
CompositionRule parse_composition_rule(const std::string& text, const std::string& option);

// One run's share of a dataset's budget as the ledger counts it.
struct RunSpend {
  std::vector<PrivacyEvent> events;  // the reservation, or what a finished run recorded
  double discretisation_tv = 0.0;    // K·η of its float-safe noise
  Budget budget;                     // the run's own (ε, δ): its certificate
};

struct CrossRunSpend {
  CompositionRule rule = CompositionRule::gaussian;
  double delta_accountants = 0.0;  // gaussian: D − (1 + e^E)·ΣK·η, the δ the curve is read at
  // gaussian: the ε of the Gaussian curve of all releases at delta_accountants; basic: Σεᵢ.
  // 0 with no runs; +∞ when no δ is left.
  double epsilon = 0.0;
  double sum_epsilon = 0.0;  // Σ of the runs' own ε (basic composition of their certificates)
  double sum_delta = 0.0;    // Σ of their δ
  bool within = true;        // the runs fit the dataset's budget under the rule
};

// The composition of `runs` under `rule`, checked against the dataset's budget. ConfigError when
// the runs mix neighbouring relations (their guarantees are about different neighbours and do not
// compose) or, under the gaussian rule, when a release is not a plain Gaussian mechanism (naming
// the rule to register the dataset with instead).
CrossRunSpend compose_runs(std::span<const RunSpend> runs, const Budget& dataset_budget,
                           CompositionRule rule);

}  // namespace dpmcmc
