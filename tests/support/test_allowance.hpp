// Allowances for tests and benchmarks that call PrivateData's releases directly: planned with
// the calibration the test's releases use, so the allowance check (release_allowance.hpp) runs
// on them as it does in a real job.
#pragma once

#include <cstdint>
#include <vector>

#include "privacy/batch_sampling.hpp"
#include "privacy/minibatch_templates.hpp"
#include "privacy/privacy_event.hpp"
#include "privacy/release_allowance.hpp"

namespace dpmcmc {

// For tests of a release's arithmetic, which vary the noise multiplier: a planned multiplier
// below any they use (the allowance's own checks are tested in release_allowance_test.cpp).
inline constexpr double kLowestTestMultiplier = 1e-15;

// Gaussian releases of several kinds (substitute relation, all rows), each with σ/Δ ≥
// `noise_multiplier`, `count` of each.
inline ReleaseAllowance gaussian_allowance(const ReleaseCounts& counts, double noise_multiplier) {
  ReleaseAllowance a;
  for (const auto& [kind, count] : counts) {
    PrivacyEvent e;
    e.kind = kind;
    e.mechanism = Mechanism::gaussian;
    e.sensitivity = 1.0;
    e.noise_sd = noise_multiplier;
    e.relation = Neighbouring::substitute;
    a.add(e, count);
  }
  return a;
}

// For tests of DP-Fast MH's arithmetic, which vary ε and δ: `count` iterations planned at an
// (ε, δ) above any they use.
inline ReleaseAllowance fastmh_test_allowance(std::uint64_t count) {
  PrivacyEvent e;
  e.kind = ReleaseKind::fastmh;
  e.mechanism = Mechanism::approximate_dp;
  e.epsilon = 1e6;
  e.delta = 0.5;
  e.relation = Neighbouring::substitute;
  ReleaseAllowance a;
  a.add(e, count);
  return a;
}

// For tests of the stochastic-gradient kernels: `count` gradient batches drawn as `batch` from n
// rows, planned at kLowestTestMultiplier.
inline ReleaseAllowance batch_test_allowance(const BatchSpec& batch, std::size_t n,
                                             std::uint64_t count) {
  const bool poisson = batch.sampling == BatchSampling::poisson;
  PrivacyEvent e;
  e.kind = ReleaseKind::grad_batch;
  e.mechanism = Mechanism::subsampled_gaussian;
  e.sensitivity = 1.0;
  e.noise_sd = kLowestTestMultiplier;
  e.sampling = poisson ? Sampling::poisson : Sampling::without_replacement;
  e.sampling_rate = batch_rate(batch, n);
  e.relation = poisson ? Neighbouring::add_remove : Neighbouring::substitute;
  ReleaseAllowance a;
  a.add(e, count);
  return a;
}

// For tests of the minibatch penalty release: `count` releases of batches of `batch` of n rows,
// planned at noise multiplier ≥ `multiplier` (its template takes τ = multiplier²).
inline ReleaseAllowance llr_batch_test_allowance(std::size_t batch, std::size_t n,
                                                 std::uint64_t count,
                                                 double multiplier = kLowestTestMultiplier) {
  return ReleaseAllowance::for_iterations(
      dp_penalty_minibatch_template(multiplier * multiplier, batch, n), count);
}

// `iterations` iterations of a sampler's per-iteration template (its real plan).
inline ReleaseAllowance template_allowance(const std::vector<PrivacyEvent>& per_iteration,
                                           std::uint64_t iterations) {
  return ReleaseAllowance::for_iterations(per_iteration, iterations);
}

}  // namespace dpmcmc
