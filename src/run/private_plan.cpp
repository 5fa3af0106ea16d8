#include "run/private_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "core/error.hpp"
#include "io/run_report.hpp"
#include "privacy/barker_grid.hpp"
#include "privacy/discrete_noise_bound.hpp"
#include "privacy/grid_noise.hpp"
#include "run/pure_memo.hpp"

namespace dpmcmc {
namespace {

// The accountants to plan and report with: those named, or every certified upper bound that
// interprets the events. An instance in `reuse` with the same name is taken instead of a new one
// (the plan's, whose caches then serve the report).
std::vector<std::shared_ptr<const Accountant>> accountants_for(
    std::span<const PrivacyEvent> events, const std::vector<std::string>& names,
    const AccountantOptions& options, bool upper_bounds_only,
    const std::vector<std::shared_ptr<const Accountant>>& reuse = {}) {
  std::vector<std::shared_ptr<const Accountant>> out;
  const std::vector<std::string> chosen =
      names.empty() ? accountants_supporting(events, options) : names;
  for (const auto& name : chosen) {
    const auto it = std::find_if(reuse.begin(), reuse.end(),
                                 [&name](const auto& a) { return a->name() == name; });
    std::shared_ptr<const Accountant> acc =
        it != reuse.end() ? *it : std::shared_ptr<const Accountant>(make_accountant(name, options));
    if (upper_bounds_only && acc->bound() != BoundKind::upper_bound) continue;
    out.push_back(std::move(acc));
  }
  return out;
}

}  // namespace

std::string private_memo_key(const char* what, const Budget& budget,
                             std::span<const PrivacyEvent> events, const nlohmann::json& names,
                             const AccountantOptions& options) {
  // Every field of every event, whatever its mechanism (an accountant may read fields that the
  // report's JSON of that mechanism leaves out, e.g. DP Barker's batch size in `sensitivity`,
  // and the kind: the Barker accountants analyse barker_test events their own way);
  // doubles in shortest round-trip form, so distinct values give distinct keys.
  nlohmann::json list = nlohmann::json::array();
  for (const PrivacyEvent& e : events) {
    list.push_back({static_cast<int>(e.mechanism), e.sensitivity, e.noise_sd, e.sampling_rate,
                    static_cast<int>(e.sampling), static_cast<int>(e.relation), e.epsilon, e.delta,
                    e.count, static_cast<int>(e.kind)});
  }
  return nlohmann::json{{"what", what},   {"epsilon", budget.epsilon}, {"delta", budget.delta},
                        {"events", list}, {"accountants", names},      {"options", options}}
      .dump();
}

namespace {

// ε(δ) of `events` under one accountant, memoised in `memo` when given: the report composes the
// planned and the recorded events, which are usually equal, in every repeat of a cell.
double memo_epsilon(const Accountant& acc, std::span<const PrivacyEvent> events, double delta,
                    const AccountantOptions& options, PlanMemo* memo) {
  const auto compute = [&] { return acc.compose(events)->epsilon(delta); };
  if (memo == nullptr) return compute();
  return memo->epsilons.get(
      private_memo_key("epsilon", Budget{1.0, delta}, events, acc.name(), options), compute);
}

// K: the coordinates the scheduled iterations' grid releases noise.
double share_coordinates(const DiscreteNoiseShare& share, std::uint64_t iterations,
                         std::size_t release_coordinates) {
  return static_cast<double>(iterations) * static_cast<double>(share.releases) *
         static_cast<double>(std::max<std::size_t>(release_coordinates, 1));
}

}  // namespace

PrivateRunPlan plan_private_run(const Budget& budget, std::vector<PrivacyEvent> per_iteration,
                                int chains, const std::vector<std::string>& accountants,
                                const AccountantOptions& options, std::size_t release_coordinates,
                                PlanMemo* memo) {
  validate_budget(budget);
  if (chains < 1) throw ConfigError("a private run needs at least one chain");
  PrivateRunPlan plan;
  plan.budget = budget;
  plan.per_iteration = std::move(per_iteration);
  plan.options = options;
  plan.accountants = accountants;
  const DiscreteNoiseShare share = discrete_noise_share(plan.per_iteration, release_coordinates);
  const std::uint64_t grid_releases = share.releases;
  const double reserve = grid_releases > 0 ? std::ldexp(budget.delta, -10) : 0.0;
  plan.accountant_delta = budget.delta - reserve;
  const Budget accountant_budget{budget.epsilon, plan.accountant_delta};
  const auto owned = accountants_for(plan.per_iteration, accountants, options, true);
  plan.instances = owned;
  if (owned.empty()) {
    throw ConfigError("no certified accountant can interpret this sampler's releases");
  }
  std::vector<const Accountant*> ptrs;
  nlohmann::json names = nlohmann::json::array();
  for (const auto& a : owned) {
    ptrs.push_back(a.get());
    names.push_back(a->name());
  }
  // Memoised when a memo is given; the attempts' timings are then those of the first computation.
  PlanOptions plan_options;
  plan_options.stop_at_exact = accountants.empty();
  // The key tells the default (stop at an exact accountant) from the same names given.
  names.push_back(plan_options.stop_at_exact ? "stop_at_exact" : "all_named");
  const auto compute = [&] {
    return plan_iterations_tightest(accountant_budget, plan.per_iteration, ptrs, plan_options);
  };
  plan.tightest = memo == nullptr
                      ? compute()
                      : memo->plans.get(private_memo_key("plan", accountant_budget,
                                                         plan.per_iteration, names, options),
                                        compute);
  const std::uint64_t k = plan.tightest.best.iterations;
  if (k < static_cast<std::uint64_t>(chains)) {
    throw ConfigError(fmt::format(
        "privacy budget (epsilon {}, delta {}) allows {} iteration(s) in total ({}), fewer than "
        "one per chain for {} chains: raise epsilon, lower the noise multiplier's cost, or run "
        "fewer chains",
        budget.epsilon, budget.delta, k, plan.tightest.best.accountant, chains));
  }
  plan.split = split_among_chains(k, static_cast<std::uint64_t>(chains), true);
  for (auto c : plan.split.per_chain) plan.scheduled += c;
  const double coordinates = share_coordinates(share, plan.scheduled, release_coordinates);
  plan.discretisation_delta =
      discretisation_delta_of(share, plan.scheduled, release_coordinates, budget.epsilon);
  if (!(plan.discretisation_delta <= reserve)) {
    throw ConfigError(fmt::format(
        "privacy budget (epsilon {}, delta {}): the discrete noise of {} released coordinates "
        "adds delta {:.3g}, more than the {:.3g} reserved for it; lower epsilon or the number of "
        "iterations",
        budget.epsilon, budget.delta, coordinates, plan.discretisation_delta, reserve));
  }
  return plan;
}

DiscreteNoiseShare discrete_noise_share(std::span<const PrivacyEvent> per_iteration,
                                        std::size_t release_coordinates) {
  DiscreteNoiseShare share;
  const double root_d =
      std::sqrt(static_cast<double>(std::max<std::size_t>(release_coordinates, 1)));
  for (const auto& e : per_iteration) {
    if (!is_grid_noised(e.kind)) continue;
    share.releases += e.count;
    if (e.kind == ReleaseKind::barker_test) {
      share.min_scale = std::min(share.min_scale, barker_min_noise_scale(e.noise_sd));
      continue;
    }
    share.min_scale = std::min(share.min_scale, std::ldexp(1.0, kGridNoiseScaleBits));
    // DP-Fast MH's (ε, δ) events carry no σ; its release checks the scale (grid_noise.hpp).
    if (e.kind == ReleaseKind::fastmh) continue;
    // The discrete noise's scale is about 2⁴¹ + m·√d grid steps, at most 2⁴² (grid_noise.hpp).
    if (!(e.noise_multiplier() * root_d <= 0x1.0p38)) {
      throw ConfigError(fmt::format(
          "the sampler's noise multiplier sigma/Delta = {:.4g} is too large for the exact "
          "discrete noise (at most 2^38/sqrt(d) = {:.4g}); such a release carries essentially no "
          "information about the data: choose hyperparameters with less noise (e.g. a larger "
          "--step-size or a smaller --tau)",
          e.noise_multiplier(), 0x1.0p38 / root_d));
    }
  }
  return share;
}

double discretisation_delta_of(const DiscreteNoiseShare& share, std::uint64_t iterations,
                               std::size_t release_coordinates, double epsilon) {
  if (share.releases == 0) return 0.0;
  return discretisation_delta(epsilon, share_coordinates(share, iterations, release_coordinates),
                              share.min_scale);
}

bool is_grid_noised(ReleaseKind kind) {
  switch (kind) {
    case ReleaseKind::llr_sum:
    case ReleaseKind::grad_sum:
    case ReleaseKind::grad_batch:
    case ReleaseKind::llr_batch:
    case ReleaseKind::suff_stat:
    case ReleaseKind::barker_test:
    case ReleaseKind::fastmh:
      return true;
    default:
      return false;
  }
}

double composed_epsilon(const std::string& accountant, std::span<const PrivacyEvent> events,
                        double delta, const AccountantOptions& options) {
  const auto acc = make_accountant(accountant, options);
  return acc->compose(events)->epsilon(delta);
}

nlohmann::json privacy_report(const PrivateRunPlan& plan, const EventLog& recorded,
                              PlanMemo* memo) {
  using nlohmann::json;
  const auto scheduled = repeat_iterations(plan.per_iteration, plan.scheduled);
  const auto all = accountants_for(scheduled, {}, plan.options, false, plan.instances);
  std::vector<const Accountant*> ptrs;
  for (const auto& a : all) ptrs.push_back(a.get());
  // By default the report composes only the accountant that planned the run (issue 28: the
  // others, numerical PLDs among them, can cost more than the sampling); with --accountants it
  // composes exactly the accountants named.
  const Accountant* exact =
      plan.accountants.empty() ? exact_upper_bound(ptrs, plan.per_iteration) : nullptr;
  json rows = json::array();
  for (const Accountant* acc : ptrs) {
    json row = {{"accountant", acc->name()}, {"bound", to_string(acc->bound())}};
    if (plan.accountants.empty() && acc->name() != plan.tightest.best.accountant) {
      row["skipped"] = exact != nullptr
                           ? skipped_for_exact(*exact)
                           : fmt::format(
                                 "not run: the report composes the accountant that planned the run "
                                 "({}); name others with --accountants, or compare them with "
                                 "`dpmcmc account`",
                                 plan.tightest.best.accountant);
      rows.push_back(row);
      continue;
    }
    if (!plan.accountants.empty() && std::find(plan.accountants.begin(), plan.accountants.end(),
                                               acc->name()) == plan.accountants.end()) {
      row["skipped"] = "not run: not named in --accountants";
      rows.push_back(row);
      continue;
    }
    try {
      row["planned_epsilon"] =
          json_number(memo_epsilon(*acc, scheduled, plan.accountant_delta, plan.options, memo));
      row["recorded_epsilon"] =
          recorded.empty() ? json(0.0)
                           : json_number(memo_epsilon(*acc, recorded.events(),
                                                      plan.accountant_delta, plan.options, memo));
    } catch (const Error& e) {
      row["error"] = e.what();
    }
    rows.push_back(row);
  }
  return {{"private", true},
          {"budget", {{"epsilon", plan.budget.epsilon}, {"delta", plan.budget.delta}}},
          // ε below is each accountant's at delta_accountants; the certified δ is that plus
          // delta_discretisation (≤ the budget's δ).
          {"delta_accountants", plan.accountant_delta},
          {"delta_discretisation", plan.discretisation_delta},
          {"planned_by", plan.tightest.best.accountant},
          {"iterations_allowed", plan.tightest.best.iterations},
          {"iterations_scheduled", plan.scheduled},
          {"iterations_per_chain", plan.split.per_chain},
          {"iterations_unused", plan.split.unused},
          {"epsilon_of_iterations_allowed", json_number(plan.tightest.best.epsilon_spent)},
          {"releases_recorded", recorded.releases()},
          {"accountants", rows}};
}

}  // namespace dpmcmc
