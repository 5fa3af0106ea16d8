#include "data/csv_records.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.hpp"

namespace dpmcmc {
namespace {

bool is_blank(char c) {
  return c == ' ' || c == '\t';
}

}  // namespace

CsvRecords::CsvRecords(std::string_view text, std::string source)
    : text_(text), source_(std::move(source)) {
  // A UTF-8 byte-order mark (spreadsheet exports) is not part of the first column's name.
  if (text_.substr(0, 3) == "\xEF\xBB\xBF") text_.remove_prefix(3);
  if (!read_record(header_))
    throw DataError(fmt::format("{}: empty file (expected a header)", source_));
  for (std::size_t j = 0; j < header_.size(); ++j) {
    if (header_[j].empty())
      throw DataError(fmt::format("{}, line {}, column {}: empty column name in the header",
                                  source_, record_line_, j + 1));
    const auto first = std::find(header_.begin(), header_.end(), header_[j]);
    if (first != header_.begin() + static_cast<std::ptrdiff_t>(j))
      throw DataError(
          fmt::format("{}, line {}: column '{}' appears twice in the header (columns {} "
                      "and {})",
                      source_, record_line_, header_[j], first - header_.begin() + 1, j + 1));
  }
}

bool CsvRecords::next(std::vector<std::string>& cells) {
  if (!read_record(cells)) return false;
  if (cells.size() != header_.size())
    throw DataError(fmt::format("{}, line {}: {} cells, expected {} (one per header column)",
                                source_, record_line_, cells.size(), header_.size()));
  return true;
}

bool CsvRecords::read_record(std::vector<std::string>& cells) {
  // Before the header, blank and comment lines are skipped. After it a '#' starts a cell like any
  // other character (an id "#12" is data), and a blank line is skipped only when it cannot be a
  // record: with a one-column header it is one record with an empty (missing) cell, which the
  // schema's missing policy then handles instead of n silently shrinking.
  const bool in_header = header_.empty();
  for (;;) {
    if (pos_ >= text_.size()) return false;
    std::size_t p = pos_;
    while (p < text_.size() && is_blank(text_[p])) ++p;
    const bool blank = p >= text_.size() || text_[p] == '\n' || text_[p] == '\r';
    const bool skip = in_header ? blank || text_[p] == '#' : blank && header_.size() > 1;
    if (!skip) break;
    const std::size_t nl = text_.find('\n', p);
    pos_ = nl == std::string_view::npos ? text_.size() : nl + 1;
    ++line_;
  }
  record_line_ = line_;
  cells.clear();
  std::string cell;
  for (;;) {
    cell.clear();
    // Leading blanks of a cell are dropped (quoted or not).
    while (pos_ < text_.size() && is_blank(text_[pos_])) ++pos_;
    if (pos_ < text_.size() && text_[pos_] == '"') {
      ++pos_;
      for (;;) {
        if (pos_ >= text_.size())
          throw DataError(
              fmt::format("{}, line {}: a quoted cell is not closed (a '\"' is missing)", source_,
                          record_line_));
        const char c = text_[pos_++];
        if (c == '"') {
          if (pos_ < text_.size() && text_[pos_] == '"') {
            cell.push_back('"');
            ++pos_;
            continue;
          }
          break;
        }
        if (c == '\n') ++line_;
        cell.push_back(c);
      }
      while (pos_ < text_.size() && is_blank(text_[pos_])) ++pos_;
      if (pos_ < text_.size() && text_[pos_] == '\r') ++pos_;
      if (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != '\n')
        throw DataError(fmt::format("{}, line {}, column {}: text after a closing quote", source_,
                                    line_, cells.size() + 1));
    } else {
      const std::size_t start = pos_;
      while (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != '\n') ++pos_;
      std::string_view raw = text_.substr(start, pos_ - start);
      if (!raw.empty() && raw.back() == '\r' && (pos_ >= text_.size() || text_[pos_] == '\n'))
        raw.remove_suffix(1);
      while (!raw.empty() && is_blank(raw.back())) raw.remove_suffix(1);
      cell.assign(raw);
    }
    cells.push_back(cell);
    if (pos_ >= text_.size()) return true;
    if (text_[pos_++] == '\n') {
      ++line_;
      return true;
    }
  }
}

}  // namespace dpmcmc
