// Walker's alias method (Vose's stable construction): after O(m) set-up, draws an index i with
// probability w_i / Σ w in O(1) — two uniforms' worth of work whatever m is. Used where a sampler
// draws many variates from a fixed discrete distribution: the mixture components of DP Barker's
// correction distribution and TunaMH's row indices drawn with probability c_i / C.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/rng.hpp"

namespace dpmcmc {

class AliasTable {
 public:
  // ConfigError unless every weight is finite and ≥ 0 and their sum is finite and > 0.
  explicit AliasTable(std::span<const double> weights);

  std::size_t size() const { return prob_.size(); }
  // The normalised probability of index i (w_i / Σ w), as given.
  double probability(std::size_t i) const { return p_[i]; }

  // One index from the algorithm stream: a uniform column, then a coin against its threshold.
  template <class Engine>
  std::size_t sample(Random<Engine>& rng) const {
    const auto column = static_cast<std::size_t>(rng.index(prob_.size()));
    return rng.uniform() < prob_[column] ? column : alias_[column];
  }

 private:
  std::vector<double> prob_;        // threshold of each column, in [0, 1]
  std::vector<std::size_t> alias_;  // the other index sharing the column
  std::vector<double> p_;           // normalised weights
};

}  // namespace dpmcmc
