#include "diagnostics/ess.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "diagnostics/autocovariance.hpp"
#include "diagnostics/quantile.hpp"
#include "diagnostics/rank_normalize.hpp"

namespace dpmcmc {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool should_return_nan(const ChainDraws& x) {
  return !all_finite(x) || is_constant(x);
}

}  // namespace

double ess_geyer(const ChainDraws& x) {
  return ess_geyer(x, GeyerTruncation::posterior);
}

double ess_geyer(const ChainDraws& x, GeyerTruncation truncation) {
  const Eigen::Index n = x.rows(), m = x.cols();
  if (n < 3 || m < 1 || should_return_nan(x)) return kNaN;
  const double nd = static_cast<double>(n);

  // Mean over chains of the autocovariances at every lag.
  Vec acov_mean = Vec::Zero(n);
  Vec chain_mean(m);
  for (Eigen::Index c = 0; c < m; ++c) {
    acov_mean += autocovariance(x.col(c));
    chain_mean(c) = x.col(c).mean();
  }
  acov_mean /= static_cast<double>(m);

  const double mean_var = acov_mean(0) * nd / (nd - 1.0);
  double var_plus = mean_var * (nd - 1.0) / nd;
  if (m > 1) {
    var_plus +=
        (chain_mean.array() - chain_mean.mean()).square().sum() / static_cast<double>(m - 1);
  }
  auto rho = [&](Eigen::Index t) { return 1.0 - (mean_var - acov_mean(t)) / var_plus; };

  // Geyer's initial positive sequence over pairs (ρ̂_t, ρ̂_{t+1}), t even. As in posterior the
  // loop leaves the last lags alone and keeps the first pair whose sum is negative out of the
  // sum (its even member may re-enter as the "improved" end term below).
  std::vector<double> rho_hat(static_cast<std::size_t>(n), 0.0);
  Eigen::Index t = 0;
  double rho_even = 1.0;
  double rho_odd = rho(1);
  rho_hat[0] = rho_even;
  rho_hat[1] = rho_odd;
  while (t < n - 5 && !std::isnan(rho_even + rho_odd) && rho_even + rho_odd > 0.0) {
    t += 2;
    rho_even = rho(t);
    rho_odd = rho(t + 1);
    if (rho_even + rho_odd >= 0.0) {
      rho_hat[static_cast<std::size_t>(t)] = rho_even;
      rho_hat[static_cast<std::size_t>(t + 1)] = rho_odd;
    }
  }
  const Eigen::Index max_t = t;
  // The "improved" end term: the last even autocorrelation when positive. posterior stores it
  // at lag max_t and sums lags < max_t; Stan stores it at lag max_t + 2 and sums lags ≤ max_t
  // (lag max_t is 0 there unless the sequence was cut by the length limit).
  const Eigen::Index end_lag = truncation == GeyerTruncation::posterior ? max_t : max_t + 2;
  const Eigen::Index summed = truncation == GeyerTruncation::posterior ? max_t : max_t + 1;
  if (rho_even > 0.0) rho_hat[static_cast<std::size_t>(end_lag)] = rho_even;

  // Geyer's initial monotone sequence: pair sums may not increase.
  t = 0;
  while (t <= max_t - 4) {
    t += 2;
    const auto i = static_cast<std::size_t>(t);
    if (rho_hat[i] + rho_hat[i + 1] > rho_hat[i - 2] + rho_hat[i - 1]) {
      rho_hat[i] = 0.5 * (rho_hat[i - 2] + rho_hat[i - 1]);
      rho_hat[i + 1] = rho_hat[i];
    }
  }

  const double total = nd * static_cast<double>(m);
  double sum = 0.0;
  for (Eigen::Index k = 0; k < summed; ++k) sum += rho_hat[static_cast<std::size_t>(k)];
  double tau = -1.0 + 2.0 * sum + rho_hat[static_cast<std::size_t>(end_lag)];
  // Caps the ESS at NM·log10(NM) for antithetic chains (posterior's "tau_bound").
  tau = std::max(tau, 1.0 / std::log10(total));
  return total / tau;
}

double ess_basic(const ChainDraws& draws, bool split) {
  return split ? ess_geyer(split_chains(draws)) : ess_geyer(draws);
}

double stansummary_ess(const ChainDraws& draws) {
  return ess_geyer(draws, GeyerTruncation::stan);
}

double ess_mean(const ChainDraws& draws) {
  return ess_basic(draws, true);
}

double ess_bulk(const ChainDraws& draws) {
  if (should_return_nan(draws)) return kNaN;
  return ess_geyer(z_scale(split_chains(draws)));
}

double ess_quantile(const ChainDraws& draws, double p) {
  if (draws.size() == 0 || should_return_nan(draws)) return kNaN;
  const double s = static_cast<double>(draws.size());
  if (p == 1.0) p = (s - 0.5) / s;
  const double q = quantile(draws, p);
  const Mat indicator = (draws.array() <= q).cast<double>().matrix();
  return ess_geyer(split_chains(indicator));
}

double ess_tail(const ChainDraws& draws) {
  const double lower = ess_quantile(draws, 0.05), upper = ess_quantile(draws, 0.95);
  if (std::isnan(lower) || std::isnan(upper)) return kNaN;  // R's min(NA, x) is NA
  return std::min(lower, upper);
}

double ess_sd(const ChainDraws& draws) {
  if (draws.size() == 0 || should_return_nan(draws)) return kNaN;
  const Mat dev = (draws.array() - draws.mean()).abs().matrix();
  return ess_geyer(split_chains(dev));
}

}  // namespace dpmcmc
