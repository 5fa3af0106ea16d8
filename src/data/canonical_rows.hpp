// The identity of a private dataset for the budget ledger (ledger/ledger.hpp): a content hash of
// its records that does not change when the same records are written differently. A curator who
// shuffles the rows, reorders the columns or writes 1.0 as 1 has the same dataset, and must not
// get a fresh budget for it.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "data/dataset.hpp"

namespace dpmcmc {

struct CanonicalRows {
  std::string hash;  // BLAKE2b-256, hex
  std::size_t rows = 0;
  std::size_t columns = 0;
};

// Hash of the CSV table `text` (data/csv_records.hpp's dialect; `source` names it in errors) in
// canonical form: columns in order of their header names, each cell that reads completely as a
// finite number replaced by the shortest text that reads back to the same double, the rows
// sorted, every name and cell length-prefixed. DataError (65) as CsvRecords raises it.
CanonicalRows canonical_rows_hash(std::string_view text, const std::string& source);

// The same hash of rows held as numbers (every cell finite): equal to the CSV text's hash when
// the text holds the same values under the same column names.
CanonicalRows canonical_rows_hash(const Dataset& data);

// The hash of a data file: CSV text, or a .npy array whose columns are named `npy_columns` (a
// preset's data columns, as `sample` reads the array), so that the same values under the same
// names are one dataset in either format. UsageError for a .npy file without names.
CanonicalRows canonical_file_hash(const std::filesystem::path& path,
                                  const std::vector<std::string>& npy_columns = {});

}  // namespace dpmcmc
