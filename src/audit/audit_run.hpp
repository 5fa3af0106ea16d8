// The auditor's driver (issue #27): runs a subject on neighbouring datasets many times with fresh
// secret noise and turns the two samples of statistics into an empirical lower bound on ε, to be
// compared with what the subject's accountant certifies.
//
//   1. Pilot: for each candidate pair (neighbours.hpp), `pilot_trials` runs on D and on D′; the
//      pair with the largest pilot lower bound is kept (candidates the subject refuses — a
//      canary outside a declared box — are skipped and reported).
//   2. Audit: `trials` fresh runs on each of the kept D and D′; epsilon_bound.hpp's threshold
//      tests give ε_lb at confidence 1 − β (selection and judgement on disjoint halves, so the
//      pilot and the selection do not bias it), and a hockey-stick plug-in estimate.
//   3. Verdict: VIOLATION when ε_lb > ε_certified (the certificate is wrong with confidence
//      ≥ 1 − β), else consistent.
//
// Every run's noise comes from the audit's own key (stream = phase, candidate, trial, side),
// never from the subject's public seed; runs are spread over threads and written by index, so
// the result does not depend on the thread count.
#pragma once

#include <atomic>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "audit/audit_subject.hpp"
#include "audit/epsilon_bound.hpp"
#include "audit/neighbours.hpp"
#include "core/noise_key.hpp"

namespace dpmcmc {

struct AuditOptions {
  std::uint64_t trials = 10000;       // runs on each of D and D′ for the bound
  std::uint64_t pilot_trials = 1000;  // runs on each of D and D′ per candidate pair
  double delta = 1e-5;
  double beta = 0.05;  // confidence 1 − β
  int threads = 0;     // 0: all cores
  // Checked before every run: when set, the audit stops and throws InterruptedRun.
  const std::atomic<bool>* stop = nullptr;
};

struct PilotResult {
  std::string canary;
  double epsilon_lb = 0.0;  // the pilot's bound (selection only; not a confidence claim)
  std::string refused;      // why the subject refused the pair; empty when it ran
};

struct AuditOutcome {
  std::string subject;
  Neighbouring relation = Neighbouring::substitute;
  std::string canary;
  std::vector<PilotResult> pilot;
  EpsilonLowerBound bound;
  HockeyStickEstimate hockey_stick;
  std::vector<std::pair<double, double>> tradeoff;  // (FPR, FNR) of the chosen test
  double certified_epsilon = 0.0;
  double delta = 0.0, beta = 0.0;
  std::uint64_t trials = 0;
  double seconds = 0.0;

  bool violation() const { return bound.epsilon > certified_epsilon * (1.0 + 1e-9); }
  nlohmann::json to_json() const;
};

// The statistics of `trials` runs on `data`, streams (phase, trial, side) of `key`.
// InterruptedRun when `stop` is set before the runs are done.
Mat audit_samples(const AuditSubject& subject, const Dataset& data, const NoiseKey& key,
                  std::uint64_t phase, std::uint64_t side, std::uint64_t trials, int threads,
                  const std::atomic<bool>* stop = nullptr);

// Steps 1–3 above. ConfigError when no candidate pair can be run (listing why), or for options
// out of range (trials < 8, δ or β outside (0, 1)).
AuditOutcome run_audit(const AuditSubject& subject, const std::vector<NeighbourPair>& candidates,
                       const AuditOptions& options, const NoiseKey& key);

}  // namespace dpmcmc
