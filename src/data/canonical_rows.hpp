// The identity of a private dataset for the budget ledger (ledger/ledger.hpp): a content hash of
// its records that does not change when the same records are written differently. A curator who
// shuffles the rows, reorders the columns or writes 1.0 as 1 has the same dataset, and must not
// get a fresh budget for it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

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

}  // namespace dpmcmc
