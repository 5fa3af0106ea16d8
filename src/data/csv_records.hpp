// Reading CSV records as text (RFC 4180): the reader behind schema-driven data (data/schema.hpp),
// where cells may be labels ("yes", "north"), missing ("NA", empty) or numbers.
//
// A record is a line of cells separated by commas. A cell may be wrapped in double quotes; inside
// quotes a comma or a line break is part of the cell and "" stands for one quote character.
// Spaces and tabs around an unquoted cell are dropped. "\r\n" line ends and a UTF-8 byte-order
// mark are accepted. Blank lines and lines whose first character is '#' are skipped before the
// header (the first record); after it '#' is data, and a blank line is skipped when the header
// has several columns but is a record with one empty cell when it has one. DataError (65) naming
// file and line for an unterminated quote, text after a closing quote, an empty or duplicate header
// name, or a record with a different number of cells than the header.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace dpmcmc {

class CsvRecords {
 public:
  // `text` must outlive the reader; `source` names it in messages (a file name).
  CsvRecords(std::string_view text, std::string source);

  const std::vector<std::string>& header() const { return header_; }
  // The next record into `cells` (header().size() cells, unquoted); false at the end.
  bool next(std::vector<std::string>& cells);
  // The line on which the record last returned by next() (or the header) starts, 1-based.
  std::size_t line() const { return record_line_; }
  const std::string& source() const { return source_; }

 private:
  // One record's cells, or false at the end of the text.
  bool read_record(std::vector<std::string>& cells);

  std::string_view text_;
  std::string source_;
  std::size_t pos_ = 0;
  std::size_t line_ = 1;         // line of pos_
  std::size_t record_line_ = 0;  // line where the last record started
  std::vector<std::string> header_;
};

}  // namespace dpmcmc
