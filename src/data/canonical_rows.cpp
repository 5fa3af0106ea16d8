#include "data/canonical_rows.hpp"

#include <fmt/format.h>
#include <sodium.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "core/error.hpp"
#include "data/csv_records.hpp"
#include "data/file_bytes.hpp"
#include "data/npy_reader.hpp"

namespace dpmcmc {
namespace {

// The shortest round-trip text of a cell that is a finite number ("1.0", "1" and "1e0" → "1");
// other cells (labels, NA, empty) as they are.
std::string canonical_cell(const std::string& cell) {
  double value = 0.0;
  // from_chars reads no leading '+', which the CSV loader accepts: "+1" is 1.
  const char* begin = cell.data() + (cell.size() > 1 && cell[0] == '+' ? 1 : 0);
  const char* end = cell.data() + cell.size();
  const auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec == std::errc() && ptr == end && begin != end && std::isfinite(value)) {
    return fmt::format("{}", value);
  }
  return cell;
}

class Hasher {
 public:
  Hasher() {
    if (sodium_init() < 0) throw SoftwareError("libsodium failed to initialise");
    crypto_generichash_init(&state_, nullptr, 0, crypto_generichash_BYTES);
  }
  void word(std::uint64_t w) {
    unsigned char bytes[8];
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<unsigned char>(w >> (8 * i));
    crypto_generichash_update(&state_, bytes, sizeof bytes);
  }
  void text(std::string_view s) {
    word(s.size());
    crypto_generichash_update(&state_, reinterpret_cast<const unsigned char*>(s.data()), s.size());
  }
  std::string hex() {
    unsigned char out[crypto_generichash_BYTES];
    crypto_generichash_final(&state_, out, sizeof out);
    char buffer[2 * sizeof out + 1];
    sodium_bin2hex(buffer, sizeof buffer, out, sizeof out);
    return buffer;
  }

 private:
  crypto_generichash_state state_;
};

// The text without comment lines ('#' first) after the header: the preset loader
// (data/csv_loader.hpp) skips them anywhere, the schema reader only before the header. Dropping
// them here can only merge two files into one dataset (one budget), never split one.
std::string without_comment_lines(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool header_seen = false;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    end = end == std::string_view::npos ? text.size() : end + 1;
    const std::string_view line = text.substr(pos, end - pos);
    const bool blank = line.find_first_not_of(" \t\r\n") == std::string_view::npos;
    const bool comment = !line.empty() && line[0] == '#';
    if (!(header_seen && comment)) out.append(line);
    if (!blank && !comment) header_seen = true;
    pos = end;
  }
  return out;
}

// The columns' order by name.
std::vector<std::size_t> by_name(const std::vector<std::string>& header) {
  std::vector<std::size_t> order(header.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(),
            [&header](std::size_t a, std::size_t b) { return header[a] < header[b]; });
  return order;
}

// A row's canonical cells joined by '\0': std::string compares bytes as unsigned char, so with
// '\0' below every other byte the joined rows sort exactly as the vectors of their cells would,
// and the hash (of the cells, length-prefixed, rows in that order) is the one the ledger has
// always used, at one string per row instead of a vector of strings.
void append_cell(std::string& row, const std::string& cell, bool first) {
  if (!first) row.push_back('\0');
  row += cell;
}

// The hash of a table from its column names (in `order`) and its joined rows, sorted here: the
// same multiset of rows gives the same hash in any order.
CanonicalRows hash_table(const std::vector<std::string>& header,
                         const std::vector<std::size_t>& order, std::vector<std::string> rows) {
  std::sort(rows.begin(), rows.end());
  Hasher h;
  h.word(rows.size());
  h.word(order.size());
  for (std::size_t j : order) h.text(header[j]);
  for (const auto& row : rows) {
    std::size_t start = 0;
    for (std::size_t k = 0; k < order.size(); ++k) {
      const std::size_t end = k + 1 == order.size() ? row.size() : row.find('\0', start);
      h.text(std::string_view(row).substr(start, end - start));
      start = end + 1;
    }
  }
  return {h.hex(), rows.size(), order.size()};
}

}  // namespace

CanonicalRows canonical_rows_hash(std::string_view text, const std::string& source) {
  const std::string kept = without_comment_lines(text);
  CsvRecords records(kept, source);
  const auto& header = records.header();
  const std::vector<std::size_t> order = by_name(header);
  std::vector<std::string> rows;
  std::vector<std::string> cells;
  while (records.next(cells)) {
    std::string row;
    for (std::size_t j : order) {
      const bool first = j == order.front();
      // A cell holding '\0' would break the join: such a table keeps its cells apart by
      // replacing the byte (the records are then still told apart from tables without it).
      std::string cell = canonical_cell(cells[j]);
      std::replace(cell.begin(), cell.end(), '\0', '\x01');
      append_cell(row, cell, first);
    }
    rows.push_back(std::move(row));
  }
  return hash_table(header, order, std::move(rows));
}

CanonicalRows canonical_rows_hash(const Dataset& data) {
  const std::vector<std::size_t> order = by_name(data.columns);
  std::vector<std::string> rows(data.rows());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    for (std::size_t j : order)
      append_cell(
          rows[i],
          fmt::format("{}", data.x(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j))),
          j == order.front());
  }
  return hash_table(data.columns, order, std::move(rows));
}

CanonicalRows canonical_file_hash(const std::filesystem::path& path,
                                  const std::vector<std::string>& npy_columns) {
  if (is_npy_file(path)) {
    if (npy_columns.empty())
      throw UsageError(fmt::format(
          "{}: a .npy array has no column names; give --model PRESET (its data columns name the "
          "array's columns, as `sample` reads it)",
          path.string()));
    CsvOptions names;
    names.expected_columns = npy_columns;
    names.model_name = "the ledger";
    return canonical_rows_hash(load_npy(path, names));
  }
  return canonical_rows_hash(read_file_bytes(path), path.string());
}

}  // namespace dpmcmc
