#include "diagnostics/rank_normalize.hpp"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <utility>
#include <vector>

namespace dpmcmc {

Mat average_ranks(const ChainDraws& draws) {
  Mat ranks(draws.rows(), draws.cols());
  const Mat x = draws;  // contiguous copy: entry i is x.data()[i]
  // Sorting (value, position) pairs keeps the comparisons in cache; ties keep position order.
  std::vector<std::pair<double, Eigen::Index>> order(static_cast<std::size_t>(x.size()));
  for (Eigen::Index i = 0; i < x.size(); ++i) order[static_cast<std::size_t>(i)] = {x.data()[i], i};
  std::sort(order.begin(), order.end());
  std::size_t i = 0;
  while (i < order.size()) {
    std::size_t j = i + 1;
    while (j < order.size() && order[j].first == order[i].first) ++j;
    // Entries i … j−1 (0-based positions) are tied: ranks i+1 … j, average (i + 1 + j) / 2.
    const double rank = 0.5 * static_cast<double>(i + 1 + j);
    for (std::size_t k = i; k < j; ++k) ranks.data()[order[k].second] = rank;
    i = j;
  }
  return ranks;
}

Mat z_scale(const ChainDraws& draws) {
  constexpr double c = 3.0 / 8.0;
  const double s = static_cast<double>(draws.size());
  const boost::math::normal standard_normal;
  Mat z = average_ranks(draws);
  for (Eigen::Index i = 0; i < z.size(); ++i) {
    z.data()[i] = boost::math::quantile(standard_normal, (z.data()[i] - c) / (s - 2.0 * c + 1.0));
  }
  return z;
}

}  // namespace dpmcmc
