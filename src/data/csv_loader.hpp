// Loading a numeric dataset from CSV (docs/architecture.md: validate every input at the boundary).
//
// Format: the first line that is not a comment is the header naming the columns; every further
// line is one row of numbers separated by commas. Lines whose first non-blank character is '#'
// are comments and blank lines are skipped, anywhere after the header. Spaces and tabs around
// cells are ignored, a header name may be wrapped in double quotes (as R's write.csv does),
// "\r\n" line ends and a UTF-8 byte-order mark are accepted. Numbers are parsed with
// std::from_chars (decimal or scientific notation, an optional leading '+'), which is exact
// (correctly rounded) and locale-independent.
//
// Refused with DataError (65), the message naming the file, line, column (number and name) and
// what was expected: an empty file; a missing header (the first non-comment line is empty, or a
// header cell is a number); an empty or duplicate column name; a ragged row (how many cells were
// found and how many expected); a non-numeric cell (quoted); a non-finite cell (nan, inf: the
// samplers' clipping and the privacy guarantees assume finite data, so such a value is an error,
// never silently kept); a number outside the range of a double; a header without data rows; and,
// when the caller gives the columns its model expects, a header with the wrong number of columns
// or a wrong name (the message names the model and lists the expected columns).
// A file that does not exist or cannot be read gives NoInputError (66).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "data/dataset.hpp"

namespace dpmcmc {

struct CsvOptions {
  // The columns the data must have, in this order (e.g. Model::data_columns()); empty accepts
  // any header.
  std::vector<std::string> expected_columns;
  // The model the columns are for, named in messages ("model 'banana' expects ...").
  std::string model_name;
};

// Loads `path` (decompressed first if its name ends in ".gz"). Dataset::source is set to the path.
Dataset load_csv(const std::filesystem::path& path, const CsvOptions& options = {});

// Parses CSV text held in memory; `source` names it in messages (a file name, "<stdin>", ...).
Dataset parse_csv(std::string_view text, const std::string& source, const CsvOptions& options = {});

}  // namespace dpmcmc
