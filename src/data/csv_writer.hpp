// Writing a Dataset as CSV that load_csv reads back bit for bit: a header row, then one row per
// record, each double in the shortest form that parses back to the same value (fmt's "{}",
// Ryu-like shortest round trip), written atomically (FILE.tmp, then rename) so that an
// interrupted write never leaves a file that looks complete.
#pragma once

#include <filesystem>
#include <string>

#include "data/dataset.hpp"

namespace dpmcmc {

// Writes `data` to `path` (parent directories are created). The old file, if any, is replaced
// only once the new one is complete.
// Throws DataError (65) when the dataset cannot be written faithfully: a column name that is
// empty, duplicated, a number, or holds ',', '"', '#' at its start, a line break or surrounding
// blanks (load_csv would read another header), a non-finite value (load_csv refuses those; the
// message names row and column), or columns.size() != x.cols(). Throws OutputError (73) naming
// the path when the file cannot be written.
void write_csv(const Dataset& data, const std::filesystem::path& path);

// The CSV text write_csv would write.
std::string format_csv(const Dataset& data);

}  // namespace dpmcmc
