// Reader of Stan CSV files (CmdStan's output format, which dpmcmc also writes;
// docs/architecture.md):
//
//   # key = value            configuration comments before the header, nested by indentation
//   lp__,accept_stat__,theta header line of column names
//   # Adaptation terminated  adaptation comment block (step size, metric) before the draws
//   -6.8,0.99,0.21           one numeric row per saved iteration
//   #  Elapsed Time: …       timing comments after the draws
//
// With save_warmup the warmup rows come before the adaptation block; warmup_rows says how many.
// Cells are parsed with std::from_chars, so "nan", "inf" and "-inf" (which Stan writes for
// non-finite values) are accepted as numbers; anything else that is not a complete number is an
// error. Errors name the file and the 1-based line (and column): NoInputError when the file
// cannot be opened, DataError for a missing or malformed header, a ragged row or a non-numeric
// cell.
#pragma once

#include <cstddef>
#include <filesystem>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/types.hpp"

namespace dpmcmc {

struct StanCsv {
  // Where the data came from (the path, or the name given to parse_stan_csv), for messages.
  std::string source;
  // "# key = value" comment lines before the header. Values are trimmed and lose CmdStan's
  // " (Default)" suffix. Each entry is stored under its plain key (first occurrence wins, e.g.
  // "num_samples", "seed", "file" = the data file) and, when it is nested, also under its dotted
  // path built from the indentation (e.g. "method.sample.num_samples", "output.file").
  std::map<std::string, std::string> config;
  // Column names of the header, in order (surrounding double quotes removed).
  std::vector<std::string> columns;
  // All numeric rows (warmup rows first when saved): rows × columns.
  Mat draws;
  // Number of leading rows of `draws` that are warmup iterations: the rows before the
  // "# Adaptation terminated" block, or, without that block, ⌈num_warmup/thin⌉ when the config
  // says save_warmup is on (capped at the number of rows). 0 otherwise.
  std::size_t warmup_rows = 0;
  // Comment lines after the header, '#' and surrounding blanks removed: the adaptation block
  // (e.g. "Step size = 0.883328") and the rest (timing).
  std::vector<std::string> adaptation;
  std::vector<std::string> trailing_comments;

  // Index of the column called `name`, if any.
  std::optional<std::size_t> column_index(std::string_view name) const;
  // The rows after the warmup rows.
  Mat sampling_draws() const;
};

// Reads a Stan CSV file. Throws NoInputError if it cannot be opened, DataError if malformed.
StanCsv read_stan_csv(const std::filesystem::path& path);

// The sampling draws of the columns `names`, in that order, of several files pooled (rows of the
// first file first): rows × names.size(). DataError naming the file and the column when a file
// lacks one.
Mat pooled_columns(const std::vector<StanCsv>& files, const std::vector<std::string>& names);

// Parses Stan CSV text from a stream; `source` names it in error messages.
StanCsv parse_stan_csv(std::istream& in, const std::string& source);

}  // namespace dpmcmc
