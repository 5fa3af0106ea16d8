#include "ledger/cross_run_spend.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "privacy/accountants.hpp"
#include "privacy/event_log.hpp"
#include "privacy/event_names.hpp"

namespace dpmcmc {

const char* to_string(CompositionRule rule) {
  return rule == CompositionRule::gaussian ? "gaussian" : "basic";
}

CompositionRule parse_composition_rule(const std::string& text, const std::string& option) {
  if (text == "gaussian") return CompositionRule::gaussian;
  if (text == "basic") return CompositionRule::basic;
  throw UsageError(fmt::format("{}: expected gaussian or basic, got '{}'", option, text));
}

CrossRunSpend compose_runs(std::span<const RunSpend> runs, const Budget& dataset_budget,
                           CompositionRule rule) {
  CrossRunSpend out;
  out.rule = rule;
  EventLog all;  // merges the runs' identical events: the accountant sees a short list
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
      if (rule == CompositionRule::gaussian &&
          (e.mechanism != Mechanism::gaussian || e.sampling != Sampling::none)) {
        throw ConfigError(fmt::format(
            "the dataset is registered with composition 'gaussian', which admits plain Gaussian "
            "releases only (dp-penalty and its variants, dp-hmc, dp-penalty-expfam, dp-nss); this "
            "run releases a {} mechanism{}: register the dataset with `ledger init --composition "
            "basic` to run it (each run then counts its own ε and δ)",
            to_string(e.mechanism),
            e.sampling == Sampling::none
                ? ""
                : fmt::format(" on {} subsamples", to_string(e.sampling))));
      }
      all.append(e);
    }
    tv += run.discretisation_tv;
    out.sum_epsilon += run.budget.epsilon;
    out.sum_delta += run.budget.delta;
  }
  if (rule == CompositionRule::basic) {
    out.delta_accountants = dataset_budget.delta;
    out.epsilon = out.sum_epsilon;
    out.within = out.sum_epsilon <= dataset_budget.epsilon && out.sum_delta <= dataset_budget.delta;
    return out;
  }
  out.delta_accountants = dataset_budget.delta - (1.0 + std::exp(dataset_budget.epsilon)) * tv;
  if (all.empty()) return out;
  out.epsilon = std::numeric_limits<double>::infinity();
  if (out.delta_accountants > 0.0) {
    out.epsilon =
        make_accountant("pld-gaussian")->compose(all.events())->epsilon(out.delta_accountants);
  }
  out.within = out.epsilon <= dataset_budget.epsilon;
  return out;
}

}  // namespace dpmcmc
