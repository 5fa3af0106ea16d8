#include "diagnostics/mcse.hpp"

#include <cmath>
#include <limits>

#include "diagnostics/ess.hpp"

namespace dpmcmc {

double pooled_sd(const ChainDraws& draws) {
  const auto s = static_cast<double>(draws.size());
  if (s < 2) return std::numeric_limits<double>::quiet_NaN();
  return std::sqrt((draws.array() - draws.mean()).square().sum() / (s - 1.0));
}

double mcse_mean(const ChainDraws& draws) {
  return pooled_sd(draws) / std::sqrt(ess_mean(draws));
}

double mcse_sd(const ChainDraws& draws) {
  if (draws.size() == 0) return std::numeric_limits<double>::quiet_NaN();
  const Mat c = (draws.array() - draws.mean()).matrix();
  const Mat c2 = c.array().square().matrix();
  const double ess = ess_mean(c2);
  const double e_var = c2.mean();
  const double var_var = (c2.array().square().mean() - e_var * e_var) / ess;
  return std::sqrt(var_var / e_var / 4.0);
}

double stansummary_mcse(const ChainDraws& draws) {
  return pooled_sd(draws) / std::sqrt(stansummary_ess(draws));
}

}  // namespace dpmcmc
