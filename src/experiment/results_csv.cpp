#include "experiment/results_csv.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "core/error.hpp"

namespace dpmcmc {
namespace {

const std::string kNa = "NA";

// Columns holding real numbers (or NA) and columns holding unsigned integers (or NA); the rest
// are words. Validated on reading so that the report never meets a malformed number.
const std::set<std::string>& real_columns() {
  static const std::set<std::string> s = {"epsilon",         "delta",
                                          "acceptance_rate", "llr_clip_frac",
                                          "grad_clip_frac",  "mmd",
                                          "mean_error",      "cov_error",
                                          "max_rhat",        "certified_epsilon",
                                          "wall_seconds",    "test_accuracy",
                                          "sweep_value",     "sym_kl",
                                          "epsilon_lb",      "hockey_stick_epsilon",
                                          "mmd_exact",       "batch_size"};
  return s;
}
// Columns added after the first release of the format: a file without them (written by an
// older dpmcmc) is read with NA there, and the runner rewrites it with them on resume.
const std::set<std::string>& optional_columns() {
  static const std::set<std::string> s = {"sweep_param",         "sweep_value", "sym_kl",
                                          "epsilon_lb",          "mmd_exact",   "batch_size",
                                          "hockey_stick_epsilon"};
  return s;
}
const std::set<std::string>& integer_columns() {
  static const std::set<std::string> s = {
      "repeat", "n", "chains", "seed", "data_seed", "iterations_per_chain", "iterations_total"};
  return s;
}

std::vector<std::string> split_commas(const std::string& line) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const auto comma = line.find(',', start);
    out.push_back(line.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

bool parse_double(const std::string& text, double& value) {
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  return ec == std::errc() && ptr == end;
}

bool parse_unsigned(const std::string& text, std::uint64_t& value) {
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  return ec == std::errc() && ptr == end;
}

}  // namespace

const std::vector<std::string>& results_columns() {
  static const std::vector<std::string> columns = {"kind",
                                                   "model",
                                                   "sampler",
                                                   "sweep_param",
                                                   "sweep_value",
                                                   "epsilon",
                                                   "delta",
                                                   "repeat",
                                                   "accountant",
                                                   "bound",
                                                   "n",
                                                   "chains",
                                                   "seed",
                                                   "data_seed",
                                                   "iterations_per_chain",
                                                   "iterations_total",
                                                   "acceptance_rate",
                                                   "llr_clip_frac",
                                                   "grad_clip_frac",
                                                   "batch_size",
                                                   "mmd",
                                                   "mmd_exact",
                                                   "mean_error",
                                                   "cov_error",
                                                   "sym_kl",
                                                   "test_accuracy",
                                                   "max_rhat",
                                                   "certified_epsilon",
                                                   "epsilon_lb",
                                                   "hockey_stick_epsilon",
                                                   "wall_seconds",
                                                   "status",
                                                   "message",
                                                   "spec_hash"};
  return columns;
}

const std::string& ResultRow::text(const std::string& column) const {
  const auto it = cells.find(column);
  return it == cells.end() ? kNa : it->second;
}

std::optional<double> ResultRow::number(const std::string& column, const std::string& file) const {
  const std::string& t = text(column);
  if (t == kNa) return std::nullopt;
  double v = 0.0;
  if (!parse_double(t, v) || !std::isfinite(v)) {
    throw DataError(fmt::format("{}:{}: column '{}': expected a finite number or NA, got '{}'",
                                file, line, column, t));
  }
  return v;
}

void ResultRow::set(const std::string& column, std::string value) {
  cells[column] = sanitize_field(value);
}

void ResultRow::set(const std::string& column, std::optional<double> value) {
  cells[column] = value ? format_number(*value) : kNa;
}

void ResultRow::set_integer(const std::string& column, std::uint64_t value) {
  cells[column] = std::to_string(value);
}

std::string ResultRow::cell_key() const {
  // As experiment/experiment_runner.cpp builds it: the sweep segment only for a swept cell.
  const std::string swept = text("sweep_param") == kNa
                                ? std::string()
                                : "/" + text("sweep_param") + "=" + text("sweep_value");
  return fmt::format("{}/{}/{}{}/{}/{}", text("kind"), text("model"), text("sampler"), swept,
                     text("epsilon"), text("repeat"));
}

std::string format_number(double value) {
  if (!std::isfinite(value)) return kNa;
  // fmt's "{}" is the shortest representation that round-trips (Ryu-like).
  return fmt::format("{}", value);
}

std::string sanitize_field(const std::string& text) {
  if (text.empty()) return kNa;
  std::string out = text;
  for (char& c : out) {
    if (c == ',') c = ';';
    if (c == '"') c = '\'';
    if (c == '\n' || c == '\r') c = ' ';
  }
  return out;
}

std::string format_row(const ResultRow& row) {
  std::string line;
  for (const auto& c : results_columns()) {
    if (!line.empty()) line += ',';
    line += row.text(c);
  }
  return line + "\n";
}

std::string results_header() {
  std::string line;
  for (const auto& c : results_columns()) line += (line.empty() ? "" : ",") + c;
  return line + "\n";
}

ResultsFile read_results(const std::filesystem::path& file) {
  const std::string name = file.string();
  if (!std::filesystem::exists(file)) throw NoInputError(fmt::format("{}: no such file", name));
  std::ifstream in(file, std::ios::binary);
  if (!in) throw NoInputError(fmt::format("{}: cannot read the file", name));
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string text = buffer.str();

  ResultsFile out;
  if (!text.empty() && text.back() != '\n') {
    // An interrupted append: the last row is incomplete, so it is not a result.
    out.truncated_last_line = true;
    text.erase(text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1);
  }
  std::istringstream lines(text);
  std::string line;
  std::size_t number = 0;
  std::vector<std::string> header;
  while (std::getline(lines, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (number == 1) {
      header = split_commas(line);
      const auto& expected = results_columns();
      for (std::size_t j = 0; j < header.size(); ++j) {
        if (std::find(expected.begin(), expected.end(), header[j]) == expected.end()) {
          throw DataError(fmt::format(
              "{}:1: column {} '{}' is not a results column (expected the header written by "
              "`dpmcmc experiment`: {})",
              name, j + 1, header[j], results_header().substr(0, results_header().size() - 1)));
        }
        if (std::count(header.begin(), header.end(), header[j]) > 1) {
          throw DataError(fmt::format("{}:1: column '{}' appears twice", name, header[j]));
        }
      }
      for (const auto& c : expected) {
        if (std::find(header.begin(), header.end(), c) == header.end() &&
            !optional_columns().count(c)) {
          throw DataError(fmt::format("{}:1: missing column '{}'", name, c));
        }
      }
      continue;
    }
    if (line.empty()) {
      throw DataError(fmt::format("{}:{}: empty line", name, number));
    }
    const auto fields = split_commas(line);
    if (fields.size() != header.size()) {
      throw DataError(fmt::format("{}:{}: expected {} cells (as in the header), got {}", name,
                                  number, header.size(), fields.size()));
    }
    ResultRow row;
    row.line = number;
    for (std::size_t j = 0; j < fields.size(); ++j) {
      const std::string& c = header[j];
      const std::string& v = fields[j];
      if (v.empty()) {
        throw DataError(fmt::format("{}:{}: column '{}' is empty (write NA for a missing value)",
                                    name, number, c));
      }
      if (v != kNa && real_columns().count(c)) {
        double x = 0.0;
        if (!parse_double(v, x) || !std::isfinite(x)) {
          throw DataError(fmt::format(
              "{}:{}: column '{}': expected a finite number or NA, got '{}'", name, number, c, v));
        }
      }
      if (v != kNa && integer_columns().count(c)) {
        std::uint64_t x = 0;
        if (!parse_unsigned(v, x)) {
          throw DataError(
              fmt::format("{}:{}: column '{}': expected a whole number ≥ 0 or NA, got '{}'", name,
                          number, c, v));
        }
      }
      row.cells[c] = v;
    }
    const std::string& kind = row.text("kind");
    if (kind != "sample" && kind != "account" && kind != "audit") {
      throw DataError(fmt::format(
          "{}:{}: column 'kind': expected sample, account or audit, got '{}'", name, number, kind));
    }
    const std::string& status = row.text("status");
    if (status != "completed" && status != "error") {
      throw DataError(fmt::format("{}:{}: column 'status': expected completed or error, got '{}'",
                                  name, number, status));
    }
    out.rows.push_back(std::move(row));
    out.lines.push_back(line);
  }
  if (number == 0) throw DataError(fmt::format("{}:1: empty file (expected a header)", name));
  return out;
}

}  // namespace dpmcmc
