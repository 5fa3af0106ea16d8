// Test helper shared by the runner and CLI experiment tests: an experiment's results.csv with the
// wall_seconds column blanked, the only column allowed to differ between two runs of one spec.
#pragma once

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

namespace dpmcmc::test {

inline std::string without_wall_seconds(const std::string& csv) {
  std::istringstream in(csv);
  std::string line, out;
  std::size_t col = std::string::npos;
  bool header = true;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream ls(line);
    for (std::string c; std::getline(ls, c, ',');) cells.push_back(c);
    if (header) {
      col = static_cast<std::size_t>(std::find(cells.begin(), cells.end(), "wall_seconds") -
                                     cells.begin());
      header = false;
    }
    if (col < cells.size())
      cells[col].assign(1, '*');  // not = "*": GCC 12 -Wrestrict false positive
    for (const auto& c : cells) out += c + ",";
    out += "\n";
  }
  return out;
}

}  // namespace dpmcmc::test
