#include "core/alias_table.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/error.hpp"

namespace dpmcmc {
namespace {

// The exact probability of each index implied by the table (column chosen with 1/m, then kept
// with prob_ or sent to its alias) must equal the normalised weight: checked by drawing with a
// fixed seed and comparing frequencies within 5 binomial standard errors (a false alarm has
// probability < 1e-5 per index).
TEST(AliasTable, FrequenciesMatchWeights) {
  const std::vector<double> w = {0.5, 3.0, 0.0, 1.5, 5.0, 1e-3};
  const AliasTable table(w);
  double total = 0.0;
  for (double x : w) total += x;
  Rng rng = make_rng(11, 0, Stream::algorithm);
  const int draws = 400000;
  std::vector<int> counts(w.size(), 0);
  for (int k = 0; k < draws; ++k) ++counts[table.sample(rng)];
  for (std::size_t i = 0; i < w.size(); ++i) {
    const double p = w[i] / total;
    EXPECT_DOUBLE_EQ(table.probability(i), p);
    const double se = std::sqrt(p * (1.0 - p) / draws);
    EXPECT_NEAR(static_cast<double>(counts[i]) / draws, p, 5.0 * se + 1e-12) << "index " << i;
  }
  EXPECT_EQ(counts[2], 0);  // zero weight is never drawn
}

TEST(AliasTable, SingleWeightAlwaysDrawn) {
  const std::vector<double> w = {2.0};
  const AliasTable table(w);
  Rng rng = make_rng(1, 0, Stream::algorithm);
  for (int k = 0; k < 100; ++k) EXPECT_EQ(table.sample(rng), 0u);
}

TEST(AliasTable, RefusesBadWeights) {
  EXPECT_THROW(AliasTable(std::vector<double>{}), ConfigError);
  EXPECT_THROW(AliasTable(std::vector<double>{1.0, -1.0}), ConfigError);
  EXPECT_THROW(AliasTable(std::vector<double>{0.0, 0.0}), ConfigError);
  EXPECT_THROW(AliasTable(std::vector<double>{1.0, NAN}), ConfigError);
}

}  // namespace
}  // namespace dpmcmc
