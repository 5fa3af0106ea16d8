// Planning a private run and reporting its spend (DESIGN.md §1, issue "Private data access…"):
// before the run, the planner turns the budget and the sampler's per-iteration release template
// into iterations per chain (the M chains share one budget); after it, the spend is composed
// again from the events the releases actually recorded, with every applicable accountant, and
// the report shows planned beside recorded.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "privacy/accountants.hpp"
#include "privacy/budget.hpp"
#include "privacy/event_log.hpp"
#include "privacy/planner.hpp"

namespace dpmcmc {

struct PrivateRunPlan {
  Budget budget;
  std::vector<PrivacyEvent> per_iteration;  // the sampler's release template
  TightestPlan tightest;                    // iterations allowed, and by which accountant
  ChainSplit split;                         // iterations per chain (warmup included)
  std::uint64_t scheduled = 0;              // Σ per_chain: what the run will release at most
  AccountantOptions options;
};

// Plans with `accountants` (empty: every registered certified upper-bound accountant that
// interprets the template) and splits the iterations allowed equally among `chains` chains.
// Throws ConfigError when the budget allows no iteration for some chain (naming the budget).
PrivateRunPlan plan_private_run(const Budget& budget, std::vector<PrivacyEvent> per_iteration,
                                int chains, const std::vector<std::string>& accountants = {},
                                const AccountantOptions& options = {});

// ε(δ) per applicable accountant of (a) the scheduled iterations of the plan ("planned") and
// (b) the recorded event log ("recorded"), with each accountant's bound kind, and the
// accountant that certified the plan. Recorded ≤ planned always; they are equal when every
// chain ran its full plan.
nlohmann::json privacy_report(const PrivateRunPlan& plan, const EventLog& recorded);

// The memo key (run/pure_memo.hpp) under which plan_private_run and privacy_report keep their
// results: `what` and the exact text of every input, including every field of every event
// (labels aside, which no accountant reads).
std::string private_memo_key(const char* what, const Budget& budget,
                             std::span<const PrivacyEvent> events, const nlohmann::json& names,
                             const AccountantOptions& options);

// ε(δ) of an event list under the named accountant (+∞ when it gives no guarantee).
double composed_epsilon(const std::string& accountant, std::span<const PrivacyEvent> events,
                        double delta, const AccountantOptions& options = {});

}  // namespace dpmcmc
