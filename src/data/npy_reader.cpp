#include "data/npy_reader.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace dpmcmc {
namespace {

// '<f8' is read byte for byte into doubles.
static_assert(std::endian::native == std::endian::little, ".npy reader assumes little-endian");

struct Closer {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, Closer>;

struct NpyHeader {
  bool fortran_order = false;
  std::vector<std::size_t> shape;
  std::size_t data_offset = 0;
};

[[noreturn]] void bad(const std::filesystem::path& path, const std::string& what) {
  throw DataError(
      fmt::format("{}: not a float64 .npy array as numpy.save writes it: {}", path.string(), what));
}

void read_exactly(std::FILE* f, void* out, std::size_t bytes, const std::filesystem::path& path,
                  const char* what) {
  if (std::fread(out, 1, bytes, f) != bytes) {
    if (std::ferror(f))
      throw NoInputError(
          fmt::format("cannot read input file '{}': {}", path.string(), std::strerror(errno)));
    bad(path, fmt::format("the file ends inside the {}", what));
  }
}

// The value of `key` in numpy's header dict ({'descr': '<f8', 'fortran_order': False, 'shape':
// (3, 2), }), as the text up to the next top-level comma or closing brace.
std::string_view dict_value(std::string_view dict, std::string_view key,
                            const std::filesystem::path& path) {
  std::size_t at = std::string_view::npos;
  for (const char quote : {'\'', '"'}) {
    std::string quoted;
    quoted.reserve(key.size() + 2);
    quoted.push_back(quote);
    quoted.append(key);
    quoted.push_back(quote);
    at = dict.find(quoted);
    if (at != std::string_view::npos) {
      at += quoted.size();
      break;
    }
  }
  if (at == std::string_view::npos) bad(path, fmt::format("the header has no '{}'", key));
  at = dict.find(':', at);
  if (at == std::string_view::npos) bad(path, fmt::format("no value for '{}' in the header", key));
  std::size_t end = at + 1;
  int depth = 0;
  for (; end < dict.size(); ++end) {
    const char c = dict[end];
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (depth == 0 && (c == ',' || c == '}')) break;
  }
  std::string_view v = dict.substr(at + 1, end - at - 1);
  while (!v.empty() && std::isspace(static_cast<unsigned char>(v.front()))) v.remove_prefix(1);
  while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.remove_suffix(1);
  return v;
}

std::vector<std::size_t> parse_shape(std::string_view v, const std::filesystem::path& path) {
  if (v.size() < 2 || v.front() != '(' || v.back() != ')')
    bad(path, fmt::format("shape {} is not a tuple", v));
  std::vector<std::size_t> shape;
  std::string_view rest = v.substr(1, v.size() - 2);
  while (!rest.empty()) {
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == ',')) rest.remove_prefix(1);
    if (rest.empty()) break;
    std::size_t len = 0;
    while (len < rest.size() && std::isdigit(static_cast<unsigned char>(rest[len]))) ++len;
    if (len == 0 || len > 18) bad(path, fmt::format("shape {} is not a tuple of sizes", v));
    shape.push_back(static_cast<std::size_t>(std::stoull(std::string(rest.substr(0, len)))));
    rest.remove_prefix(len);
  }
  return shape;
}

NpyHeader read_header(std::FILE* f, const std::filesystem::path& path) {
  unsigned char start[8];
  read_exactly(f, start, sizeof start, path, "magic string");
  if (std::memcmp(start, "\x93NUMPY", 6) != 0) bad(path, "it does not start with \\x93NUMPY");
  const int major = start[6];
  if (major < 1 || major > 3)
    bad(path, fmt::format("format version {}.{} (known: 1.0, 2.0, 3.0)", major, start[7]));
  std::size_t length = 0;
  std::size_t prefix = 8;
  if (major == 1) {
    unsigned char b[2];
    read_exactly(f, b, 2, path, "header length");
    length = b[0] | (std::size_t{b[1]} << 8);
    prefix += 2;
  } else {
    unsigned char b[4];
    read_exactly(f, b, 4, path, "header length");
    length =
        b[0] | (std::size_t{b[1]} << 8) | (std::size_t{b[2]} << 16) | (std::size_t{b[3]} << 24);
    prefix += 4;
  }
  if (length > (std::size_t{1} << 20)) bad(path, fmt::format("a header of {} bytes", length));
  std::string dict(length, '\0');
  read_exactly(f, dict.data(), length, path, "header");
  NpyHeader h;
  h.data_offset = prefix + length;
  const std::string_view descr = dict_value(dict, "descr", path);
  if (descr != "'<f8'" && descr != "\"<f8\"") {
    bad(path, fmt::format("dtype {} (expected float64, '<f8'; convert with np.save(path, "
                          "np.asarray(x, dtype='<f8')))",
                          descr));
  }
  const std::string_view order = dict_value(dict, "fortran_order", path);
  if (order != "True" && order != "False")
    bad(path, fmt::format("fortran_order {} (expected True or False)", order));
  h.fortran_order = order == "True";
  h.shape = parse_shape(dict_value(dict, "shape", path), path);
  if (h.shape.empty() || h.shape.size() > 2)
    bad(path, fmt::format("an array of rank {} (expected (n, d) or (n,))", h.shape.size()));
  if (h.shape.size() == 1) h.shape.push_back(1);
  if (h.shape[0] == 0 || h.shape[1] == 0)
    bad(path, fmt::format("shape ({}, {}) has no values", h.shape[0], h.shape[1]));
  return h;
}

std::vector<std::string> column_names(std::size_t d, const CsvOptions& options,
                                      const std::filesystem::path& path) {
  if (options.expected_columns.empty()) {
    std::vector<std::string> names;
    for (std::size_t j = 0; j < d; ++j) names.push_back(fmt::format("x{}", j + 1));
    return names;
  }
  if (options.expected_columns.size() != d) {
    throw DataError(
        fmt::format("{}: the array has {} column(s), but model '{}' expects {} ({}), in that order",
                    path.string(), d, options.model_name, options.expected_columns.size(),
                    fmt::join(options.expected_columns, ", ")));
  }
  return options.expected_columns;
}

void check_finite(const Dataset& data, const std::filesystem::path& path) {
  for (Eigen::Index j = 0; j < data.x.cols(); ++j) {
    const double* col = data.x.col(j).data();
    for (Eigen::Index i = 0; i < data.x.rows(); ++i) {
      if (!std::isfinite(col[i])) {
        throw DataError(fmt::format(
            "{}: row {} (0-based array index {}), column {} ('{}'): {} is not a finite number "
            "(the samplers' clipping and the privacy guarantees assume finite data)",
            path.string(), i + 1, i, j + 1, data.columns[static_cast<std::size_t>(j)], col[i]));
      }
    }
  }
}

}  // namespace

bool is_npy_file(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext == ".npy";
}

Dataset load_npy(const std::filesystem::path& path, const CsvOptions& options) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw NoInputError(fmt::format("input file '{}' does not exist", path.string()));
  if (!std::filesystem::is_regular_file(path, ec))
    throw NoInputError(fmt::format(
        "input file '{}' is not a regular file (a .npy array is read by its size, so pipes and "
        "devices are refused)",
        path.string()));
  File file(std::fopen(path.c_str(), "rb"));
  if (!file)
    throw NoInputError(
        fmt::format("cannot open input file '{}': {}", path.string(), std::strerror(errno)));
  const NpyHeader h = read_header(file.get(), path);
  const std::size_t n = h.shape[0], d = h.shape[1];
  // The header's claim is checked against the file's size before anything is allocated.
  const auto size = std::filesystem::file_size(path, ec);
  if (ec)
    throw NoInputError(
        fmt::format("cannot read the size of input file '{}': {}", path.string(), ec.message()));
  if (n > (std::numeric_limits<std::size_t>::max() - h.data_offset) / 8 / d)
    bad(path, fmt::format("shape ({}, {}) is too large for any file", n, d));
  const std::size_t expected = h.data_offset + n * d * 8;
  if (size != expected) {
    bad(path, fmt::format("the header promises {} x {} values ({} bytes in all) but the file has "
                          "{} bytes ({})",
                          n, d, expected, size, size < expected ? "truncated" : "trailing data"));
  }
  Dataset data;
  data.columns = column_names(d, options, path);
  data.source = path.string();
  data.x.resize(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(d));
  if (h.fortran_order || d == 1) {
    // Column-major on disk as in memory: one read.
    read_exactly(file.get(), data.x.data(), n * d * 8, path, "data");
  } else {
    // Row-major on disk: blocks of rows, scattered into the columns.
    constexpr std::size_t kBlockBytes = std::size_t{1} << 20;
    const std::size_t block_rows = std::max<std::size_t>(1, kBlockBytes / (8 * d));
    std::vector<double> block(block_rows * d);
    for (std::size_t first = 0; first < n; first += block_rows) {
      const std::size_t rows = std::min(block_rows, n - first);
      read_exactly(file.get(), block.data(), rows * d * 8, path, "data");
      for (std::size_t j = 0; j < d; ++j) {
        double* col = data.x.col(static_cast<Eigen::Index>(j)).data() + first;
        for (std::size_t i = 0; i < rows; ++i) col[i] = block[i * d + j];
      }
    }
  }
  check_finite(data, path);
  return data;
}

}  // namespace dpmcmc
