// The tidy results table of an experiment (OUT/results.csv): one row per finished cell of a
// sampling experiment, one row per accountant and ε of an accounting experiment. The runner
// appends rows as cells finish and reads them back to resume; the report reads them to aggregate.
//
// Format: a header line with the column names of results_columns() (any order when reading),
// then one line per row. Cells hold a number, a bare word, or NA for "not available"; text
// fields never contain a comma, quote or line break (sanitize_field replaces them), so no
// quoting is needed and a line is a row. Numbers are written in the shortest form that reads
// back to the same double, so a rewritten CSV is identical to the original.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dpmcmc {

// The columns, in the order the runner writes them.
const std::vector<std::string>& results_columns();

// One row: column name → cell text ("NA" when absent).
struct ResultRow {
  std::map<std::string, std::string> cells;
  std::size_t line = 0;  // 1-based line in the file it was read from (0: not read from a file)

  // The cell text; "NA" for a column never set.
  const std::string& text(const std::string& column) const;
  // The cell as a number; nullopt for NA. DataError naming `file`, the line and the column for
  // anything else that is not a finite number.
  std::optional<double> number(const std::string& column, const std::string& file) const;
  void set(const std::string& column, std::string value);
  void set(const std::string& column, std::optional<double> value);
  void set_integer(const std::string& column, std::uint64_t value);
  // The identity of the cell the row belongs to: kind/model/sampler/epsilon/repeat, or
  // kind/model/sampler/PARAM=VALUE/epsilon/repeat for a swept cell (sweep_param not NA).
  std::string cell_key() const;
};

// A double in the shortest text that reads back to the same value; "NA" for NaN or ±∞.
std::string format_number(double value);
// Free text made safe for a cell: commas → ';', quotes → '\'', line breaks → ' '; empty → NA.
std::string sanitize_field(const std::string& text);
// The CSV line of a row (columns in results_columns() order), with a final newline.
std::string format_row(const ResultRow& row);
// The header line, with a final newline.
std::string results_header();

struct ResultsFile {
  std::vector<ResultRow> rows;
  std::vector<std::string> lines;    // each row's text as read (without newline), for rewriting
  bool truncated_last_line = false;  // the last line had no newline (an interrupted write)
};

// Reads and validates a results CSV: the header must hold every column of results_columns()
// (except those added later, sweep_param, sweep_value and sym_kl, which read as NA when absent) and
// nothing else; every row as many cells as the header. Numeric columns must be numbers or
// NA. A last line without a final newline (a write cut short) is dropped and reported in
// truncated_last_line. NoInputError for a missing file; DataError naming the file, line and
// column otherwise.
ResultsFile read_results(const std::filesystem::path& file);

}  // namespace dpmcmc
