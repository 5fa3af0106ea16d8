// Checkpoints of a run (issue #24; docs/user-guide.md, "Resuming a stopped or killed run"). Every
// chain saves, between two transitions, everything its continuation depends on: θ, its algorithm
// stream, the kernel's state (Kernel::save_state — for a private kernel its data owner's noise
// stream position, allowance left and event log), its counters and its kept rows. A resumed chain
// restores that state and goes on exactly as the uninterrupted chain would have: same draws, same
// releases, same recorded spend, bit for bit.
//
// Files, in the checkpoint directory (DIR.curator/checkpoint for a private run — the noise
// stream's position and the rows' curator columns depend on the private data without noise —
// else DIR/checkpoint): per chain
//   chain-K.json  the state, replaced atomically (write to a temporary name, fsync, rename);
//   chain-K.rows  the kept rows as raw doubles, appended; the state says how many are valid.
// A process killed at any instant leaves the last state intact and at least as many rows as it
// names; a resumed chain cuts the rows file back to that count.
//
// Why resuming spends nothing unaccounted: the noise of every release is drawn from the chain's
// noise stream, whose position is part of the state. Releases made after the last checkpoint and
// before the kill are made again on resume with the same noise on the same data and the same θ,
// so they are the same random variables, not fresh ones; the restored event log has them once.
// This holds only for the same data and key: the job refuses to resume when the data's content
// hash or the key's check value differ (sample_job.cpp).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>

#include "core/types.hpp"

namespace dpmcmc {

struct CheckpointConfig {
  std::filesystem::path dir;
  // Save after every `every_iterations` transitions of a chain; 0: every `every_seconds` of its
  // wall time (the default: a few seconds of work between checkpoints).
  std::size_t every_iterations = 0;
  double every_seconds = 5.0;
  // Restore each chain from its files in `dir` (a chain without files starts afresh).
  bool resume = false;
};

// The checkpoint files of one chain.
class ChainCheckpoint {
 public:
  // `columns`: values per kept row. Opens nothing yet.
  ChainCheckpoint(const CheckpointConfig& config, int chain_id, std::size_t columns);
  ChainCheckpoint(const ChainCheckpoint&) = delete;
  ChainCheckpoint& operator=(const ChainCheckpoint&) = delete;
  ~ChainCheckpoint();

  struct Saved {
    nlohmann::json state;
    Mat rows;  // the kept rows the state names, warmup rows first
  };
  // With config.resume and a saved state: the state and the rows it names, read without
  // changing any file. Otherwise nullopt. DataError naming the file when the state is malformed
  // or the rows file is shorter than the state says.
  std::optional<Saved> load() const;
  // Opens the rows file for appending after its first `rows` rows (cutting off any beyond them:
  // rows kept after the last checkpoint), or empty when `rows` is 0 and nothing was loaded.
  // Call only once the loaded state has been checked. OutputError when it cannot be written.
  void begin(std::size_t rows);

  // Appends one kept row (buffered).
  void append_row(std::span<const double> row);
  // Whether a checkpoint is due after `transitions` transitions since the last one.
  bool due(std::size_t transitions) const;
  // Flushes the rows and replaces the state file by `state` (which must name the rows appended
  // so far as "rows").
  void save(const nlohmann::json& state);

  const std::filesystem::path& state_path() const { return state_path_; }

 private:
  const CheckpointConfig& config_;
  std::filesystem::path state_path_, rows_path_;
  std::size_t columns_;
  std::FILE* rows_ = nullptr;
  std::chrono::steady_clock::time_point last_;
};

// Removes a checkpoint directory and everything in it, once the run it served has completed and
// written its outputs (nothing is left to resume). A missing directory is fine.
void remove_checkpoint(const std::filesystem::path& dir);

}  // namespace dpmcmc
