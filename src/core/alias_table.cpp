#include "core/alias_table.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/error.hpp"

namespace dpmcmc {

AliasTable::AliasTable(std::span<const double> weights) {
  const std::size_t m = weights.size();
  if (m == 0) throw ConfigError("alias table: expected at least one weight, got none");
  double total = 0.0;
  for (std::size_t i = 0; i < m; ++i) {
    if (!std::isfinite(weights[i]) || weights[i] < 0.0) {
      throw ConfigError(fmt::format("alias table: weight {} is {}, expected a finite number >= 0",
                                    i, weights[i]));
    }
    total += weights[i];
  }
  if (!(total > 0.0) || !std::isfinite(total)) {
    throw ConfigError(fmt::format("alias table: the weights sum to {}, expected > 0", total));
  }
  p_.resize(m);
  prob_.assign(m, 1.0);
  alias_.resize(m);
  // Vose: scaled weights m·p_i; columns below 1 ("small") are topped up by one above 1 ("large"),
  // which keeps the remainder. Indices are processed in a fixed order so the table (and hence
  // every draw for a given stream) is deterministic.
  std::vector<double> scaled(m);
  std::vector<std::size_t> small, large;
  for (std::size_t i = 0; i < m; ++i) {
    p_[i] = weights[i] / total;
    scaled[i] = p_[i] * static_cast<double>(m);
    alias_[i] = i;
    (scaled[i] < 1.0 ? small : large).push_back(i);
  }
  while (!small.empty() && !large.empty()) {
    const std::size_t s = small.back();
    small.pop_back();
    const std::size_t l = large.back();
    prob_[s] = scaled[s];
    alias_[s] = l;
    scaled[l] = (scaled[l] + scaled[s]) - 1.0;
    if (scaled[l] < 1.0) {
      large.pop_back();
      small.push_back(l);
    }
  }
  // Whatever is left has scaled weight 1 up to rounding: a full column.
  for (const std::size_t i : small) prob_[i] = 1.0;
  for (const std::size_t i : large) prob_[i] = 1.0;
}

}  // namespace dpmcmc
