// The per-accountant result rows that `dpmcmc account` prints (one row per accountant, with its
// bound kind and run time) and writes with --json. The CLI parses options into events or a
// template, calls one of these, and formats the rows; all privacy logic stays here.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "privacy/accountant.hpp"
#include "privacy/accountants.hpp"
#include "privacy/budget.hpp"
#include "privacy/planner.hpp"

namespace dpmcmc {

// `compositions` identical releases of one mechanism, as `account --mechanism …` describes them.
struct ReleaseSpec {
  Mechanism mechanism = Mechanism::gaussian;
  Sampling sampling = Sampling::none;  // poisson or without_replacement for subsampled_gaussian
  double sampling_rate = 1.0;          // q
  double noise_sd = 1.0;               // σ
  double sensitivity = 1.0;            // Δ
  std::uint64_t compositions = 1;
  // Default: substitute for sampling without replacement (fixed batch size), else add_remove.
  std::optional<Neighbouring> relation;
};
// The one-event list of a ReleaseSpec. ConfigError naming the parameter (q, σ, Δ, compositions,
// sampling) and what was expected.
std::vector<PrivacyEvent> release_events(const ReleaseSpec& spec);

// Exactly one of the two: δ given → each accountant's ε(δ); ε given → each accountant's δ(ε).
struct AccountQuery {
  std::optional<double> delta;
  std::optional<double> epsilon;
  static AccountQuery epsilon_at(double delta) { return {delta, std::nullopt}; }
  static AccountQuery delta_at(double epsilon) { return {std::nullopt, epsilon}; }
};

struct AccountRow {
  std::string accountant;
  BoundKind bound = BoundKind::upper_bound;
  bool ok = false;       // false: not applicable or failed; `message` says why
  double epsilon = 0.0;  // the queried ε, or the computed ε(δ) (+∞: no guarantee at this δ)
  double delta = 0.0;    // the queried δ, or the computed δ(ε)
  double seconds = 0.0;  // composition + query
  std::string message;
};

// One row per accountant named in `accountants` (empty: every registered accountant), in that
// order. Accountants that cannot interpret the events get ok = false and the reason. Throws
// UsageError unless exactly one of query.delta, query.epsilon is set; ConfigError for an
// invalid ε (≤ 0) or δ (∉ (0, 1)), or an unknown accountant name (UsageError).
std::vector<AccountRow> account_rows(std::span<const PrivacyEvent> events,
                                     const AccountQuery& query,
                                     std::span<const std::string> accountants = {},
                                     const AccountantOptions& options = {});

struct PlanRow {
  std::string accountant;
  BoundKind bound = BoundKind::upper_bound;
  bool ok = false;
  std::uint64_t iterations = 0;
  double epsilon_spent = 0.0;  // ε(δ) after `iterations`
  bool capped = false;
  bool tightest = false;  // the certified accountant allowing the most iterations
  double seconds = 0.0;
  std::string message;
};

// Iterations allowed by `budget` for the per-iteration template under each accountant (e.g. the
// thesis' comparison of zCDP and tight accounting, [Raisa2021] Section 6.1), the
// tightest certified one flagged. Rows of accountants that cannot plan carry the reason (e.g. a
// budget too small for one iteration). ConfigError for an invalid budget or template.
std::vector<PlanRow> plan_rows(const Budget& budget, std::span<const PrivacyEvent> per_iteration,
                               std::span<const std::string> accountants = {},
                               const AccountantOptions& options = {},
                               const PlanOptions& plan_options = {});

// {"accountant", "bound", "ok", "epsilon", "delta", "seconds", "message"} per row; an infinite ε
// is written as the string "inf".
nlohmann::json account_rows_to_json(std::span<const AccountRow> rows);
nlohmann::json plan_rows_to_json(std::span<const PlanRow> rows);

}  // namespace dpmcmc
