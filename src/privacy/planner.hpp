// The budget planner (issue "Privacy accounting toolkit", Planner): how many iterations a budget
// allows, how much noise a given number of iterations needs, and which certified accountant is
// tightest. It generalises [Raisa2021] Algorithm 2 (bracket, then bisection on the
// iteration count) from the closed-form Gaussian bound to any Accountant and any per-iteration
// event template, and works on integers only: k is certified by evaluating the composed spend at
// k (within budget) and at k + 1 (over budget) — no interpolation between counts.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "privacy/accountant.hpp"
#include "privacy/budget.hpp"

namespace dpmcmc {

// The events of k iterations: every template event with its count multiplied by k (a template
// event with count c stands for c releases per iteration, e.g. L + 1 gradients in DP HMC).
// ConfigError if a count overflows 64 bits.
std::vector<PrivacyEvent> repeat_iterations(std::span<const PrivacyEvent> per_iteration,
                                            std::uint64_t k);
// The template with the noise σ of every Gaussian-kind event multiplied by `factor` > 0.
std::vector<PrivacyEvent> scale_noise(std::span<const PrivacyEvent> per_iteration, double factor);

// ε(δ) spent by k iterations of the template under the accountant.
double iterations_spend(const Accountant& accountant, std::span<const PrivacyEvent> per_iteration,
                        std::uint64_t k, double delta);

struct PlanOptions {
  // The search stops here and reports `capped` if the budget allows even this many iterations.
  std::uint64_t max_iterations = std::uint64_t{1} << 53;
  // A count believed close to the answer (e.g. from a cheaper accountant, as Algorithm 2 starts
  // from the zCDP count); 0 = none. Only affects the number of evaluations, not the result.
  std::uint64_t initial_guess = 0;
  // Relative tolerance of the monotonicity check on ε(δ) as a function of k: absorbs the
  // accountants' rounding, root finding and order refinement (RDP's ε fell by 4.6e-9 relative
  // from 236787352 to 236787360 DP-SGLD iterations; 1e-9 ended that plan with exit 70).
  double monotonicity_tolerance = 1e-7;
  // plan_iterations_tightest: when a certified accountant is exact for the template
  // (Accountant::exact), plan with it alone; every other attempt is skipped with that reason (no
  // certified upper bound can allow more iterations than the exact profile).
  bool stop_at_exact = false;
};

struct IterationPlan {
  std::uint64_t iterations = 0;  // the largest k with ε(δ) ≤ budget ε
  double epsilon_spent = 0.0;    // ε(δ) after `iterations` iterations
  // ε(δ) after one more iteration (> budget ε); empty when capped.
  std::optional<double> epsilon_next;
  bool capped = false;  // the budget allows at least PlanOptions::max_iterations
  std::string accountant;
  BoundKind bound = BoundKind::upper_bound;
  int evaluations = 0;  // accountant compositions performed
};

// The largest iteration count k whose composed spend ε(δ) stays within budget.ε. Throws
// ConfigError for an invalid budget, an empty or unsupported template, or a budget too small for
// one iteration (naming the budget and the one-iteration spend); SoftwareError if the
// accountant's spend is found to decrease with k.
IterationPlan plan_iterations(const Budget& budget, std::span<const PrivacyEvent> per_iteration,
                              const Accountant& accountant, const PlanOptions& options = {});

struct NoisePlan {
  double noise_scale = 1.0;    // the factor on every Gaussian event's σ
  double epsilon_spent = 0.0;  // ε(δ) of `iterations` iterations with scaled noise (≤ budget ε)
  std::string accountant;
  int evaluations = 0;
};

// The inverse: the smallest factor m on the template's noise σ such that `iterations` iterations
// stay within budget, found by bracketing and bisection in log m to a relative width
// `relative_tolerance`, returned on the safe (larger) side. ConfigError when the template has no
// Gaussian event or when no noise level suffices (the non-Gaussian events alone exceed it).
NoisePlan plan_noise_scale(const Budget& budget, std::span<const PrivacyEvent> per_iteration,
                           std::uint64_t iterations, const Accountant& accountant,
                           double relative_tolerance = 1e-9);

// M chains on the same data share one budget: the composed log of all chains must fit, so a
// total of k iterations is split among them. With equal_lengths every chain gets ⌊k/M⌋ and
// `unused` = k mod M; otherwise the first k mod M chains get one more. ConfigError if M = 0 or
// if a chain would get no iteration.
struct ChainSplit {
  std::vector<std::uint64_t> per_chain;
  std::uint64_t unused = 0;
};
ChainSplit split_among_chains(std::uint64_t total_iterations, std::uint64_t chains,
                              bool equal_lengths = true);

// One accountant's outcome in plan_iterations_tightest.
struct AccountantAttempt {
  std::string accountant;
  BoundKind bound = BoundKind::upper_bound;
  std::optional<IterationPlan> plan;  // empty when not used; `reason` says why
  std::string reason;
  double seconds = 0.0;
};

struct TightestPlan {
  IterationPlan best;  // the plan allowing the most iterations (first listed wins ties)
  std::vector<AccountantAttempt> attempts;  // one per accountant given, in order
};

// The first of `accountants` that is a certified upper bound, interprets every event and is exact
// for them (Accountant::exact); null if none.
const Accountant* exact_upper_bound(std::span<const Accountant* const> accountants,
                                    std::span<const PrivacyEvent> events);
// Why another accountant was not run: `exact` is exact for the releases.
std::string skipped_for_exact(const Accountant& exact);

// Plans with every accountant that is a certified upper bound and interprets the template (or
// only with an exact one, see PlanOptions::stop_at_exact), and keeps the one allowing the most
// iterations. ConfigError (listing each accountant's reason) if
// none can plan.
TightestPlan plan_iterations_tightest(const Budget& budget,
                                      std::span<const PrivacyEvent> per_iteration,
                                      std::span<const Accountant* const> accountants,
                                      const PlanOptions& options = {});

}  // namespace dpmcmc
