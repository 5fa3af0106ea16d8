// Configuration of a multi-chain run (issue "Core engine"): chains, seed, warmup, sampling,
// thinning, threads, starting points, progress display and interrupt handling.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/types.hpp"
#include "run/checkpoint.hpp"

namespace dpmcmc {

// Starting points. Either given (`points`: one shared by all chains, or one per chain), or drawn
// around `centre` as θ0 = centre + spread·z with z ~ N(0, I) from the chain's Stream::start
// generator ([Raisa2021] Section 5.2: true θ + N(0, I)·s, s the mean posterior
// sd). The drawn points depend only on (seed, chain id), so every algorithm run with the same
// seed starts from the same points, as in the thesis' comparisons.
struct InitConfig {
  std::vector<Vec> points;
  Vec centre;           // empty: the origin
  double spread = 1.0;  // s ≥ 0 (0: every chain starts at the centre)
  // Seed of the starting points' stream (default: the run seed). Experiments with paired starts
  // give every cell of a repeat the same one, so that their chains start from the same points.
  std::optional<std::uint64_t> seed;
};

// Warmup and sampling iterations of one chain (a budget planner may give each chain its own).
struct ChainPlan {
  std::size_t warmup = 0;
  std::size_t samples = 0;
};

enum class ProgressMode {
  automatic,  // on stderr when stderr is a terminal (isatty), silent otherwise
  always,     // on stderr even when redirected
  never,
};

struct RunConfig {
  int chains = 4;
  // Chain ids are first_chain, …, first_chain + chains − 1; each id gets the streams
  // make_rng(seed, id, ·), so chain 2 run alone equals chain 2 of a 4-chain run.
  int first_chain = 0;
  std::uint64_t seed = 0;
  // Warmup transitions (where an adapting kernel tunes itself, see `adapt`) and kept-phase
  // transitions.
  std::size_t warmup = 1000;
  std::size_t samples = 1000;
  // Optional per-chain override of (warmup, samples), one entry per chain; empty: all chains use
  // warmup and samples above.
  std::vector<ChainPlan> per_chain;
  // Adapt the step size and metric of every kernel that can be tuned (Kernel::adaptation())
  // during warmup (samplers/warmup_adapter.hpp); the tuning at the end of warmup is kept for
  // sampling. Off: every kernel runs with its configured tuning throughout (the papers' runs).
  bool adapt = false;
  // The acceptance rate the step size adapts to, for every chain (Stan's adapt_delta); unset: the
  // kernel's own (AdaptationTarget::accept). Raising it towards 1 gives smaller steps, for
  // posteriors whose curvature varies (a banana's arms need smaller steps than its body).
  std::optional<double> target_accept;
  // Adapt a dense metric (the warmup draws' covariance) instead of a diagonal one; only for the
  // kernels that can use one (AdaptationTarget::dense_capable: NUTS, HMC, RWMH), else the chain
  // fails with a ConfigError.
  bool dense_metric = false;
  // Keep every thin-th transition (the first of each block, Stan's convention), in both phases.
  std::size_t thin = 1;
  // Pass warmup rows to the sinks and keep them in ChainResult::warmup_draws.
  bool save_warmup = false;
  // Worker threads; 0 = all cores (std::thread::hardware_concurrency()), capped at chains.
  int threads = 0;
  InitConfig init;
  ProgressMode progress = ProgressMode::automatic;
  // Install a SIGINT handler for the duration of the run: Ctrl-C then stops every chain cleanly
  // at its next iteration (a second Ctrl-C kills the process as usual).
  bool handle_sigint = true;
  // Optional external stop request (embedding, tests): set it to true to stop like Ctrl-C.
  const std::atomic<bool>* stop = nullptr;
  // Checkpoints of every chain (run/checkpoint.hpp); none when empty.
  std::optional<CheckpointConfig> checkpoint;
};

}  // namespace dpmcmc
