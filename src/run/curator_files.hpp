// The curator's side of the publication boundary (docs/architecture.md; issue #23). A private run
// writes what may be published under --out DIR: θ draws, columns that are functions of released
// (noisy) values, the configuration without secrets, the planned and recorded spend. Everything
// computed from the private rows without noise — clip counts, secret batch sizes, timings, accuracy
// against the exact posterior — goes to the curator directory DIR.curator/ (mode 0700), each file
// of which says so on its first line.
#pragma once

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "data/atomic_file.hpp"
#include "run/draw_sink.hpp"

namespace dpmcmc {

// The first line of every curator file (after the comment marker of its format) and the prefix of
// every curator line printed to stdout.
inline constexpr const char* kCuratorLabel =
    "computed from the private data without noise - not for release";

// DIR.curator beside DIR (DIR's last component with ".curator" appended), never inside it: an
// --out of ".", "t/." or "a/.." is named by its absolute path. ConfigError for the root.
std::filesystem::path curator_dir(const std::filesystem::path& out_dir);

// Creates `dir` if missing and sets its mode to 0700 (owner only). OutputError naming it when
// that fails.
void prepare_curator_dir(const std::filesystem::path& dir);

// The output directories of a run (DIR and DIR.curator, and their missing ancestors), noted
// before the run creates them, so that a run refused before its first release (the budget ledger:
// exit 77 and no output) removes again those it created, each only if it is empty.
class NewOutputDirs {
 public:
  explicit NewOutputDirs(const std::filesystem::path& out_dir);
  void remove_if_empty() const;

 private:
  std::vector<std::filesystem::path> missing_;  // deepest first
};

// Writes `report` as JSON whose first line holds the label: {"NOT_FOR_RELEASE": "<label>", …}.
void write_curator_json(const nlohmann::json& report, const std::filesystem::path& path);

// A chain's curator-only draw columns as CSV: the label line "# <label>", then
// "draw,<columns>" and one row per kept draw (draw = the row's 1-based position among the kept
// rows of the chain's published CSV, warmup rows included when saved). Written to NAME.part and
// renamed to NAME when the chain ends, like the draws.
class CuratorColumnsSink final : public DrawSink {
 public:
  // `at`: positions of the curator columns among the runner's sampler columns; `names` theirs.
  CuratorColumnsSink(std::filesystem::path path, std::vector<std::size_t> at,
                     std::vector<std::string> names);
  void row(std::span<const double> values) override;
  void finish(const ChainEnd& end) override;

 private:
  AtomicFile file_;
  std::vector<std::size_t> at_;
  std::size_t rows_ = 0;
  std::string line_;
};

// Forwards every callback to each of its sinks in order.
class TeeSink final : public DrawSink {
 public:
  explicit TeeSink(std::vector<std::unique_ptr<DrawSink>> sinks) : sinks_(std::move(sinks)) {}
  void header(const std::vector<std::string>& columns) override;
  void row(std::span<const double> values) override;
  void end_warmup() override;
  void finish(const ChainEnd& end) override;

 private:
  std::vector<std::unique_ptr<DrawSink>> sinks_;
};

}  // namespace dpmcmc
