#include "data/csv_writer.hpp"

#include <charconv>
#include <cmath>
#include <iterator>
#include <map>
#include <string_view>

#include <fmt/format.h>

#include "core/error.hpp"
#include "data/atomic_file.hpp"

namespace dpmcmc {
namespace {

std::string describe(const Dataset& data) {
  return data.source.empty() ? std::string("dataset") : "dataset from '" + data.source + "'";
}

bool looks_like_number(std::string_view name) {
  double value = 0.0;
  if (!name.empty() && name.front() == '+') name.remove_prefix(1);
  const auto result = std::from_chars(name.data(), name.data() + name.size(), value);
  return result.ec != std::errc::invalid_argument && result.ptr == name.data() + name.size();
}

// Everything load_csv would not read back as the same header is refused here, so that
// write-then-load is the identity.
void check_writable(const Dataset& data) {
  if (data.columns.size() != data.cols()) {
    throw DataError(fmt::format("{} has {} column names for {} columns", describe(data),
                                data.columns.size(), data.cols()));
  }
  std::map<std::string_view, std::size_t> seen;
  for (std::size_t j = 0; j < data.columns.size(); ++j) {
    const std::string& name = data.columns[j];
    std::string problem;
    if (name.empty()) {
      problem = "is empty";
    } else if (name.find_first_of(",\n\r\"") != std::string::npos) {
      problem = "contains a comma, a quote or a line break";
    } else if (name.front() == '#') {
      problem = "starts with '#' (the line would read as a comment)";
    } else if (name.front() == ' ' || name.front() == '\t' || name.back() == ' ' ||
               name.back() == '\t') {
      problem = "has leading or trailing blanks";
    } else if (looks_like_number(name)) {
      problem = "is a number (the header would read as a data row)";
    } else if (const auto [it, inserted] = seen.emplace(name, j); !inserted) {
      problem = fmt::format("duplicates column {}", it->second + 1);
    }
    if (!problem.empty()) {
      throw DataError(fmt::format("{}: column {} name '{}' {}; cannot write it as a CSV header",
                                  describe(data), j + 1, name, problem));
    }
  }
  if (!data.x.allFinite()) {
    for (Eigen::Index r = 0; r < data.x.rows(); ++r) {
      for (Eigen::Index j = 0; j < data.x.cols(); ++j) {
        if (!std::isfinite(data.x(r, j))) {
          throw DataError(fmt::format(
              "{}: row {}, column {} ('{}') holds {}, expected a finite number (a CSV dataset "
              "holds finite values only)",
              describe(data), r + 1, j + 1, data.columns[static_cast<std::size_t>(j)],
              data.x(r, j)));
        }
      }
    }
  }
}

// Appends the CSV text to `out`, calling `drain(out)` whenever it holds more than ~1 MiB.
template <class Drain>
void emit(const Dataset& data, fmt::memory_buffer& out, Drain&& drain) {
  constexpr std::size_t kChunk = 1 << 20;
  auto it = std::back_inserter(out);
  fmt::format_to(it, "{}\n", fmt::join(data.columns, ","));
  const Eigen::Index n = data.x.rows();
  const Eigen::Index d = data.x.cols();
  for (Eigen::Index r = 0; r < n; ++r) {
    for (Eigen::Index j = 0; j < d; ++j) {
      if (j > 0) out.push_back(',');
      fmt::format_to(it, "{}", data.x(r, j));
    }
    out.push_back('\n');
    if (out.size() > kChunk) drain(out);
  }
}

}  // namespace

std::string format_csv(const Dataset& data) {
  check_writable(data);
  fmt::memory_buffer out;
  emit(data, out, [](fmt::memory_buffer&) {});
  return fmt::to_string(out);
}

void write_csv(const Dataset& data, const std::filesystem::path& path) {
  check_writable(data);
  AtomicFile file(path);
  fmt::memory_buffer out;
  auto drain = [&file](fmt::memory_buffer& buffer) {
    file.write(std::string_view(buffer.data(), buffer.size()));
    buffer.clear();
  };
  emit(data, out, drain);
  drain(out);
  file.commit();
}

}  // namespace dpmcmc
