#include "diagnostics/chains.hpp"

#include <fmt/core.h>

#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "diagnostics/quantile.hpp"

namespace dpmcmc {

namespace {

std::string chain_label(std::span<const std::string> labels, std::size_t c) {
  if (c < labels.size()) return fmt::format("chain {} ({})", c + 1, labels[c]);
  return fmt::format("chain {}", c + 1);
}

}  // namespace

Mat stack_chains(std::span<const Vec> chains, std::span<const std::string> labels) {
  if (chains.empty()) throw DataError("diagnostics: no chains given (need at least one chain)");
  const Eigen::Index n = chains[0].size();
  for (std::size_t c = 0; c < chains.size(); ++c) {
    if (chains[c].size() == 0) {
      throw DataError(fmt::format("diagnostics: {} has no draws", chain_label(labels, c)));
    }
    if (chains[c].size() != n) {
      throw DataError(fmt::format(
          "diagnostics: {} has {} draws but {} has {}; all chains must have the same number of "
          "draws (as in the posterior package); drop or thin draws so that they match",
          chain_label(labels, c), chains[c].size(), chain_label(labels, 0), n));
    }
  }
  Mat out(n, static_cast<Eigen::Index>(chains.size()));
  for (std::size_t c = 0; c < chains.size(); ++c) out.col(static_cast<Eigen::Index>(c)) = chains[c];
  return out;
}

Mat split_chains(const ChainDraws& draws) {
  const Eigen::Index n = draws.rows(), m = draws.cols();
  if (n <= 1) return draws;
  const Eigen::Index half = n / 2;       // ⌊N/2⌋ draws per half
  const Eigen::Index second = n - half;  // first index of the second half is ⌈N/2⌉
  Mat out(half, 2 * m);
  out.leftCols(m) = draws.topRows(half);
  out.rightCols(m) = draws.middleRows(second, half);
  return out;
}

bool all_finite(const ChainDraws& draws) {
  return draws.allFinite();
}

bool is_constant(const ChainDraws& draws) {
  if (draws.size() == 0) return true;
  return draws.maxCoeff() - draws.minCoeff() < std::numeric_limits<double>::epsilon();
}

Mat fold_draws(const ChainDraws& draws) {
  const double med = quantile(draws, 0.5);
  return (draws.array() - med).abs().matrix();
}

}  // namespace dpmcmc
