// A dataset held in memory: n rows (records) × d columns (variables), contiguous doubles.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/types.hpp"

namespace dpmcmc {

struct Dataset {
  // n × d, column-major (each variable contiguous over the rows; see core/types.hpp).
  Mat x;
  // One name per column; size() == x.cols().
  std::vector<std::string> columns;
  // Where the rows came from (a file path, "simulated", ...), for messages and the run report;
  // empty when unknown. (The explicit initialiser keeps Dataset{x, columns} free of
  // -Wmissing-field-initializers.)
  std::string source{};

  std::size_t rows() const { return static_cast<std::size_t>(x.rows()); }
  std::size_t cols() const { return static_cast<std::size_t>(x.cols()); }
  // Rows [begin, begin + count) as a view.
  RowBlock block(std::size_t begin, std::size_t count) const {
    return x.middleRows(static_cast<Eigen::Index>(begin), static_cast<Eigen::Index>(count));
  }
  // Index of the column named `name`, if there is one.
  std::optional<std::size_t> column_index(std::string_view name) const {
    for (std::size_t j = 0; j < columns.size(); ++j) {
      if (columns[j] == name) return j;
    }
    return std::nullopt;
  }
};

}  // namespace dpmcmc
