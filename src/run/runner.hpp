// The chain runner (docs/architecture.md, issue "Core engine"): builds one kernel per chain through
// a factory, runs M chains on worker threads with per-chain streams make_rng(seed, chain id),
// applies warmup and thinning, feeds each chain's DrawSink and keeps the kept draws in memory.
// Ctrl-C (or RunConfig::stop) stops all chains at their next iteration; the result then says so.
//
// Reproducibility: a chain's draws depend only on (seed, chain id, kernel, plan), never on the
// number of threads or on the other chains.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "run/draw_sink.hpp"
#include "run/run_config.hpp"
#include "samplers/kernel.hpp"

namespace dpmcmc {

// Builds the kernel of chain `chain_id`. Called on the calling thread, in chain order, before any
// chain starts, so it need not be thread-safe; a private kernel gets its own PrivateData and
// noise stream (make_noise_rng(seed, chain_id)) here. Kernels of different chains must not share
// mutable state.
using KernelFactory = std::function<std::unique_ptr<Kernel>(int chain_id)>;
// Builds the draw sink of chain `chain_id` (same calling rules); may return nullptr.
using SinkFactory = std::function<std::unique_ptr<DrawSink>(int chain_id)>;

struct RunCallbacks {
  SinkFactory make_sink;  // optional: without it draws are only kept in memory
};

struct ChainResult {
  int chain = 0;  // chain id
  ChainStatus status = ChainStatus::completed;
  std::size_t warmup_planned = 0, samples_planned = 0;
  std::size_t warmup_done = 0, samples_done = 0;  // transitions completed in each phase
  std::size_t warmup_accepted = 0, samples_accepted = 0;
  double wall_seconds = 0.0;
  Vec start;           // θ0
  Vec final_position;  // the kernel's position when the chain stopped
  // The tuning the chain sampled with, when it adapted (RunConfig::adapt and an adaptable kernel):
  // a function of its warmup draws and acceptance statistics.
  std::optional<Tuning> tuning;
  // Kept sampling-phase draws, one row per kept iteration, one column per RunResult::columns.
  Mat draws;
  // Kept warmup draws (only with RunConfig::save_warmup), same columns.
  Mat warmup_draws;
  std::string message;  // error of a failed chain

  // Iterations reached: warmup and sampling transitions completed.
  std::size_t iterations() const { return warmup_done + samples_done; }
  // Fraction of sampling-phase transitions that moved; NaN when none ran (0/0 is not a rate).
  double acceptance_rate() const;
  // Same over the warmup phase.
  double warmup_acceptance_rate() const;
};

struct RunResult {
  // lp__, accept_stat__, the kernel's extra columns, then the parameter names.
  std::vector<std::string> columns;
  int first_param_column = 2;
  std::vector<ChainResult> chains;
  // True when SIGINT or RunConfig::stop ended at least one chain before its plan: the draws are
  // valid but partial.
  bool interrupted = false;
  std::uint64_t seed = 0;
  int threads = 1;
  double wall_seconds = 0.0;

  // Every chain completed its plan.
  bool complete() const;
  // The parameter columns of a chain's kept draws (rows × dim).
  Mat param_draws(std::size_t chain_index) const;
};

// ConfigError naming --iter, --warmup and --thin when the draws that `chains` chains of `plan`
// keep in memory (every thin-th iteration, warmup ones with save_warmup, `columns` doubles each)
// would not fit in this machine's physical memory: a clear refusal before any chain starts (or,
// for a private run, before anything is released) instead of bad_alloc, or a negative size,
// half-way. Counted in floating point, so no product overflows.
void check_kept_draws_fit(int chains, const ChainPlan& plan, std::size_t thin, bool save_warmup,
                          std::size_t columns);

// Runs config.chains chains. param_names must have one name per kernel dimension. Throws
// ConfigError for an invalid configuration (before any chain starts); when a chain throws, the
// others are stopped, every sink still gets finish(), and the first error is rethrown with the
// chain id in its message (same exit code).
RunResult run_chains(const KernelFactory& kernels, const std::vector<std::string>& param_names,
                     const RunConfig& config, const RunCallbacks& callbacks = {});

}  // namespace dpmcmc
