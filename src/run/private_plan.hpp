// Planning a private run and reporting its spend (docs/architecture.md, issue "Private data
// access…"): before the run, the planner turns the budget and the sampler's per-iteration release
// template into iterations per chain (the M chains share one budget); after it, the spend is
// composed again from the events the releases actually recorded, with every applicable accountant,
// and the report shows planned beside recorded.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "privacy/accountants.hpp"
#include "privacy/budget.hpp"
#include "privacy/event_log.hpp"
#include "privacy/planner.hpp"
#include "run/pure_memo.hpp"

namespace dpmcmc {

struct PrivateRunPlan {
  Budget budget;  // the user's (ε, δ)
  // The δ the accountants plan and certify with: budget.delta less the share reserved for the
  // float-safe noise's discretisation (grid_noise.hpp) when the template has such releases.
  double accountant_delta = 0.0;
  // (1 + e^ε)·K·η(2⁴⁰) for the K coordinates the scheduled iterations release with discrete
  // Gaussian noise (privacy/discrete_noise_bound.hpp); accountant_delta + this ≤ budget.delta.
  double discretisation_delta = 0.0;
  std::vector<PrivacyEvent> per_iteration;  // the sampler's release template
  TightestPlan tightest;                    // iterations allowed, and by which accountant
  ChainSplit split;                         // iterations per chain (warmup included)
  std::uint64_t scheduled = 0;              // Σ per_chain: what the run will release at most
  AccountantOptions options;
  // The accountants the user named (--accountants); empty: every certified one, except that an
  // exact one (Accountant::exact) makes the others unnecessary, in the plan and in the report.
  std::vector<std::string> accountants;
  // The accountant instances the plan was made with; the report composes with them, so their
  // caches (a numerical PLD's powers, RDP values) serve it too. Per job: caches of large PLDs
  // must not outlive the run (an experiment's memo would keep them for every cell).
  std::vector<std::shared_ptr<const Accountant>> instances;
};

// Plans and composed ε memoised across the runs that repeat them: an experiment plans the same
// cell in every repeat, and with a numerical PLD accountant a plan costs seconds (FFT
// compositions), more than a minibatch cell's sampling (docs/benchmarks.md). Owned by whoever
// runs the repeats (the experiment runner) and handed down — no process-wide state; the
// computations are pure (pure_memo.hpp), so a hit returns what the computation would.
struct PlanMemo {
  PureMemo<TightestPlan> plans;
  PureMemo<double> epsilons;
};

// Plans with `accountants` (empty: every registered certified upper-bound accountant that
// interprets the template) and splits the iterations allowed equally among `chains` chains.
// Releases of the kinds PrivateData adds float-safe noise to (is_grid_noised) leave a share
// 2⁻¹⁰ of δ to their discretisation: the accountants plan with δ(1 − 2⁻¹⁰), and the
// discretisation's δ for the scheduled releases, each of at most `release_coordinates`
// coordinates, with the smallest discrete noise scale among the template's releases, must fit
// in the rest. Throws ConfigError when the budget allows no iteration for
// some chain (naming the budget) or the discretisation does not fit (naming ε and the count).
PrivateRunPlan plan_private_run(const Budget& budget, std::vector<PrivacyEvent> per_iteration,
                                int chains, const std::vector<std::string>& accountants = {},
                                const AccountantOptions& options = {},
                                std::size_t release_coordinates = 1, PlanMemo* memo = nullptr);

// What the float-safe noise of one iteration's releases asks of a plan: the grid-noised releases
// per iteration and the smallest discrete noise scale among them (2⁴⁰ for the Gaussian sums and
// DP-Fast MH, privacy/barker_grid.hpp's bound for DP Barker; +∞ when there is none).
// ConfigError for a multiplier beyond the exact sampler (σ/Δ·√d > 2³⁸, d the coordinates).
struct DiscreteNoiseShare {
  std::uint64_t releases = 0;
  double min_scale = std::numeric_limits<double>::infinity();
};
DiscreteNoiseShare discrete_noise_share(std::span<const PrivacyEvent> per_iteration,
                                        std::size_t release_coordinates);
// The δ that `iterations` iterations' discrete noise adds at ε (discrete_noise_bound.hpp), each
// release of at most `release_coordinates` coordinates; 0 when no release is grid-noised.
double discretisation_delta_of(const DiscreteNoiseShare& share, std::uint64_t iterations,
                               std::size_t release_coordinates, double epsilon);

// The release kinds PrivateData adds float-safe grid noise to: all of them (llr_sum, grad_sum,
// grad_batch, llr_batch, suff_stat and DP-Fast MH's noisy branches with s ≥ 2⁴⁰; DP Barker's test
// with s ≥ barker_min_noise_scale(σ), privacy/barker_grid.hpp). Kept as a predicate so that a
// new kind must say whether it is.
bool is_grid_noised(ReleaseKind kind);

// ε(δ) per applicable accountant of (a) the scheduled iterations of the plan ("planned") and
// (b) the recorded event log ("recorded"), with each accountant's bound kind, and the
// accountant that certified the plan. Recorded ≤ planned always; they are equal when every
// chain ran its full plan. `memo` as for plan_private_run.
nlohmann::json privacy_report(const PrivateRunPlan& plan, const EventLog& recorded,
                              PlanMemo* memo = nullptr);

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
