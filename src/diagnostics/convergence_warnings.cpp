#include "diagnostics/convergence_warnings.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

namespace dpmcmc {

namespace {

constexpr double kRhatMax = 1.01;
constexpr double kEssPerChain = 100.0;
constexpr double kAcceptLow = 0.05;
constexpr double kAcceptHigh = 0.95;

// A private run's length comes from its budget (--iter does not apply): the caller says what
// its budget bought and what more would buy, which depends on the sampler and model.
std::string longer(bool private_run, const std::string& budget) {
  if (!private_run) return "more iterations (--iter, --warmup)";
  if (!budget.empty()) return budget;
  return "a private sampler's length and noise come from its budget (--iter does not apply): "
         "a larger --epsilon, or more rows";
}

}  // namespace

std::vector<ConvergenceWarning> convergence_warnings(const Summary& summary,
                                                     std::span<const std::string> parameters,
                                                     std::span<const double> acceptance_rates,
                                                     AcceptanceCheck acceptance, bool private_run,
                                                     const std::string& budget,
                                                     std::optional<std::size_t> adapted_warmup) {
  std::vector<ConvergenceWarning> out;
  if (adapted_warmup && *adapted_warmup < kAdaptationWarmupMin) {
    out.push_back(
        {"adaptation", "sampler", static_cast<double>(*adapted_warmup),
         static_cast<double>(kAdaptationWarmupMin),
         fmt::format("tuning adapted over {} warmup iterations, fewer than the {} its schedule "
                     "is built for (below 20 only the step adapts): it rests on a few noisy "
                     "accept statistics",
                     *adapted_warmup, kAdaptationWarmupMin),
         private_run ? "a larger --epsilon (a longer warmup), or --adapt false with a step and "
                       "proposal chosen from public knowledge"
                     : "a longer --warmup (at least 150)"});
  }
  const std::string run_longer = longer(private_run, budget);
  const double ess_min = kEssPerChain * static_cast<double>(summary.chains);
  for (const auto& p : summary.parameters) {
    if (std::find(parameters.begin(), parameters.end(), p.name) == parameters.end()) continue;
    if (!(p.rhat <= kRhatMax)) {
      out.push_back({"rhat", p.name, p.rhat, kRhatMax,
                     std::isnan(p.rhat)
                         ? std::string("R-hat undefined (a chain never moved)")
                         : fmt::format("R-hat {:.3f} > {} (the chains disagree)", p.rhat, kRhatMax),
                     run_longer});
    }
    for (const auto& [check, ess] : {std::pair{"ess_bulk", p.ess_bulk}, {"ess_tail", p.ess_tail}}) {
      if (ess >= ess_min) continue;
      out.push_back(
          {check, p.name, ess, ess_min,
           fmt::format("{} {:.0f} < {:.0f} (100 per chain)",
                       std::string(check) == "ess_bulk" ? "bulk-ESS" : "tail-ESS", ess, ess_min),
           run_longer});
    }
  }
  for (const auto& p : summary.parameters) {
    if (p.name != "divergent__") continue;
    // divergent__ is 0 or 1: its mean times the draws is the count.
    const double total = static_cast<double>(summary.chains * summary.draws_per_chain);
    const double count = std::round(p.mean * total);
    if (count > 0) {
      out.push_back(
          {"divergent", "sampler", count, 0.0,
           fmt::format("{:.0f} of {:.0f} kept transitions after warmup divergent", count, total),
           "smaller steps: a higher --target-accept (e.g. 0.95) with --adapt true, or a smaller "
           "--step-size"});
    }
  }
  if (acceptance == AcceptanceCheck::none) return out;
  for (std::size_t c = 0; c < acceptance_rates.size(); ++c) {
    const double a = acceptance_rates[c];
    const std::string chain = fmt::format("chain {}", c + 1);
    if (a < kAcceptLow) {
      out.push_back(
          {"acceptance", chain, a, kAcceptLow,
           fmt::format("acceptance {:.3f} < {} (almost every proposal rejected)", a, kAcceptLow),
           private_run ? "a smaller --proposal-sd or --step-size, or a larger --epsilon "
                         "(the test's noise may dominate it)"
                       : "a smaller --proposal-sd or --step-size"});
    } else if (acceptance == AcceptanceCheck::random_walk && a > kAcceptHigh) {
      out.push_back(
          {"acceptance", chain, a, kAcceptHigh,
           fmt::format("acceptance {:.3f} > {} (steps too small to explore)", a, kAcceptHigh),
           "a larger --proposal-sd"});
    }
  }
  return out;
}

nlohmann::json warnings_json(std::span<const ConvergenceWarning> warnings) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& w : warnings) {
    out.push_back({{"check", w.check},
                   {"subject", w.subject},
                   {"value", std::isfinite(w.value) ? nlohmann::json(w.value) : nlohmann::json()},
                   {"threshold", w.threshold},
                   {"problem", w.problem},
                   {"advice", w.advice}});
  }
  return out;
}

std::string format_warnings(std::span<const ConvergenceWarning> warnings) {
  std::vector<std::string> subjects, advice;
  for (const auto& w : warnings) {
    if (std::find(subjects.begin(), subjects.end(), w.subject) == subjects.end())
      subjects.push_back(w.subject);
    if (std::find(advice.begin(), advice.end(), w.advice) == advice.end())
      advice.push_back(w.advice);
  }
  std::string out;
  for (const auto& subject : subjects) {
    std::vector<std::string> problems;
    for (const auto& w : warnings) {
      if (w.subject == subject) problems.push_back(w.problem);
    }
    out += fmt::format("WARNING: {}: {}\n", subject, fmt::join(problems, "; "));
  }
  for (const auto& a : advice) out += fmt::format("  try: {}\n", a);
  return out;
}

}  // namespace dpmcmc
