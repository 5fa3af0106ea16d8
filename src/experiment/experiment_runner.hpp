// Runs an experiment spec (experiment/experiment_spec.hpp) cell by cell into OUT/results.csv
// (experiment/results_csv.hpp), in parallel, resumable:
//
// * Cells. sample: (model, sampler, ε, repeat) for private samplers, (model, sampler, repeat)
//   for non-private ones (ε = NA); account: (model, sampler, ε), one row per accountant. With a
//   sweep, each swept label has one cell per value besides: models → samplers → sweep value → ε
//   → repeats.
// * Seeds. The cell key is "KIND/MODEL/LABEL/EPS/REPEAT" (EPS in shortest round-trip form or NA,
//   REPEAT 1-based or NA); a cell of a swept label has "KIND/MODEL/LABEL/PARAM=VALUE/EPS/REPEAT"
//   (VALUE in shortest round-trip form), so that specs without a sweep keep their seeds. With
//   mix(a, b) = splitmix64(a XOR splitmix64(b)) and fnv(s) the 64-bit FNV-1a hash of the bytes of
//   s:
//     run seed  = mix(spec seed, fnv("cell:" + key))                 (chains, noise, MMD)
//     data seed = mix(spec seed, fnv("data:" + MODEL + "/" + REPEAT)) (REPEAT = 1 for every
//                 repeat with "fixed_data": true)
//     start seed = mix(spec seed, fnv("start:" + MODEL + "/" + REPEAT))  (only with
//                  "paired_starts": true; otherwise the starting points come from the run seed)
//   so every sampler and ε of one repeat sees the same synthetic data (a paired comparison),
//   and with paired starts the same starting points, while each cell has its own streams. Nothing
//   depends on the thread count or the order in which cells finish.
// * Parallelism. `threads` workers (0: all cores) each take the next cell; each job runs its
//   chains on one thread, so a cell's result is the same whatever runs beside it.
// * Resume. Cells whose key is already in OUT/results.csv are skipped. Each row carries the
//   spec hash of its cell (cell_hash): a row whose hash differs from the current spec's is an
//   error (ConfigError) rather than silently mixing two experiments in one table. Rows are
//   appended and flushed as cells finish; a row cut short by a crash is dropped on the next
//   start; at the end of a complete run the file is rewritten (atomically) in grid order, so
//   the same spec and seed give the same file apart from wall times.
// * Interrupts. Ctrl-C (or options.stop) stops the running jobs at their next iteration; their
//   cells are not written (they are recomputed on resume) and the outcome says interrupted.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/noise_key.hpp"
#include "experiment/experiment_spec.hpp"
#include "experiment/results_csv.hpp"
#include "models/reference_cache.hpp"
#include "run/private_plan.hpp"

namespace dpmcmc {

struct ExperimentCell {
  std::size_t index = 0;  // position in the grid (results are sorted by it)
  std::string model;
  SamplerChoice sampler;
  std::optional<double> epsilon;
  std::optional<int> repeat;  // 1-based; none for account cells
  // The swept hyperparameter and its value in this cell (already in sampler.overrides); none
  // when the spec has no sweep or does not sweep this label.
  std::optional<std::string> sweep_param;
  std::optional<double> sweep_value;
  std::string key;
  std::uint64_t seed = 0;
  std::uint64_t data_seed = 0;
  // With "paired_starts": the seed of the starting points, shared by the repeat's cells.
  std::optional<std::uint64_t> start_seed;
  std::string spec_hash;
};

// splitmix64(seed XOR splitmix64(fnv1a64(tag))), the derivation documented above.
std::uint64_t derive_seed(std::uint64_t seed, std::string_view tag);

// The hash (16 hex digits) of everything that determines the results of a cell of `sampler`
// apart from its grid coordinates: kind, the sampler and its overrides (without the swept
// value), per-label iterations, the swept parameter's name, δ rule, n, chains, iterations,
// starting points, burn-in, metrics, reference draws, accountants and seed. Keys a spec does not
// use (per-label iterations, sweep) are left out, so older specs keep their hashes.
std::string cell_hash(const ExperimentSpec& spec, const SamplerChoice& sampler);

// Whether a cell key matches one of the shell patterns (fnmatch; `*` also matches '/').
bool key_matches(const std::string& key, const std::vector<std::string>& patterns);

// The grid in order: models, then samplers, then sweep values, then ε, then repeats.
std::vector<ExperimentCell> experiment_cells(const ExperimentSpec& spec);

struct ExperimentOptions {
  std::filesystem::path out_dir;
  int threads = 0;                          // 0: all cores
  const std::atomic<bool>* stop = nullptr;  // set to true to stop like Ctrl-C
  // Called once per finished cell (serialised; after its rows are on disk) with the number of
  // cells finished so far in this run and the number this run has to do.
  std::function<void(const ExperimentCell&, const std::vector<ResultRow>&, std::size_t done,
                     std::size_t todo)>
      on_cell;
  // Run only the cells whose key matches one of these shell patterns (fnmatch: `*`, `?`,
  // `[…]`), e.g. "sample/banana-*/*/*/[1-3]": a staged run of a long profile. Empty: every
  // cell. The other cells keep their rows, and a later run without patterns adds them. A pattern
  // that matches no cell of the grid is a UsageError, raised before anything runs.
  std::vector<std::string> cell_patterns;
  // false: the cells keep report.json but write no chain CSVs (SampleSpec::write_draws); the
  // results are the same. Not part of the cell hash: it changes no number.
  bool draw_files = true;
};

struct ExperimentOutcome {
  std::size_t cells = 0;      // in the grid
  std::size_t selected = 0;   // of those, matched by cell_patterns (all when there are none)
  std::size_t skipped = 0;    // already in the results file
  std::size_t ran = 0;        // computed and written by this run
  std::size_t errors = 0;     // of those, cells whose job failed (status error)
  bool interrupted = false;   // stopped before every selected cell was done
  std::size_t with_rows = 0;  // cells of the grid with rows in the file after this run
  bool complete = false;      // every cell of the grid has its rows (the file is in grid order)
  bool dropped_partial_row = false;  // the file ended in a row cut short, which was removed
  // Rows of the file whose cell is not in this grid but whose settings (spec hash) some cell of
  // it has, e.g. repeats or a label's models narrowed since: kept at the end of the file, never
  // deleted silently. (A row whose settings no cell has, e.g. of a removed sampler, is refused.)
  std::size_t outside_grid = 0;
  std::string outside_example;  // the first such row's cell key
  std::filesystem::path results_file;
  double wall_seconds = 0.0;
  // Where the private cells run now took their noise key from (NoiseKey::describe(), or fresh
  // per cell); empty when no private cell ran.
  std::string noise_key;
};

// Runs the cells not yet in OUT/results.csv and writes OUT/spec.json (the resolved spec).
// Throws ConfigError when the results file holds rows of another spec, DataError for a
// malformed results file, OutputError when OUT cannot be written.
ExperimentOutcome run_experiment(const ExperimentSpec& spec, const ExperimentOptions& options);

// Where a sample cell's draws and report.json go:
// OUT/cells/MODEL/LABEL[/PARAM-VALUE]/eps-E/rep-R (non-private samplers: "non-private" for eps-E).
std::filesystem::path cell_dir(const std::filesystem::path& out_dir, const ExperimentCell& c);

// One cell on its own (the runner's unit of work): the rows to write, or nullopt when the job
// was interrupted. A failing job gives one row with status "error" and the message.
// `draw_files` as ExperimentOptions::draw_files.
// What the cells of one experiment run share: `noise_key` keys the private cells' noise (the
// runner loads the spec's noise_key_file once; without one each cell draws a fresh key), and
// `plan_memo` keeps the plans and composed ε that every repeat of a cell recomputes, and
// `references` the exact-posterior references of the models of all cells on the same data.
struct CellShared {
  std::shared_ptr<const NoiseKey> noise_key;
  std::shared_ptr<PlanMemo> plan_memo = std::make_shared<PlanMemo>();
  std::shared_ptr<ReferenceCache> references = std::make_shared<ReferenceCache>();
};
std::optional<std::vector<ResultRow>> run_experiment_cell(
    const ExperimentSpec& spec, const ExperimentCell& cell, const std::filesystem::path& out_dir,
    const std::atomic<bool>* stop, bool draw_files = true, const CellShared& shared = {});

}  // namespace dpmcmc
