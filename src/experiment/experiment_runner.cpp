#include "experiment/experiment_runner.hpp"

#include <fnmatch.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "core/error.hpp"
#include "data/atomic_file.hpp"
#include "data/directory_lock.hpp"
#include "io/run_report.hpp"
#include "models/presets.hpp"
#include "run/interrupt.hpp"

namespace dpmcmc {
namespace {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::uint64_t fnv1a64(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

std::string cell_key(ExperimentKind kind, const std::string& model, const std::string& label,
                     const std::optional<std::string>& sweep_param,
                     std::optional<double> sweep_value, std::optional<double> eps,
                     std::optional<int> repeat) {
  // The sweep segment only when the cell has a swept value (ResultRow::cell_key agrees).
  const std::string swept =
      sweep_param ? fmt::format("/{}={}", *sweep_param, format_number(*sweep_value)) : "";
  return fmt::format("{}/{}/{}{}/{}/{}", experiment_kind_name(kind), model, label, swept,
                     eps ? format_number(*eps) : "NA", repeat ? std::to_string(*repeat) : "NA");
}

// Appends rows to the results file, one flushed write per cell, so that an interruption leaves
// at most one partial line (dropped on the next start).
class Appender {
 public:
  explicit Appender(const std::filesystem::path& path)
      : path_(path), file_(std::fopen(path.c_str(), "ab")) {
    if (!file_) throw OutputError(fmt::format("{}: cannot open for appending", path.string()));
  }
  ~Appender() {
    if (file_) std::fclose(file_);
  }
  Appender(const Appender&) = delete;
  Appender& operator=(const Appender&) = delete;
  void write(const std::string& text) {
    if (std::fwrite(text.data(), 1, text.size(), file_) != text.size() || std::fflush(file_) != 0)
      throw OutputError(fmt::format("{}: write failed", path_.string()));
  }

 private:
  std::filesystem::path path_;
  std::FILE* file_;
};

}  // namespace

std::uint64_t derive_seed(std::uint64_t seed, std::string_view tag) {
  return splitmix64(seed ^ splitmix64(fnv1a64(tag)));
}

std::string cell_hash(const ExperimentSpec& spec, const SamplerChoice& sampler) {
  nlohmann::json h = spec.resolved;
  // Grid coordinates and names are not part of a cell's settings: adding an ε or a sampler to a
  // spec keeps the rows already computed valid.
  for (const char* k : {"name", "description", "profile", "file", "models", "samplers", "epsilons",
                        "repeats", "sweep"})
    h.erase(k);
  // An audit's iteration counts are its sweep: a grid coordinate too.
  if (h.contains("audit")) h["audit"].erase("iterations");
  h["format"] = "dpmcmc-experiment-1";
  h["sampler"] = {{"name", sampler.sampler}, {"overrides", sampler.overrides}};
  if (sampler.adapt) h["sampler"]["adapt"] = true;  // absent when off: older hashes stay valid
  if (sampler.target_accept) h["sampler"]["target_accept"] = *sampler.target_accept;
  if (sampler.warmup || sampler.samples) {
    h["sampler"]["iterations"] = {{"warmup", sampler.warmup.value_or(spec.warmup)},
                                  {"samples", sampler.samples.value_or(spec.samples)}};
  }
  // The swept parameter's name (its values are grid coordinates, like ε).
  if (spec.sweep && spec.sweep->sweeps(sampler.label)) h["sweep_param"] = spec.sweep->param;
  return fmt::format("{:016x}", fnv1a64(h.dump()));
}

bool key_matches(const std::string& key, const std::vector<std::string>& patterns) {
  return std::any_of(patterns.begin(), patterns.end(),
                     [&](const std::string& p) { return fnmatch(p.c_str(), key.c_str(), 0) == 0; });
}

std::vector<ExperimentCell> experiment_cells(const ExperimentSpec& spec) {
  std::vector<ExperimentCell> cells;
  for (const auto& model : spec.models) {
    for (const auto& choice : spec.samplers) {
      if (!choice.runs_on(model)) continue;
      const std::string hash = cell_hash(spec, choice);
      std::vector<std::optional<double>> eps;
      if (spec.kind != ExperimentKind::sample || experiment_sampler_is_private(choice.sampler)) {
        for (double e : spec.epsilons) eps.emplace_back(e);
      } else {
        eps.emplace_back(std::nullopt);
      }
      std::vector<std::optional<int>> repeats;
      if (spec.kind != ExperimentKind::sample) {
        repeats.emplace_back(std::nullopt);
      } else {
        for (int r = 1; r <= spec.repeats; ++r) repeats.emplace_back(r);
      }
      std::vector<std::optional<double>> swept;
      if (spec.sweep && spec.sweep->sweeps(choice.label)) {
        for (double v : spec.sweep->values) swept.emplace_back(v);
      } else {
        swept.emplace_back(std::nullopt);
      }
      for (const auto& v : swept) {
        for (const auto& e : eps) {
          for (const auto& r : repeats) {
            ExperimentCell c;
            c.index = cells.size();
            c.model = model;
            c.sampler = choice;
            if (v) {
              c.sweep_param = spec.sweep->param;
              c.sweep_value = *v;
              // An audit's sweep is its iteration count, not a hyperparameter.
              if (spec.kind != ExperimentKind::audit) c.sampler.overrides[spec.sweep->param] = *v;
            }
            c.epsilon = e;
            c.repeat = r;
            c.key = cell_key(spec.kind, model, choice.label, c.sweep_param, v, e, r);
            c.seed = derive_seed(spec.seed, "cell:" + c.key);
            c.data_seed = derive_seed(
                spec.seed, fmt::format("data:{}/{}", model, spec.fixed_data ? 1 : r.value_or(1)));
            if (spec.paired_starts && r) {
              c.start_seed = derive_seed(spec.seed, fmt::format("start:{}/{}", model, *r));
            }
            c.spec_hash = hash;
            cells.push_back(std::move(c));
          }
        }
      }
    }
  }
  return cells;
}

namespace {

// A pattern that selects nothing is a typo, not a request to run nothing.
void check_patterns(const ExperimentSpec& spec, const std::vector<ExperimentCell>& cells,
                    const std::vector<std::string>& patterns) {
  for (const auto& p : patterns) {
    const std::vector<std::string> one{p};
    if (std::none_of(cells.begin(), cells.end(),
                     [&](const ExperimentCell& c) { return key_matches(c.key, one); }))
      throw UsageError(fmt::format(
          "--cells: pattern '{}' matches no cell of {} (keys are KIND/MODEL/LABEL/EPS/REPEAT, "
          "e.g. '{}'; `*` also matches '/')",
          p, spec.name, cells.empty() ? std::string("none") : cells.front().key));
  }
}

// The rows of results.csv as text lines without the newline: per cell of the grid (index), and
// the rows of cells outside the current grid (kept, at the end).
struct ResultLines {
  std::vector<std::vector<std::string>> by_cell;
  std::vector<std::string> foreign;

  std::string text() const {
    std::string text = results_header();
    for (const auto& group : by_cell) {
      for (const auto& l : group) text += l + "\n";
    }
    for (const auto& l : foreign) text += l + "\n";
    return text;
  }
};

// The rows already on disk, checked against the grid: a row of a cell computed with other
// settings, or of no cell with its settings, is a ConfigError naming the file and line.
ResultLines rows_on_disk(const ExperimentSpec& spec, const std::vector<ExperimentCell>& cells,
                         ExperimentOutcome& outcome) {
  ResultLines kept;
  kept.by_cell.resize(cells.size());
  if (!std::filesystem::exists(outcome.results_file)) return kept;
  std::map<std::string, std::size_t> index_of;
  std::set<std::string> hashes;
  for (const auto& c : cells) {
    index_of[c.key] = c.index;
    hashes.insert(c.spec_hash);
  }
  const ResultsFile existing = read_results(outcome.results_file);
  outcome.dropped_partial_row = existing.truncated_last_line;
  for (const ResultRow& row : existing.rows) {
    const auto it = index_of.find(row.cell_key());
    const std::string& h = row.text("spec_hash");
    const bool ok = it != index_of.end() ? cells[it->second].spec_hash == h : hashes.count(h);
    if (!ok) {
      const std::string why =
          it != index_of.end()
              ? fmt::format("was computed with other settings (spec hash {}) than {} gives now", h,
                            spec.file.string())
              : fmt::format(
                    "is not in the grid of {}, and no cell of it has this row's settings "
                    "(spec hash {})",
                    spec.file.string(), h);
      throw ConfigError(fmt::format(
          "{}:{}: this row (cell {}) {}: results of two different specs would mix; use another "
          "--out, or delete the file to start again",
          outcome.results_file.string(), row.line, row.cell_key(), why));
    }
    // Re-formatted rather than copied: a file written before a column was added (e.g.
    // sweep_param) gets NA there, and a current file is reproduced byte for byte.
    std::string line = format_row(row);
    line.pop_back();
    if (it != index_of.end()) {
      kept.by_cell[it->second].push_back(std::move(line));
    } else {
      if (kept.foreign.empty()) outcome.outside_example = row.cell_key();
      kept.foreign.push_back(std::move(line));
    }
  }
  return kept;
}

// One key for every private cell of this run, read (or created) once before the cells start:
// cells running in parallel never race to create the file.
CellShared cell_shared(const ExperimentSpec& spec, const std::vector<const ExperimentCell*>& todo,
                       ExperimentOutcome& outcome) {
  CellShared shared;
  const bool any_private = spec.kind != ExperimentKind::account &&
                           std::any_of(todo.begin(), todo.end(), [](const ExperimentCell* c) {
                             return c->epsilon.has_value();
                           });
  if (!any_private) return shared;
  if (spec.noise_key_file) {
    shared.noise_key = std::make_shared<const NoiseKey>(
        NoiseKey::from_file(*spec.noise_key_file, NoiseKey::FilePolicy::public_allowed));
    outcome.noise_key = shared.noise_key->describe();
  } else {
    outcome.noise_key =
        "fresh for each cell, not stored (rows of private cells will not reproduce; set "
        "noise_key_file in the spec to rerun them bit for bit)";
  }
  return shared;
}

// Runs the cells of `todo` on a pool of threads, appending each cell's rows to results.csv as it
// finishes (and to `kept`); Ctrl-C (the caller holds the InterruptGuard) or options.stop stop the
// pool and keep what is written. The first exception of a cell stops the others and is rethrown.
void run_cells(const ExperimentSpec& spec, const ExperimentOptions& options,
               const std::vector<const ExperimentCell*>& todo, const CellShared& shared,
               ResultLines& kept, ExperimentOutcome& outcome) {
  int threads =
      options.threads > 0 ? options.threads : static_cast<int>(std::thread::hardware_concurrency());
  threads = std::max(1, std::min<int>(threads, static_cast<int>(todo.size())));
  std::atomic<bool> halt{false};
  std::atomic<std::size_t> next{0};
  std::mutex mutex;
  std::condition_variable done_cv;
  int running = threads;
  std::exception_ptr failure;
  auto appender = std::make_unique<Appender>(outcome.results_file);
  auto worker = [&] {
    for (;;) {
      if (halt.load() || interrupt_requested()) break;
      const std::size_t i = next.fetch_add(1);
      if (i >= todo.size()) break;
      const ExperimentCell& cell = *todo[i];
      try {
        const auto rows =
            run_experiment_cell(spec, cell, options.out_dir, &halt, options.draw_files, shared);
        std::lock_guard lock(mutex);
        if (!rows) {
          outcome.interrupted = true;
          continue;
        }
        std::string text;
        for (const auto& r : *rows) {
          std::string line = format_row(r);
          text += line;
          line.pop_back();  // stored without the newline
          kept.by_cell[cell.index].push_back(std::move(line));
        }
        appender->write(text);
        ++outcome.ran;
        if (!rows->empty() && rows->front().text("kind") == "sample" &&
            rows->front().text("status") == "error")
          ++outcome.errors;
        if (options.on_cell) options.on_cell(cell, *rows, outcome.ran, todo.size());
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!failure) failure = std::current_exception();
        halt = true;
      }
    }
    std::lock_guard lock(mutex);
    --running;
    done_cv.notify_all();
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < threads && !todo.empty(); ++t) pool.emplace_back(worker);
  {
    // The main thread relays an external stop request to the jobs.
    std::unique_lock lock(mutex);
    while (running > 0 && !pool.empty()) {
      done_cv.wait_for(lock, std::chrono::milliseconds(20));
      if (options.stop && options.stop->load()) halt = true;
    }
  }
  for (auto& t : pool) t.join();
  appender.reset();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace

ExperimentOutcome run_experiment(const ExperimentSpec& spec, const ExperimentOptions& options) {
  Stopwatch clock;
  ExperimentOutcome outcome;
  const auto cells = experiment_cells(spec);
  check_patterns(spec, cells, options.cell_patterns);
  outcome.cells = cells.size();
  outcome.results_file = options.out_dir / "results.csv";
  // Two runners on one directory would lose rows (data/directory_lock.hpp): one at a time.
  const DirectoryLock out_lock(options.out_dir, "--out");

  ResultLines kept = rows_on_disk(spec, cells, outcome);
  outcome.outside_grid = kept.foreign.size();
  // Start from a clean file: the header, and the complete rows only.
  write_file_atomic(outcome.results_file, kept.text());
  write_json(spec.resolved, options.out_dir / "spec.json");

  std::vector<const ExperimentCell*> todo;
  for (const auto& c : cells) {
    if (!options.cell_patterns.empty() && !key_matches(c.key, options.cell_patterns)) continue;
    ++outcome.selected;
    if (kept.by_cell[c.index].empty()) todo.push_back(&c);
  }
  outcome.skipped = outcome.selected - todo.size();
  InterruptGuard guard;  // Ctrl-C: stop the cells, keep what is written (through the rewrite)
  run_cells(spec, options, todo, cell_shared(spec, todo, outcome), kept, outcome);

  const std::size_t done = outcome.skipped + outcome.ran;
  outcome.interrupted = outcome.interrupted || done < outcome.selected;
  outcome.with_rows = static_cast<std::size_t>(std::count_if(
      kept.by_cell.begin(), kept.by_cell.end(), [](const auto& l) { return !l.empty(); }));
  outcome.complete = outcome.with_rows == cells.size();
  if (outcome.complete) write_file_atomic(outcome.results_file, kept.text());  // grid order
  outcome.wall_seconds = clock.seconds();
  return outcome;
}

}  // namespace dpmcmc
