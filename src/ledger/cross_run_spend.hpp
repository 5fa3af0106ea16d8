// What a dataset's runs have spent together (issue #30): the composition of every run's events
// with the certified accountants, which is tighter than adding the runs' ε's (both are shown).
//
// The argument. Runs on one dataset are an adaptive sequence of mechanisms on it (a later run may
// depend on what earlier ones published: a curator shopping for seeds is exactly that), and every
// accountant here bounds adaptive compositions in any order (privacy/event_log.hpp). So the
// concatenation of the runs' event lists is composed like the events of one long run.
// Each run's float-safe noise adds its total variation K·η to the hybrid argument of
// privacy/discrete_noise_bound.hpp; the TVs of all runs add, so the whole sequence is
// (ε, δ_c(ε) + (1 + e^ε)·ΣK·η)-DP with δ_c the continuous composition's. Checking the budget
// (E, D) therefore asks ε_c(δ_a) ≤ E with δ_a = D − (1 + e^E)·ΣK·η (ε_c is decreasing in δ).
#pragma once

#include <span>
#include <string>
#include <utility>
#include <vector>

#include "privacy/budget.hpp"
#include "privacy/privacy_event.hpp"

namespace dpmcmc {

// One run's share of a dataset's budget as the ledger counts it.
struct RunSpend {
  std::vector<PrivacyEvent> events;  // the reservation, or what a finished run recorded
  double discretisation_tv = 0.0;    // K·η of its float-safe noise
  Budget budget;                     // the run's own (ε, δ): its certificate
};

struct CrossRunSpend {
  double delta_accountants = 0.0;  // D − (1 + e^E)·ΣK·η: the δ the accountants compose at
  // Every certified upper-bound accountant that interprets all events, with its ε at
  // delta_accountants (+∞: no guarantee); empty when there are no events.
  std::vector<std::pair<std::string, double>> by_accountant;
  std::string accountant;    // the tightest ("" when none interprets the events)
  double epsilon = 0.0;      // its ε (0 with no events, +∞ when no accountant applies)
  double sum_epsilon = 0.0;  // Σ of the runs' own ε (basic composition of their certificates)
  double sum_delta = 0.0;    // Σ of their δ
  bool within(double budget_epsilon) const { return epsilon <= budget_epsilon; }
};

// The composition of `runs` checked against the dataset's budget. ConfigError when the runs mix
// neighbouring relations (their guarantees are about different neighbours and do not compose).
CrossRunSpend compose_runs(std::span<const RunSpend> runs, const Budget& dataset_budget);

}  // namespace dpmcmc
