#include "ledger/cross_run_spend.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "privacy/accountants.hpp"
#include "privacy/event_log.hpp"
#include "privacy/event_names.hpp"

namespace dpmcmc {

CrossRunSpend compose_runs(std::span<const RunSpend> runs, const Budget& dataset_budget) {
  CrossRunSpend out;
  EventLog all;  // merges the runs' identical events: the accountants see a short list
  double tv = 0.0;
  for (const RunSpend& run : runs) {
    for (const PrivacyEvent& e : run.events) {
      if (all.size() > 0 && e.relation != all.events().front().relation) {
        throw ConfigError(fmt::format(
            "the runs on this dataset mix neighbouring relations ({} and {}): their guarantees "
            "are about different neighbours and do not compose; run samplers of one relation on "
            "a registered dataset (docs/user-guide.md, budget across runs)",
            to_string(all.events().front().relation), to_string(e.relation)));
      }
      all.append(e);
    }
    tv += run.discretisation_tv;
    out.sum_epsilon += run.budget.epsilon;
    out.sum_delta += run.budget.delta;
  }
  out.delta_accountants = dataset_budget.delta - (1.0 + std::exp(dataset_budget.epsilon)) * tv;
  if (all.empty()) return out;
  out.epsilon = std::numeric_limits<double>::infinity();
  if (!(out.delta_accountants > 0.0)) return out;
  for (const std::string& name : accountants_supporting(all.events())) {
    const auto acc = make_accountant(name);
    if (acc->bound() != BoundKind::upper_bound) continue;
    const double eps = acc->compose(all.events())->epsilon(out.delta_accountants);
    out.by_accountant.emplace_back(name, eps);
    if (eps < out.epsilon) {
      out.epsilon = eps;
      out.accountant = name;
    }
  }
  return out;
}

}  // namespace dpmcmc
