#include "privacy/account_rows.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <memory>

#include "core/error.hpp"
#include "privacy/event_checks.hpp"

namespace dpmcmc {
namespace {

std::vector<std::string> names_or_all(std::span<const std::string> accountants) {
  if (!accountants.empty()) return {accountants.begin(), accountants.end()};
  return accountant_names();
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

nlohmann::json number_or_inf(double x) {
  if (std::isfinite(x)) return x;
  return x > 0 ? "inf" : "-inf";
}

}  // namespace

std::vector<PrivacyEvent> release_events(const ReleaseSpec& spec) {
  auto fail = [](const std::string& m) { throw ConfigError("account: " + m); };
  if (spec.compositions < 1) fail("compositions must be at least 1");
  if (spec.mechanism == Mechanism::approximate_dp)
    fail("mechanism approximate_dp has no noise to describe; give its events as JSON");
  if (!(spec.noise_sd > 0.0) || !std::isfinite(spec.noise_sd))
    fail(fmt::format("σ (sigma) must be finite and > 0, got {}", spec.noise_sd));
  if (!(spec.sensitivity > 0.0) || !std::isfinite(spec.sensitivity))
    fail(fmt::format("sensitivity must be finite and > 0, got {}", spec.sensitivity));
  if (!(spec.sampling_rate > 0.0 && spec.sampling_rate <= 1.0))
    fail(fmt::format("q must be in (0, 1], got {}", spec.sampling_rate));
  if (spec.mechanism == Mechanism::gaussian &&
      (spec.sampling != Sampling::none || spec.sampling_rate != 1.0))
    fail(
        "mechanism gaussian uses the whole dataset; use subsampled-gaussian with a sampling "
        "scheme and q");
  if (spec.mechanism == Mechanism::subsampled_gaussian && spec.sampling == Sampling::none)
    fail("mechanism subsampled-gaussian needs sampling poisson or without-replacement");
  PrivacyEvent e;
  e.mechanism = spec.mechanism;
  e.sampling = spec.sampling;
  e.sampling_rate = spec.sampling_rate;
  e.noise_sd = spec.noise_sd;
  e.sensitivity = spec.sensitivity;
  e.count = spec.compositions;
  e.relation = spec.relation.value_or(spec.sampling == Sampling::without_replacement
                                          ? Neighbouring::substitute
                                          : Neighbouring::add_remove);
  validate_event(e, "account");
  return {e};
}

std::vector<AccountRow> account_rows(std::span<const PrivacyEvent> events,
                                     const AccountQuery& query,
                                     std::span<const std::string> accountants,
                                     const AccountantOptions& options) {
  if (query.delta.has_value() == query.epsilon.has_value())
    throw UsageError("account: give exactly one of ε (to compute δ) and δ (to compute ε)");
  if (query.delta) check_delta(*query.delta, "account");
  if (query.epsilon) check_epsilon(*query.epsilon, "account");
  for (std::size_t i = 0; i < events.size(); ++i)
    validate_event(events[i], "account: event #" + std::to_string(i + 1));

  std::vector<AccountRow> rows;
  for (const std::string& name : names_or_all(accountants)) {
    const std::unique_ptr<Accountant> accountant = make_accountant(name, options);
    AccountRow row;
    row.accountant = accountant->name();
    row.bound = accountant->bound();
    const auto start = std::chrono::steady_clock::now();
    try {
      const auto profile = accountant->compose(events);
      if (query.delta) {
        row.delta = *query.delta;
        row.epsilon = profile->epsilon(*query.delta);
        row.message = profile->caveat(*query.delta);
      } else {
        row.epsilon = *query.epsilon;
        row.delta = profile->delta(*query.epsilon);
      }
      row.ok = true;
      if (std::isinf(row.epsilon) && row.message.empty()) row.message = "no finite ε at this δ";
    } catch (const ConfigError& e) {
      row.message = e.what();
    }
    row.seconds = seconds_since(start);
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<PlanRow> plan_rows(const Budget& budget, std::span<const PrivacyEvent> per_iteration,
                               std::span<const std::string> accountants,
                               const AccountantOptions& options, const PlanOptions& plan_options) {
  validate_budget(budget);
  std::vector<std::unique_ptr<Accountant>> owned;
  std::vector<const Accountant*> pointers;
  for (const std::string& name : names_or_all(accountants)) {
    owned.push_back(make_accountant(name, options));
    pointers.push_back(owned.back().get());
  }
  std::vector<PlanRow> rows;
  std::optional<TightestPlan> tightest;
  std::vector<AccountantAttempt> attempts;
  try {
    tightest = plan_iterations_tightest(budget, per_iteration, pointers, plan_options);
    attempts = tightest->attempts;
  } catch (const ConfigError&) {
    // No certified accountant could plan: still one row per accountant with its reason.
    for (const Accountant* a : pointers) {
      const std::vector<const Accountant*> one{a};
      try {
        attempts.push_back(
            plan_iterations_tightest(budget, per_iteration, one, plan_options).attempts.front());
      } catch (const ConfigError& e) {
        AccountantAttempt failed;
        failed.accountant = a->name();
        failed.bound = a->bound();
        failed.reason = e.what();
        attempts.push_back(std::move(failed));
      }
    }
  }
  // Lower bounds and estimates are planned too (for comparison) but never flagged tightest.
  for (std::size_t i = 0; i < attempts.size(); ++i) {
    AccountantAttempt& a = attempts[i];
    if (!a.plan && a.bound != BoundKind::upper_bound) {
      const auto start = std::chrono::steady_clock::now();
      try {
        a.plan = plan_iterations(budget, per_iteration, *pointers[i], plan_options);
        a.reason.clear();
      } catch (const ConfigError& e) {
        a.reason = e.what();
      }
      a.seconds = seconds_since(start);
    }
    PlanRow row;
    row.accountant = a.accountant;
    row.bound = a.bound;
    row.seconds = a.seconds;
    row.message = a.reason;
    if (a.plan) {
      row.ok = true;
      row.iterations = a.plan->iterations;
      row.epsilon_spent = a.plan->epsilon_spent;
      row.capped = a.plan->capped;
      row.tightest = tightest && a.bound == BoundKind::upper_bound &&
                     a.accountant == tightest->best.accountant;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

nlohmann::json account_rows_to_json(std::span<const AccountRow> rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const AccountRow& r : rows)
    out.push_back({{"accountant", r.accountant},
                   {"bound", to_string(r.bound)},
                   {"ok", r.ok},
                   {"epsilon", number_or_inf(r.epsilon)},
                   {"delta", number_or_inf(r.delta)},
                   {"seconds", r.seconds},
                   {"message", r.message}});
  return out;
}

nlohmann::json plan_rows_to_json(std::span<const PlanRow> rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const PlanRow& r : rows)
    out.push_back({{"accountant", r.accountant},
                   {"bound", to_string(r.bound)},
                   {"ok", r.ok},
                   {"iterations", r.iterations},
                   {"epsilon_spent", number_or_inf(r.epsilon_spent)},
                   {"capped", r.capped},
                   {"tightest", r.tightest},
                   {"seconds", r.seconds},
                   {"message", r.message}});
  return out;
}

}  // namespace dpmcmc
