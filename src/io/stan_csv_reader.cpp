#include "io/stan_csv_reader.hpp"

#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <istream>
#include <set>
#include <system_error>
#include <utility>

#include "core/error.hpp"

namespace dpmcmc {

namespace {

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t");
  return s.substr(first, last - first + 1);
}

// Parses a whole cell as a double; false if it is not entirely a number.
bool parse_double(std::string_view cell, double& out) {
  cell = trim(cell);
  if (cell.empty()) return false;
  // from_chars rejects a leading '+', which some writers emit; accept it unless a sign follows.
  if (cell.front() == '+' && cell.size() > 1 && cell[1] != '-' && cell[1] != '+') {
    cell.remove_prefix(1);
  }
  const char* end = cell.data() + cell.size();
  const auto [ptr, ec] = std::from_chars(cell.data(), end, out);
  // Out-of-range magnitudes (e.g. 1e999) are reported by from_chars; treat them as infinities
  // would be a guess, so they are errors like any other unreadable cell.
  return ec == std::errc() && ptr == end;
}

std::vector<std::string_view> split_commas(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  for (;;) {
    const auto comma = line.find(',', start);
    if (comma == std::string_view::npos) {
      fields.push_back(line.substr(start));
      return fields;
    }
    fields.push_back(line.substr(start, comma - start));
    start = comma + 1;
  }
}

// Builds the configuration map from the comment lines before the header.
class ConfigParser {
 public:
  explicit ConfigParser(std::map<std::string, std::string>& config) : config_(config) {}

  void line(std::string_view body) {  // body: the text after '#'
    const std::size_t indent = body.find_first_not_of(" \t");
    if (indent == std::string_view::npos) return;  // blank comment
    const std::string_view text = trim(body);
    while (!stack_.empty() && stack_.back().first >= indent) stack_.pop_back();
    const auto eq = text.find('=');
    if (eq == std::string_view::npos) {
      // A section name ("sample", "adapt", "data", …) if it is a single word; free text
      // (e.g. a title) otherwise, which is not configuration.
      if (text.find(' ') == std::string_view::npos) stack_.emplace_back(indent, std::string(text));
      return;
    }
    const std::string key(trim(text.substr(0, eq)));
    if (key.empty()) return;
    std::string_view value = trim(text.substr(eq + 1));
    constexpr std::string_view kDefault = "(Default)";
    if (value.size() >= kDefault.size() &&
        value.substr(value.size() - kDefault.size()) == kDefault) {
      value = trim(value.substr(0, value.size() - kDefault.size()));
    }
    config_.emplace(key, std::string(value));
    if (!stack_.empty()) {
      std::string path;
      for (const auto& [level, name] : stack_) path += name + ".";
      config_.emplace(path + key, std::string(value));
    }
    stack_.emplace_back(indent, key);
  }

 private:
  std::map<std::string, std::string>& config_;
  std::vector<std::pair<std::size_t, std::string>> stack_;
};

bool truthy(const std::string& v) {
  return v == "1" || v == "true" || v == "TRUE";
}

// The config value of `key` as a non-negative integer, or -1 when absent or not an integer.
long long config_integer(const std::map<std::string, std::string>& config, const std::string& key) {
  const auto it = config.find(key);
  if (it == config.end()) return -1;
  long long out = 0;
  const std::string& v = it->second;
  const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || ptr != v.data() + v.size() || out < 0) return -1;
  return out;
}

}  // namespace

std::optional<std::size_t> StanCsv::column_index(std::string_view name) const {
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (columns[i] == name) return i;
  }
  return std::nullopt;
}

Mat StanCsv::sampling_draws() const {
  const auto w = static_cast<Eigen::Index>(warmup_rows);
  return draws.bottomRows(draws.rows() - w);
}

Mat pooled_columns(const std::vector<StanCsv>& files, const std::vector<std::string>& names) {
  Eigen::Index total = 0;
  for (const auto& f : files) total += f.draws.rows() - static_cast<Eigen::Index>(f.warmup_rows);
  Mat pooled(total, static_cast<Eigen::Index>(names.size()));
  Eigen::Index r = 0;
  for (const auto& f : files) {
    const Mat draws = f.sampling_draws();
    for (std::size_t j = 0; j < names.size(); ++j) {
      const auto c = f.column_index(names[j]);
      if (!c)
        throw DataError(fmt::format("{}: no column '{}' (expected the parameters {})", f.source,
                                    names[j], fmt::join(names, ", ")));
      pooled.block(r, static_cast<Eigen::Index>(j), draws.rows(), 1) =
          draws.col(static_cast<Eigen::Index>(*c));
    }
    r += draws.rows();
  }
  return pooled;
}

StanCsv read_stan_csv(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw NoInputError(fmt::format("{}: is a directory, expected a Stan CSV file", path.string()));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw NoInputError(
        fmt::format("{}: cannot open Stan CSV file: {}", path.string(), std::strerror(errno)));
  }
  return parse_stan_csv(in, path.string());
}

StanCsv parse_stan_csv(std::istream& in, const std::string& source) {
  StanCsv csv;
  csv.source = source;
  ConfigParser config(csv.config);
  std::vector<double> values;  // row-major
  std::size_t rows = 0;
  std::size_t header_line = 0;
  std::size_t line_no = 0;
  // Where the adaptation block starts (number of rows read before it), once seen.
  std::optional<std::size_t> rows_before_adaptation;
  bool in_adaptation = false;
  std::string line;

  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::string_view text = trim(line);
    if (text.empty()) continue;
    if (text.front() == '#') {
      const std::string_view body = std::string_view(text).substr(1);
      if (header_line == 0) {
        config.line(body);
        continue;
      }
      const std::string comment(trim(body));
      if (!rows_before_adaptation && comment.rfind("Adaptation terminated", 0) == 0) {
        rows_before_adaptation = rows;
        in_adaptation = true;
      }
      if (in_adaptation && (comment.empty() || comment.rfind("Elapsed Time", 0) == 0)) {
        in_adaptation = false;
      }
      if (in_adaptation) {
        csv.adaptation.push_back(comment);
      } else if (!comment.empty()) {
        csv.trailing_comments.push_back(comment);
      }
      continue;
    }
    in_adaptation = false;
    const auto fields = split_commas(text);

    if (header_line == 0) {
      header_line = line_no;
      std::set<std::string_view> seen;
      for (std::size_t c = 0; c < fields.size(); ++c) {
        std::string_view name = trim(fields[c]);
        if (name.size() >= 2 && name.front() == '"' && name.back() == '"') {
          name = name.substr(1, name.size() - 2);
        }
        double number = 0.0;
        if (parse_double(name, number)) {
          throw DataError(fmt::format(
              "{}:{}: no header: expected a line of column names (e.g. lp__,accept_stat__,...) "
              "before the draws, but column {} is the number '{}'",
              source, line_no, c + 1, name));
        }
        if (name.empty()) {
          throw DataError(
              fmt::format("{}:{}: header column {} has an empty name", source, line_no, c + 1));
        }
        csv.columns.emplace_back(name);
      }
      for (std::size_t c = 0; c < csv.columns.size(); ++c) {
        if (!seen.insert(csv.columns[c]).second) {
          throw DataError(fmt::format("{}:{}: header column {} repeats the name '{}'", source,
                                      line_no, c + 1, csv.columns[c]));
        }
      }
      continue;
    }

    if (fields.size() != csv.columns.size()) {
      throw DataError(
          fmt::format("{}:{}: ragged row: {} fields, but the header (line {}) has {} columns",
                      source, line_no, fields.size(), header_line, csv.columns.size()));
    }
    for (std::size_t c = 0; c < fields.size(); ++c) {
      double v = 0.0;
      if (!parse_double(fields[c], v)) {
        throw DataError(fmt::format("{}:{}: column {} ('{}'): expected a number, found '{}'",
                                    source, line_no, c + 1, csv.columns[c], trim(fields[c])));
      }
      values.push_back(v);
    }
    ++rows;
  }
  if (in.bad()) throw NoInputError(fmt::format("{}: read error after line {}", source, line_no));
  if (header_line == 0) {
    throw DataError(fmt::format(
        "{}: no header: expected a line of column names (e.g. lp__,accept_stat__,...) after the "
        "'#' comment lines, found {}",
        source, line_no == 0 ? "an empty file" : "only comments and blank lines"));
  }

  const auto cols = static_cast<Eigen::Index>(csv.columns.size());
  csv.draws =
      Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
          values.data(), static_cast<Eigen::Index>(rows), cols);

  if (rows_before_adaptation) {
    csv.warmup_rows = *rows_before_adaptation;
  } else if (auto it = csv.config.find("save_warmup");
             it != csv.config.end() && truthy(it->second)) {
    const long long warmup = config_integer(csv.config, "num_warmup");
    const long long thin = std::max(1LL, config_integer(csv.config, "thin"));
    if (warmup > 0) {
      csv.warmup_rows = std::min(rows, static_cast<std::size_t>((warmup + thin - 1) / thin));
    }
  }
  return csv;
}

}  // namespace dpmcmc
