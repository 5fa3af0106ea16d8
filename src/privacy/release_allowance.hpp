// The releases a chain may make, keyed by their calibration (docs/architecture.md): the plan
// certifies a spend for k iterations of a template of events (iteration_templates.hpp, …), so each
// planned release is a slot holding the template's event — mechanism, noise multiplier σ/Δ,
// sampling and rate, relation, (ε, δ) for approximate-DP kinds, optionally the largest sensitivity
// — and how many releases of it are left. A release is admitted only by a slot of its kind whose
// calibration it matches at least as privately:
//   * same mechanism, sampling, relation and (to 1e-12 relative) the same sampling rate — the
//     accountant's bound for one rate or relation says nothing about another;
//   * Gaussian kinds: σ/Δ ≥ the planned multiplier, and Δ ≤ the planned cap when there is one;
//   * approximate-DP kinds: ε and δ ≤ the planned ones.
// Anything else is refused with ReleaseRefused (a software error: a correct sampler only asks
// for what its plan holds), before the release touches the data.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "privacy/privacy_event.hpp"

namespace dpmcmc {

// Thrown when a release does not fit the chain's plan: none of its kind left (the allowance is
// used up), or a calibration the plan does not cover. Kernels check remaining() first and report
// exhausted(), so a correct sampler never triggers it; reaching it is a bug (exit 70).
struct ReleaseRefused : SoftwareError {
  explicit ReleaseRefused(const std::string& m) : SoftwareError(m) {}
};
// The historical name of the "used up" case.
using BudgetExhausted = ReleaseRefused;

// The most releases of each kind one iteration of a kernel makes.
using ReleaseCounts = std::map<ReleaseKind, std::uint64_t>;

class ReleaseAllowance {
 public:
  struct Slot {
    PrivacyEvent planned;                   // the calibration (count unused)
    std::optional<double> max_sensitivity;  // Gaussian kinds: the largest Δ planned, if fixed
    std::uint64_t planned_count = 0;
    std::uint64_t remaining = 0;
  };

  ReleaseAllowance() = default;
  // `iterations` × each template event's count, one slot per event; `caps` bound the sensitivity
  // of the Gaussian kinds whose Δ the hyperparameters fix (e.g. a gradient clip bound).
  static ReleaseAllowance for_iterations(const std::vector<PrivacyEvent>& per_iteration,
                                         std::uint64_t iterations,
                                         const std::map<ReleaseKind, double>& caps = {});

  // Adds `count` releases calibrated as `planned` (its count is ignored). SoftwareError for a
  // planned event that is not a valid event (event_checks.hpp) or a non-positive cap.
  void add(const PrivacyEvent& planned, std::uint64_t count,
           std::optional<double> max_sensitivity = std::nullopt);

  // Releases of `kind` left, over all its slots.
  std::uint64_t remaining(ReleaseKind kind) const;
  // Releases of `kind` planned at the start.
  std::uint64_t planned(ReleaseKind kind) const;

  // ReleaseRefused naming the release and the reason unless some slot admits `e`.
  void check(const PrivacyEvent& e) const;
  // check(e), then uses one release of the first slot admitting it.
  void use(const PrivacyEvent& e);

  const std::vector<Slot>& slots() const { return slots_; }
  // Checkpoints: sets each slot's releases left (one count per slot, none above its plan);
  // SoftwareError otherwise.
  void set_remaining(const std::vector<std::uint64_t>& remaining);

 private:
  // Empty when `slot` admits `e`, else why not.
  static std::string mismatch(const Slot& slot, const PrivacyEvent& e);
  // The first slot admitting `e` with a release left; ReleaseRefused otherwise.
  std::size_t find(const PrivacyEvent& e) const;

  std::vector<Slot> slots_;
};

}  // namespace dpmcmc
