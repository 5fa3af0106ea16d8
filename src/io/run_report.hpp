// The JSON run report beside the draws (docs/architecture.md): configuration, seeds, planned and
// recorded privacy spend, rates, timings, diagnostics. The document itself is built by the
// runner; this file writes it safely and converts our types into JSON.
//
// Non-finite doubles: JSON has no NaN or infinity, and a report that strict parsers reject is
// worse than useless. Every non-finite double is written as null — both by the helpers below
// (which store null in the document) and by format_json/write_json for any NaN or infinity
// stored directly (nlohmann::json serialises them as null). Readers must treat null in a
// numeric field as "not a finite number" (e.g. an R-hat that could not be computed).
#pragma once

#include <chrono>
#include <filesystem>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/types.hpp"

namespace dpmcmc {

// `report` as text: 2-space indentation, a final newline, non-finite numbers as null, and any
// invalid UTF-8 in strings (e.g. a file name in a legacy encoding) replaced by U+FFFD rather than
// failing.
std::string format_json(const nlohmann::json& report);

// Writes format_json(report) to `path` atomically (`path`.tmp, then rename; parent directories
// created). Throws OutputError (73) naming the path when it cannot be written.
void write_json(const nlohmann::json& report, const std::filesystem::path& path);

// A double, or null when it is NaN or infinite.
nlohmann::json json_number(double value);
// [v0, v1, ...] with non-finite entries as null.
nlohmann::json json_array(std::span<const double> values);
nlohmann::json json_array(const Vec& values);
// Rows of the matrix as nested arrays: [[m00, m01], [m10, m11]] (row-major, as numpy reads it).
nlohmann::json json_matrix(const Mat& values);

// Wall-clock time since construction or the last restart(), on a monotonic clock.
class Stopwatch {
 public:
  Stopwatch() : start_(std::chrono::steady_clock::now()) {}
  void restart() { start_ = std::chrono::steady_clock::now(); }
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

// Named phase durations in seconds ("warmup", "sampling", "accounting", ...).
class Timings {
 public:
  // Adds `seconds` to the phase `name` (a phase may be timed in several pieces). "total" is
  // reserved for the sum (SoftwareError).
  void add(const std::string& name, double seconds);
  void add(const std::string& name, std::chrono::duration<double> elapsed) {
    add(name, elapsed.count());
  }
  // Seconds recorded for `name`, 0 when none.
  double seconds(const std::string& name) const;
  // {"<name>_seconds": s, ..., "total_seconds": sum}.
  nlohmann::json to_json() const;

 private:
  std::vector<std::pair<std::string, double>> phases_;
};

}  // namespace dpmcmc
