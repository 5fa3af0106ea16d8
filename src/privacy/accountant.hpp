// Accountants (docs/architecture.md): compose a list of privacy events into a privacy profile,
// which answers ε(δ) and δ(ε). Every accountant states what its answer is: a certified upper bound
// (what dpmcmc certifies), a lower bound (a sanity check: no certified bound may be below it), or
// an estimate.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "privacy/privacy_event.hpp"

namespace dpmcmc {

enum class BoundKind { upper_bound, lower_bound, estimate };

inline const char* to_string(BoundKind k) {
  switch (k) {
    case BoundKind::upper_bound:
      return "upper bound";
    case BoundKind::lower_bound:
      return "lower bound";
    case BoundKind::estimate:
      return "estimate";
  }
  return "?";
}

// The (ε, δ) curve of a composed list of events.
class PrivacyProfile {
 public:
  virtual ~PrivacyProfile() = default;
  // The smallest ε (≥ 0) such that the composition is (ε, δ)-DP by this accountant, δ ∈ (0, 1).
  virtual double epsilon(double delta) const = 0;
  // The smallest δ such that the composition is (ε, δ)-DP by this accountant, ε ≥ 0.
  virtual double delta(double epsilon) const = 0;
  // Why ε(δ) is degenerate or loose because of the accountant's own error allowance (e.g. an
  // upper bound of +∞ although the true ε is finite), with what to change; empty otherwise.
  virtual std::string caveat(double /*delta*/) const { return {}; }
};

class Accountant {
 public:
  virtual ~Accountant() = default;
  // Identifier used in reports and on the command line, e.g. "pld-gaussian", "rdp", "zcdp".
  virtual std::string name() const = 0;
  virtual BoundKind bound() const = 0;
  // Whether this accountant can interpret the event (mechanism, sampling, relation).
  virtual bool supports(const PrivacyEvent& event) const = 0;
  // Composes all events; throws ConfigError naming the first unsupported event.
  virtual std::unique_ptr<PrivacyProfile> compose(std::span<const PrivacyEvent> events) const = 0;
  // Whether compose(events) is the exact privacy profile of the events (up to root-finding
  // rounding on the safe side): then no certified upper bound can be below it, so a planner or a
  // report may skip the other accountants, some of which cost seconds (numerical PLDs).
  virtual bool exact(std::span<const PrivacyEvent> /*events*/) const { return false; }
};

}  // namespace dpmcmc
