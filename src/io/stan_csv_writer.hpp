// The draws of one chain as a Stan CSV file (docs/architecture.md), readable by ArviZ from_cmdstan,
// CmdStan's stansummary and our own stan_csv_reader.
//
// Layout, as CmdStan writes it (comments only where Stan puts them):
//   # num_samples = 1000        <- the four keys readers use to split warmup from sampling
//   # num_warmup = 1000            (ArviZ: saved warmup rows = save_warmup * num_warmup // thin;
//   # save_warmup = 0              save_warmup is written as 0/1 because ArviZ applies int())
//   # thin = 1
//   # key = value               <- the caller's configuration, in the caller's order
//   lp__,accept_stat__,clip_frac__,theta.1,theta.2      <- header
//   ...warmup rows, only when save_warmup...
//   # Adaptation terminated     <- optional block after warmup, before the sampling rows
//   ...sampling rows...
//   #
//   #  Elapsed Time: 0.120 seconds (Warm-up)            <- Stan's timing block (ArviZ reads it)
//   #                0.480 seconds (Sampling)
//   #                0.600 seconds (Total)
//   #
//   # dpmcmc: completed 2000 of 2000 iterations
// Values are written in the shortest form that parses back to the same double (fmt "{}"), so a
// reader gets the exact draws; NaN and infinities are written "nan", "inf", "-inf" as Stan does
// (lp__ is NaN for private kernels, which never see the exact log density).
//
// Nothing half-written looks complete: rows go to NAME.csv.part, flushed to the operating system
// every `flush_every_draws` draws or `flush_interval_seconds` (whichever comes first), and only
// finish() renames the file to NAME.csv, after a final comment line. A stale NAME.csv from an
// earlier run is deleted when the writer opens, so an old result never sits beside a running
// one. An interrupted run (Ctrl-C, privacy budget exhausted, a time limit) calls
// finish_interrupted(), which ends the file with
//   # dpmcmc: INTERRUPTED after 1234 of 5000 iterations (<reason>); draws are a valid but partial
//   chain
// and still renames it to NAME.csv: the draws written are a correct prefix of the chain, and the
// user keeps them; the last comment line says that the chain is partial. Only when the writer is
// destroyed without either call (the run failed with an exception, or crashed) does the file
// stay NAME.csv.part, with (on an exception) a last line "# dpmcmc: ABORTED ...".
//
// The writer installs no signal handler: the runner catches the interrupt and calls
// finish_interrupted().
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/types.hpp"
#include "data/atomic_file.hpp"

namespace dpmcmc {

struct StanCsvLayout {
  // Iterations requested after warmup and during warmup (before thinning), whether warmup rows
  // are written, and the thinning period. With save_warmup, num_warmup must be a multiple of
  // thin (readers disagree otherwise: ArviZ takes num_warmup // thin rows as warmup, Stan and our
  // reader ⌈num_warmup / thin⌉) and exactly num_warmup / thin warmup rows must be written.
  std::size_t num_samples = 0;
  std::size_t num_warmup = 0;
  bool save_warmup = false;
  std::size_t thin = 1;
  // Further configuration, written as "# key = value" lines in this order. Keys match
  // [A-Za-z0-9_.]+ and must not repeat the four above; a line break in a value is written "\n".
  std::vector<std::pair<std::string, std::string>> config;
  // Sampler columns after lp__ and accept_stat__, each ending in "__" (e.g. "clip_frac__").
  std::vector<std::string> sampler_columns;
  // Parameter columns, Stan's dotted 1-based names: a name [A-Za-z_][A-Za-z0-9_]* optionally
  // followed by indices ".1", ".2.3" (ArviZ turns "theta.1", "theta.2" into an array theta).
  std::vector<std::string> param_names;
  // Stan's "Elapsed Time" block at the end. Off for a private run's published draws: how long a
  // run took can depend on its private rows (batch sizes, data-dependent work), so its timings
  // go to the curator's files (docs/architecture.md).
  bool write_timing = true;
};

struct StanCsvOptions {
  std::size_t flush_every_draws = 1000;
  double flush_interval_seconds = 1.0;
};

// Wall-clock seconds of the two phases, for Stan's "Elapsed Time" block.
struct StanCsvTiming {
  double warmup_seconds = 0.0;
  double sampling_seconds = 0.0;
};

class StanCsvWriter {
 public:
  // Opens `path`.part (creating the output directory if missing) and writes the configuration
  // and the header. Throws OutputError (73) naming the path when it cannot be written, and
  // ConfigError (78) when save_warmup is on and thin does not divide num_warmup, SoftwareError
  // when the layout breaks the other rules above (a bug in the caller).
  StanCsvWriter(std::filesystem::path path, StanCsvLayout layout, StanCsvOptions options = {});
  StanCsvWriter(const StanCsvWriter&) = delete;
  StanCsvWriter& operator=(const StanCsvWriter&) = delete;
  // Without finish()/finish_interrupted(): appends "# dpmcmc: ABORTED ..." (best effort) and
  // leaves the file as NAME.csv.part.
  ~StanCsvWriter();

  // One saved warmup iteration (only with save_warmup, before any sampling draw).
  void write_warmup_draw(double lp, double accept_stat, std::span<const double> sampler,
                         std::span<const double> params);
  // One saved post-warmup iteration.
  void write_draw(double lp, double accept_stat, std::span<const double> sampler,
                  std::span<const double> params);
  void write_draw(double lp, double accept_stat, std::span<const double> sampler,
                  const Vec& params) {
    write_draw(lp, accept_stat, sampler,
               std::span<const double>(params.data(), static_cast<std::size_t>(params.size())));
  }
  // The adaptation block, as Stan writes it: "# Adaptation terminated", then each of `lines`
  // (e.g. "Step size = 0.8") as "# line". Allowed once, after the warmup rows and before the
  // first sampling row; Stan CSV readers take the rows before it as warmup.
  void write_adaptation(const std::vector<std::string>& lines);

  // The run completed: writes the timing block and "# dpmcmc: completed N of N iterations"
  // (N = num_warmup + num_samples), then renames NAME.csv.part to NAME.csv.
  void finish(const StanCsvTiming& timing);
  // The run stopped early after `iterations_done` of `iterations_total` iterations, for
  // `reason` (e.g. "interrupted by signal", "privacy budget exhausted"; may be empty): writes
  // the timing block and the INTERRUPTED line, then renames to NAME.csv.
  void finish_interrupted(std::size_t iterations_done, std::size_t iterations_total,
                          std::string_view reason, const StanCsvTiming& timing);

  std::size_t warmup_draws_written() const { return warmup_rows_; }
  std::size_t draws_written() const { return sampling_rows_; }
  // NAME.csv, the name the file has once finished.
  const std::filesystem::path& path() const { return file_.final_path(); }
  // NAME.csv.part, the name while the run goes on.
  const std::filesystem::path& part_path() const { return file_.temp_path(); }

 private:
  // warmup: saved warmup rows may come (save_warmup only); between: warmup is over, the
  // adaptation block may come; sampling: sampling rows; finished: renamed.
  enum class Phase { warmup, between, sampling, finished };
  void end_warmup();
  void write_row(double lp, double accept_stat, std::span<const double> sampler,
                 std::span<const double> params);
  void write_timing(const StanCsvTiming& timing);
  void close(const std::string& last_line);

  AtomicFile file_;
  StanCsvLayout layout_;
  StanCsvOptions options_;
  Phase phase_ = Phase::warmup;
  std::size_t warmup_rows_ = 0;
  std::size_t sampling_rows_ = 0;
  std::size_t rows_since_flush_ = 0;
  std::chrono::steady_clock::time_point last_flush_;
  std::string row_;  // reused row buffer: no allocation per draw
};

}  // namespace dpmcmc
