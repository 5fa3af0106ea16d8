#include "data/csv_loader.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <system_error>
#include <unordered_map>

#include <fmt/format.h>

#include "core/error.hpp"
#include "data/file_bytes.hpp"

namespace dpmcmc {
namespace {

bool is_blank_char(char c) {
  return c == ' ' || c == '\t';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_blank_char(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank_char(s.back())) s.remove_suffix(1);
  return s;
}

// A cell quoted for a message: at most 40 characters, so that one huge token cannot drown it.
std::string quote_cell(std::string_view cell) {
  constexpr std::size_t kMax = 40;
  if (cell.size() <= kMax) return fmt::format("'{}'", cell);
  return fmt::format("'{}...' ({} characters)", cell.substr(0, kMax), cell.size());
}

std::string join(const std::vector<std::string>& names) {
  return fmt::format("{}", fmt::join(names, ", "));
}

// Parses one number with from_chars, accepting an explicit leading '+' (which from_chars
// refuses). Returns the end of the number, or nullptr when the text does not start with one.
const char* parse_number(const char* p, const char* end, double& value, std::errc& ec) {
  if (p < end && *p == '+' && p + 1 < end && ((p[1] >= '0' && p[1] <= '9') || p[1] == '.')) {
    ++p;
  }
  const auto result = std::from_chars(p, end, value);
  ec = result.ec;
  if (ec == std::errc::invalid_argument) return nullptr;
  return result.ptr;
}

// Whether a whole (trimmed) cell is a number: used to recognise a missing header.
bool is_number(std::string_view cell) {
  double value = 0.0;
  std::errc ec{};
  const char* end = cell.data() + cell.size();
  const char* stop = parse_number(cell.data(), end, value, ec);
  return stop == end && !cell.empty();
}

std::vector<std::string_view> split_cells(std::string_view line) {
  std::vector<std::string_view> cells;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = line.find(',', start);
    if (comma == std::string_view::npos) {
      cells.push_back(trim(line.substr(start)));
      return cells;
    }
    cells.push_back(trim(line.substr(start, comma - start)));
    start = comma + 1;
  }
}

class CsvParser {
 public:
  CsvParser(std::string_view text, const std::string& source, const CsvOptions& options)
      : text_(text), source_(source), options_(options) {
    // A UTF-8 byte-order mark (spreadsheet exports) is not part of the first column's name.
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") text_.remove_prefix(3);
  }

  Dataset parse() {
    parse_header();
    check_expected_columns();
    parse_rows();
    Dataset data;
    data.x = std::move(x_);
    data.columns = std::move(columns_);
    data.source = source_;
    return data;
  }

 private:
  // Advances to the next physical line; false at the end of the text. Strips "\r".
  bool next_line(std::string_view& line) {
    if (pos_ >= text_.size()) return false;
    const char* begin = text_.data() + pos_;
    const void* nl = std::memchr(begin, '\n', text_.size() - pos_);
    const std::size_t len =
        nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - begin) : text_.size() - pos_;
    line = std::string_view(begin, len);
    pos_ += len + 1;
    ++line_no_;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return true;
  }

  static bool is_comment(std::string_view line) {
    const std::string_view t = trim(line);
    return !t.empty() && t.front() == '#';
  }

  std::string where(std::size_t line) const { return fmt::format("{}, line {}", source_, line); }

  std::string where(std::size_t line, std::size_t column) const {
    if (column < columns_.size()) {
      return fmt::format("{}, line {}, column {} ('{}')", source_, line, column + 1,
                         columns_[column]);
    }
    return fmt::format("{}, line {}, column {}", source_, line, column + 1);
  }

  std::string model_phrase() const {
    return options_.model_name.empty() ? std::string("the caller")
                                       : fmt::format("model '{}'", options_.model_name);
  }

  void parse_header() {
    std::string_view line;
    while (next_line(line)) {
      if (is_comment(line)) continue;
      if (trim(line).empty()) {
        // Only blank lines (and comments) from here on: the file holds no header at all.
        if (only_comments_and_blanks_remain()) break;
        throw DataError(fmt::format(
            "{}: the line is empty, expected the header row naming the columns (comma separated) "
            "as the first line that is not a '#' comment",
            where(line_no_)));
      }
      header_line_ = line_no_;
      read_header_cells(line);
      return;
    }
    if (text_.empty()) {
      throw DataError(fmt::format(
          "{}: the file is empty, expected a header row naming the columns and then rows of "
          "numbers",
          source_));
    }
    throw DataError(fmt::format(
        "{}: the file holds no header and no data ({}), expected a header row naming the "
        "columns and then rows of numbers",
        source_,
        text_.find('#') != std::string_view::npos ? "only comments and blank lines"
                                                  : "only blank lines"));
  }

  // True when nothing but comments and blank lines remains (the position is left unchanged).
  bool only_comments_and_blanks_remain() const {
    std::string_view rest = text_.substr(std::min(pos_, text_.size()));
    while (!rest.empty()) {
      const std::size_t nl = rest.find('\n');
      const std::string_view line = rest.substr(0, nl);
      const std::string_view t = trim(line.substr(0, line.size() - (line.ends_with('\r') ? 1 : 0)));
      if (!t.empty() && t.front() != '#') return false;
      if (nl == std::string_view::npos) break;
      rest.remove_prefix(nl + 1);
    }
    return true;
  }

  void read_header_cells(std::string_view line) {
    const auto cells = split_cells(line);
    std::unordered_map<std::string_view, std::size_t> seen;
    for (std::size_t j = 0; j < cells.size(); ++j) {
      std::string_view name = cells[j];
      if (name.size() >= 2 && name.front() == '"' && name.back() == '"') {
        name = trim(name.substr(1, name.size() - 2));
      }
      if (name.empty()) {
        throw DataError(fmt::format(
            "{}, column {}: the header cell is empty, expected a column name (the header at "
            "this line must name every column)",
            where(line_no_), j + 1));
      }
      if (is_number(name)) {
        throw DataError(fmt::format(
            "{}, column {}: the header is missing: the first line that is not a '#' comment "
            "must name the columns, but its cell {} is a number (add a header row such as "
            "'x1,x2,...')",
            where(line_no_), j + 1, quote_cell(name)));
      }
      const auto [it, inserted] = seen.emplace(name, j);
      if (!inserted) {
        throw DataError(fmt::format(
            "{}, column {}: duplicate column name '{}' (also column {}), expected distinct names",
            where(line_no_), j + 1, name, it->second + 1));
      }
      columns_.emplace_back(name);
    }
  }

  void check_expected_columns() const {
    const auto& expected = options_.expected_columns;
    if (expected.empty()) return;
    if (expected.size() != columns_.size()) {
      std::string hint;
      if (columns_.size() == 1 && columns_[0].find_first_of(";\t") != std::string::npos) {
        hint = " (the header contains ';' or tabs: only commas separate cells)";
      }
      throw DataError(fmt::format(
          "{}: {} expects {} column{} ({}), but the header has {} column{} ({}){}",
          where(header_line_), model_phrase(), expected.size(), expected.size() == 1 ? "" : "s",
          join(expected), columns_.size(), columns_.size() == 1 ? "" : "s", join(columns_), hint));
    }
    for (std::size_t j = 0; j < expected.size(); ++j) {
      if (expected[j] != columns_[j]) {
        throw DataError(fmt::format(
            "{}, column {}: {} expects the column named '{}' here, found '{}'; expected "
            "columns, in this order: {}",
            where(header_line_), j + 1, model_phrase(), expected[j], columns_[j], join(expected)));
      }
    }
  }

  void parse_rows() {
    const std::size_t d = columns_.size();
    // Every data row ends a line, so the number of line breaks left (+1 for a last line without
    // one) bounds the row count: one allocation, no regrowth.
    const std::size_t rest = text_.size() - std::min(pos_, text_.size());
    const std::size_t bound =
        static_cast<std::size_t>(
            std::count(text_.end() - static_cast<std::ptrdiff_t>(rest), text_.end(), '\n')) +
        1;
    x_.resize(static_cast<Eigen::Index>(bound), static_cast<Eigen::Index>(d));
    std::size_t n = 0;
    std::string_view line;
    while (next_line(line)) {
      // Fast classification: most lines start with a digit or a sign.
      const std::string_view t = trim(line);
      if (t.empty() || t.front() == '#') continue;
      parse_row(line, n);
      ++n;
    }
    if (n == 0) {
      throw DataError(fmt::format(
          "{}: the header at line {} is followed by no data rows, expected at least one row of "
          "{} number{}",
          source_, header_line_, d, d == 1 ? "" : "s"));
    }
    if (n < bound) {
      Mat trimmed = x_.topRows(static_cast<Eigen::Index>(n));
      x_.swap(trimmed);
    }
  }

  void parse_row(std::string_view line, std::size_t row) {
    const std::size_t d = columns_.size();
    const char* p = line.data();
    const char* const end = p + line.size();
    const Eigen::Index r = static_cast<Eigen::Index>(row);
    for (std::size_t j = 0; j < d; ++j) {
      while (p < end && is_blank_char(*p)) ++p;
      const char* const cell = p;
      double value = 0.0;
      std::errc ec{};
      const char* stop = parse_number(p, end, value, ec);
      if (stop == nullptr) bad_cell(line, cell, j);
      p = stop;
      while (p < end && is_blank_char(*p)) ++p;
      if (p < end && *p != ',') bad_cell(line, cell, j);  // e.g. "1.5abc" or "0x10"
      if (ec == std::errc::result_out_of_range) out_of_range(line, cell, j);
      if (!std::isfinite(value)) non_finite(line, cell, j);
      x_(r, static_cast<Eigen::Index>(j)) = value;
      if (j + 1 < d) {
        if (p == end) ragged(line, j + 1);
        ++p;  // the comma
      } else if (p != end) {
        ragged(line, d);
      }
    }
  }

  static std::string_view cell_text(std::string_view line, const char* cell) {
    const std::string_view rest(cell, static_cast<std::size_t>(line.data() + line.size() - cell));
    return trim(rest.substr(0, rest.find(',')));
  }

  [[noreturn]] void bad_cell(std::string_view line, const char* cell, std::size_t j) const {
    const std::string_view text = cell_text(line, cell);
    if (text.empty()) {
      throw DataError(fmt::format("{}: the cell is empty, expected a number", where(line_no_, j)));
    }
    std::string hint;
    if (text.find_first_of(";\t") != std::string_view::npos) {
      hint = " (cells must be separated by commas, not ';' or tabs)";
    }
    throw DataError(fmt::format("{}: expected a number, found {}{}", where(line_no_, j),
                                quote_cell(text), hint));
  }

  [[noreturn]] void out_of_range(std::string_view line, const char* cell, std::size_t j) const {
    throw DataError(fmt::format(
        "{}: the number {} is outside the range of a double (magnitudes from about 4.9e-324 to "
        "1.8e308, or 0), expected a finite number",
        where(line_no_, j), quote_cell(cell_text(line, cell))));
  }

  [[noreturn]] void non_finite(std::string_view line, const char* cell, std::size_t j) const {
    throw DataError(fmt::format(
        "{}: non-finite value {} is refused, expected a finite number (NaN and infinities "
        "would break clipping and the privacy guarantee; remove or impute such rows first)",
        where(line_no_, j), quote_cell(cell_text(line, cell))));
  }

  // `column`: the first missing column (too few cells) or d (too many).
  [[noreturn]] void ragged(std::string_view line, std::size_t column) const {
    const std::size_t found =
        static_cast<std::size_t>(std::count(line.begin(), line.end(), ',')) + 1;
    const std::size_t d = columns_.size();
    std::string hint;
    if (found == d + 1 && trim(line).ends_with(',')) hint = " (a trailing comma?)";
    throw DataError(fmt::format(
        "{}: the row has {} cell{}, expected {} (as many as the header at line {} names){}",
        where(line_no_, column), found, found == 1 ? "" : "s", d, header_line_, hint));
  }

  std::string_view text_;
  const std::string& source_;
  const CsvOptions& options_;
  std::size_t pos_ = 0;
  std::size_t line_no_ = 0;
  std::size_t header_line_ = 0;
  std::vector<std::string> columns_;
  Mat x_;
};

}  // namespace

Dataset parse_csv(std::string_view text, const std::string& source, const CsvOptions& options) {
  return CsvParser(text, source, options).parse();
}

Dataset load_csv(const std::filesystem::path& path, const CsvOptions& options) {
  const std::string bytes = read_file_bytes(path);
  return parse_csv(bytes, path.string(), options);
}

}  // namespace dpmcmc
