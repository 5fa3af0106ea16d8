#include "run/kept_draws.hpp"

#include <algorithm>
#include <vector>

namespace dpmcmc {

KeptDraws kept_draws(RunResult& run, std::span<const std::string> chain_labels) {
  std::vector<Mat> chains;
  std::vector<std::size_t> kept_from;
  std::vector<std::string> labels;
  // Reserved first, so that nothing after a move can fail to allocate.
  chains.reserve(run.chains.size());
  kept_from.reserve(run.chains.size());
  labels.reserve(run.chains.size());
  // Whatever happens below, the draws go back to the run.
  struct Restore {
    RunResult& run;
    std::vector<Mat>& chains;
    const std::vector<std::size_t>& kept_from;
    ~Restore() {
      for (std::size_t i = 0; i < chains.size(); ++i) {
        run.chains[kept_from[i]].draws = std::move(chains[i]);
      }
    }
  } restore{run, chains, kept_from};
  for (std::size_t c = 0; c < run.chains.size(); ++c) {
    if (run.chains[c].draws.rows() > 0) {
      if (c < chain_labels.size()) labels.push_back(chain_labels[c]);
      kept_from.push_back(c);
      chains.push_back(std::move(run.chains[c].draws));
    }
  }

  Eigen::Index shortest = 0;
  if (!chains.empty()) {
    shortest = chains.front().rows();
    for (const auto& m : chains) shortest = std::min(shortest, m.rows());
  }
  KeptDraws out;
  if (shortest >= 4) {
    if (std::all_of(chains.begin(), chains.end(),
                    [&](const Mat& m) { return m.rows() == shortest; })) {
      out.summary = summarize(run.columns, chains, labels);
    } else {
      std::vector<Mat> cut;
      for (const auto& m : chains) cut.push_back(m.topRows(shortest));
      out.summary = summarize(run.columns, cut, labels);
    }
  }
  const auto dim = static_cast<Eigen::Index>(run.columns.size()) - run.first_param_column;
  out.pooled.resize(shortest * static_cast<Eigen::Index>(chains.size()), dim);
  for (std::size_t i = 0; i < chains.size(); ++i) {
    out.pooled.middleRows(static_cast<Eigen::Index>(i) * shortest, shortest) =
        chains[i].topRows(shortest).rightCols(dim);
  }
  return out;
}

}  // namespace dpmcmc
