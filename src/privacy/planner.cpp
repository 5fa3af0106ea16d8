#include "privacy/planner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>

#include "core/error.hpp"
#include "privacy/event_checks.hpp"

namespace dpmcmc {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

bool gaussian_kind(const PrivacyEvent& e) {
  return e.mechanism != Mechanism::approximate_dp;
}

void check_template(std::span<const PrivacyEvent> per_iteration) {
  if (per_iteration.empty())
    throw ConfigError("planner: the per-iteration event template is empty");
  for (std::size_t i = 0; i < per_iteration.size(); ++i)
    validate_event(per_iteration[i], fmt::format("planner: template event #{}", i + 1));
}

// Evaluates ε(δ) of k iterations, remembers every value and checks that they are non-decreasing
// in k: the bisection is only valid for a monotone spend. An accountant that is not monotone
// beyond its rounding has a bug or is past its numerical limits (the numerical PLD's lower bound
// fell 2.6 % from 3.5e13 to 7e13 iterations of a DP-SGLD template): a ConfigError, so that it
// plans nothing and the others still plan (plan_iterations_tightest, `account`'s rows), where an
// exit 70 once ended the command.
class SpendCurve {
 public:
  SpendCurve(const Accountant& accountant, std::span<const PrivacyEvent> per_iteration,
             double delta, double tolerance)
      : accountant_(accountant),
        per_iteration_(per_iteration),
        delta_(delta),
        tolerance_(tolerance) {}

  double operator()(std::uint64_t k) {
    if (const auto it = values_.find(k); it != values_.end()) return it->second;
    const double eps = iterations_spend(accountant_, per_iteration_, k, delta_);
    if (std::isnan(eps))
      throw SoftwareError(
          fmt::format("accountant '{}' returned NaN for ε(δ = {}) after {} "
                      "iterations",
                      accountant_.name(), delta_, k));
    const auto [it, inserted] = values_.emplace(k, eps);
    if (it != values_.begin()) check(*std::prev(it), *it);
    if (const auto next = std::next(it); next != values_.end()) check(*it, *next);
    return eps;
  }
  int evaluations() const { return static_cast<int>(values_.size()); }

 private:
  void check(const std::pair<const std::uint64_t, double>& lower,
             const std::pair<const std::uint64_t, double>& upper) const {
    if (lower.second > upper.second + tolerance_ * std::max(1.0, std::abs(upper.second)))
      throw ConfigError(fmt::format(
          "accountant '{}' is not monotone in the number of iterations: ε(δ = {}) = {} after {} "
          "iterations but {} after {} (a bug, or the accountant past its numerical limits): it "
          "does not plan this run",
          accountant_.name(), delta_, lower.second, lower.first, upper.second, upper.first));
  }

  const Accountant& accountant_;
  std::span<const PrivacyEvent> per_iteration_;
  double delta_, tolerance_;
  std::map<std::uint64_t, double> values_;
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

std::vector<PrivacyEvent> repeat_iterations(std::span<const PrivacyEvent> per_iteration,
                                            std::uint64_t k) {
  std::vector<PrivacyEvent> events(per_iteration.begin(), per_iteration.end());
  for (PrivacyEvent& e : events) {
    if (k != 0 && e.count > std::numeric_limits<std::uint64_t>::max() / k)
      throw ConfigError(
          fmt::format("planner: {} iterations × {} releases overflow 64 bits", k, e.count));
    e.count *= k;
  }
  return events;
}

std::vector<PrivacyEvent> scale_noise(std::span<const PrivacyEvent> per_iteration, double factor) {
  if (!(factor > 0.0) || !std::isfinite(factor))
    throw ConfigError(fmt::format("planner: noise scale must be finite and > 0, got {}", factor));
  std::vector<PrivacyEvent> events(per_iteration.begin(), per_iteration.end());
  for (PrivacyEvent& e : events)
    if (gaussian_kind(e)) e.noise_sd *= factor;
  return events;
}

double iterations_spend(const Accountant& accountant, std::span<const PrivacyEvent> per_iteration,
                        std::uint64_t k, double delta) {
  const std::vector<PrivacyEvent> events = repeat_iterations(per_iteration, k);
  return accountant.compose(events)->epsilon(delta);
}

IterationPlan plan_iterations(const Budget& budget, std::span<const PrivacyEvent> per_iteration,
                              const Accountant& accountant, const PlanOptions& options) {
  validate_budget(budget);
  check_template(per_iteration);
  check_supported(accountant, per_iteration);
  check_single_relation(per_iteration, accountant.name());

  std::uint64_t max_count = 1;
  for (const PrivacyEvent& e : per_iteration) max_count = std::max(max_count, e.count);
  const std::uint64_t cap = std::max<std::uint64_t>(
      1, std::min(options.max_iterations, std::numeric_limits<std::uint64_t>::max() / max_count));

  SpendCurve spend(accountant, per_iteration, budget.delta, options.monotonicity_tolerance);
  auto within = [&](std::uint64_t k) { return spend(k) <= budget.epsilon; };

  IterationPlan plan;
  plan.accountant = accountant.name();
  plan.bound = accountant.bound();
  if (!within(1))
    throw ConfigError(fmt::format(
        "privacy budget ε = {}, δ = {} does not allow a single iteration: one iteration spends "
        "ε = {:.6g} at δ = {} under accountant '{}'; increase the noise or the budget",
        budget.epsilon, budget.delta, spend(1), budget.delta, accountant.name()));

  // Bracket: lo within budget, hi over budget (0 = not found yet).
  std::uint64_t lo = 1, hi = 0;
  const std::uint64_t guess = std::min(options.initial_guess, cap);
  if (guess > 1) {
    if (within(guess)) {
      lo = guess;
    } else {
      hi = guess;
      for (std::uint64_t c = guess / 2; c > 1; c /= 2) {  // expand downwards
        if (within(c)) {
          lo = c;
          break;
        }
        hi = c;
      }
    }
  }
  while (hi == 0) {  // expand upwards geometrically
    if (lo == cap) {
      plan.iterations = cap;
      plan.epsilon_spent = spend(cap);
      plan.capped = true;
      plan.evaluations = spend.evaluations();
      return plan;
    }
    const std::uint64_t c = lo > cap / 2 ? cap : 2 * lo;
    if (within(c)) {
      lo = c;
    } else {
      hi = c;
    }
  }
  while (hi - lo > 1) {  // bisection on integers
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (within(mid)) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  plan.iterations = lo;
  plan.epsilon_spent = spend(lo);
  plan.epsilon_next = spend(hi);
  plan.evaluations = spend.evaluations();
  return plan;
}

NoisePlan plan_noise_scale(const Budget& budget, std::span<const PrivacyEvent> per_iteration,
                           std::uint64_t iterations, const Accountant& accountant,
                           double relative_tolerance) {
  validate_budget(budget);
  check_template(per_iteration);
  check_supported(accountant, per_iteration);
  check_single_relation(per_iteration, accountant.name());
  if (iterations < 1) throw ConfigError("planner: the number of iterations must be at least 1");
  if (std::none_of(per_iteration.begin(), per_iteration.end(), gaussian_kind))
    throw ConfigError("planner: the template has no Gaussian release whose noise could be scaled");
  if (!(relative_tolerance > 0.0 && relative_tolerance < 1.0))
    throw ConfigError(
        fmt::format("planner: relative tolerance must be in (0, 1), got {}", relative_tolerance));

  const std::vector<PrivacyEvent> events = repeat_iterations(per_iteration, iterations);
  int evaluations = 0;
  auto spend = [&](double m) {
    ++evaluations;
    const std::vector<PrivacyEvent> scaled = scale_noise(events, m);
    const double eps = accountant.compose(scaled)->epsilon(budget.delta);
    if (std::isnan(eps))
      throw SoftwareError(fmt::format("accountant '{}' returned NaN for ε(δ = {})",
                                      accountant.name(), budget.delta));
    return eps;
  };
  // Bracket in m: spend(hi) ≤ ε < spend(lo). More noise never costs more privacy.
  double lo = 1.0, hi = 1.0;
  double spend_hi = spend(hi);
  if (spend_hi <= budget.epsilon) {
    for (lo = 0.5;; lo *= 0.5) {
      const double s = spend(lo);
      if (s > budget.epsilon) break;
      hi = lo;
      spend_hi = s;
      if (lo < 1e-300) throw SoftwareError("planner: spend does not grow as the noise vanishes");
    }
  } else {
    for (;;) {
      lo = hi;
      hi *= 2.0;
      if (hi > 1e300)
        throw ConfigError(fmt::format(
            "privacy budget ε = {}, δ = {} cannot be met by {} iterations at any noise level under "
            "accountant '{}': the releases that are not Gaussian already exceed it",
            budget.epsilon, budget.delta, iterations, accountant.name()));
      spend_hi = spend(hi);
      if (spend_hi <= budget.epsilon) break;
    }
  }
  while (hi / lo - 1.0 > relative_tolerance) {
    const double mid = std::sqrt(lo * hi);
    const double s = spend(mid);
    if (s <= budget.epsilon) {
      hi = mid;
      spend_hi = s;
    } else {
      lo = mid;
    }
  }
  return NoisePlan{hi, spend_hi, accountant.name(), evaluations};
}

ChainSplit split_among_chains(std::uint64_t total_iterations, std::uint64_t chains,
                              bool equal_lengths) {
  if (chains == 0) throw ConfigError("chains: the number of chains must be at least 1");
  const std::uint64_t each = total_iterations / chains;
  if (each == 0)
    throw ConfigError(fmt::format(
        "the privacy budget allows {} iterations in total, fewer than one per chain for {} chains "
        "sharing it",
        total_iterations, chains));
  ChainSplit split;
  split.per_chain.assign(chains, each);
  const std::uint64_t rest = total_iterations % chains;
  if (equal_lengths) {
    split.unused = rest;
  } else {
    for (std::uint64_t i = 0; i < rest; ++i) ++split.per_chain[i];
  }
  return split;
}

const Accountant* exact_upper_bound(std::span<const Accountant* const> accountants,
                                    std::span<const PrivacyEvent> events) {
  for (const Accountant* a : accountants) {
    if (a->bound() == BoundKind::upper_bound && a->exact(events)) return a;
  }
  return nullptr;
}

std::string skipped_for_exact(const Accountant& exact) {
  return fmt::format(
      "not run: {} is exact for these releases, so no certified upper bound is smaller (compare "
      "accountants with `dpmcmc account`)",
      exact.name());
}

TightestPlan plan_iterations_tightest(const Budget& budget,
                                      std::span<const PrivacyEvent> per_iteration,
                                      std::span<const Accountant* const> accountants,
                                      const PlanOptions& options) {
  validate_budget(budget);
  check_template(per_iteration);
  TightestPlan result;
  const AccountantAttempt* best = nullptr;
  const Accountant* exact =
      options.stop_at_exact ? exact_upper_bound(accountants, per_iteration) : nullptr;
  for (const Accountant* accountant : accountants) {
    AccountantAttempt attempt;
    attempt.accountant = accountant->name();
    attempt.bound = accountant->bound();
    const auto start = std::chrono::steady_clock::now();
    if (exact != nullptr && accountant != exact) {
      attempt.reason = skipped_for_exact(*exact);
    } else if (accountant->bound() != BoundKind::upper_bound) {
      attempt.reason =
          fmt::format("not a certified upper bound ({})", to_string(accountant->bound()));
    } else {
      try {
        check_supported(*accountant, per_iteration);
        check_single_relation(per_iteration, accountant->name());
        attempt.plan = plan_iterations(budget, per_iteration, *accountant, options);
      } catch (const ConfigError& e) {
        attempt.reason = e.what();
      }
    }
    attempt.seconds = seconds_since(start);
    result.attempts.push_back(std::move(attempt));
  }
  for (const AccountantAttempt& a : result.attempts) {
    if (a.plan && (best == nullptr || a.plan->iterations > best->plan->iterations)) best = &a;
  }
  if (best == nullptr) {
    std::string reasons;
    for (const AccountantAttempt& a : result.attempts)
      reasons += fmt::format("\n  {}: {}", a.accountant, a.reason);
    if (result.attempts.empty()) reasons = " (no accountant given)";
    throw ConfigError("no certified accountant can plan this run:" + reasons);
  }
  result.best = *best->plan;
  return result;
}

}  // namespace dpmcmc
