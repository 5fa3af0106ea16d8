// A dataset held in memory: n rows (records) × d columns (variables), contiguous doubles.
#pragma once

#include <string>
#include <vector>

#include "core/types.hpp"

namespace dpmcmc {

struct Dataset {
  // n × d, column-major (each variable contiguous over the rows; see core/types.hpp).
  Mat x;
  // One name per column; size() == x.cols().
  std::vector<std::string> columns;

  std::size_t rows() const { return static_cast<std::size_t>(x.rows()); }
  std::size_t cols() const { return static_cast<std::size_t>(x.cols()); }
  // Rows [begin, begin + count) as a view.
  RowBlock block(std::size_t begin, std::size_t count) const {
    return x.middleRows(static_cast<Eigen::Index>(begin), static_cast<Eigen::Index>(count));
  }
};

}  // namespace dpmcmc
