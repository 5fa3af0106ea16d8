#include "diagnostics/rhat.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "diagnostics/rank_normalize.hpp"

namespace dpmcmc {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool should_return_nan(const ChainDraws& x) {
  return x.size() == 0 || !all_finite(x) || is_constant(x);
}

}  // namespace

double rhat_classic(const ChainDraws& x) {
  const Eigen::Index n = x.rows(), m = x.cols();
  // One draw per chain has no within-chain variance; one chain has no between-chain variance.
  if (n < 2 || m < 2 || should_return_nan(x)) return kNaN;
  // Chains that never moved: W = 0 exactly, so R̂ = ∞. Checked before the variances because
  // the rounded chain means would leave W ≈ 1e-33 and a meaningless finite R̂ of ~1e15.
  bool every_chain_constant = true;
  for (Eigen::Index c = 0; c < m && every_chain_constant; ++c) {
    every_chain_constant = (x.col(c).array() == x(0, c)).all();
  }
  if (every_chain_constant) return std::numeric_limits<double>::infinity();
  const double nd = static_cast<double>(n);
  const Vec chain_mean = x.colwise().mean().transpose();
  double var_within = 0.0;
  for (Eigen::Index c = 0; c < m; ++c) {
    var_within += (x.col(c).array() - chain_mean(c)).square().sum() / (nd - 1.0);
  }
  var_within /= static_cast<double>(m);
  const double var_between =
      nd * (chain_mean.array() - chain_mean.mean()).square().sum() / static_cast<double>(m - 1);
  return std::sqrt((var_between / var_within + nd - 1.0) / nd);
}

double rhat_basic(const ChainDraws& draws, bool split) {
  return split ? rhat_classic(split_chains(draws)) : rhat_classic(draws);
}

double rhat_bulk(const ChainDraws& draws) {
  if (should_return_nan(draws)) return kNaN;
  return rhat_classic(z_scale(split_chains(draws)));
}

double rhat_tail(const ChainDraws& draws) {
  if (should_return_nan(draws)) return kNaN;
  return rhat_classic(z_scale(split_chains(fold_draws(draws))));
}

double rhat(const ChainDraws& draws) {
  const double bulk = rhat_bulk(draws), tail = rhat_tail(draws);
  if (std::isnan(bulk) || std::isnan(tail)) return kNaN;
  return std::max(bulk, tail);
}

}  // namespace dpmcmc
