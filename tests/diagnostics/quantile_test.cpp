#include "diagnostics/quantile.hpp"

#include <gtest/gtest.h>

#include <boost/accumulators/accumulators.hpp>
#include <boost/accumulators/statistics/stats.hpp>
#include <boost/accumulators/statistics/tail_quantile.hpp>
#include <cmath>

#include "core/error.hpp"
#include "diagnostics/chains.hpp"
#include "diagnostics/rank_normalize.hpp"
#include "test_chains.hpp"

namespace dpmcmc {
namespace {

Mat column(std::initializer_list<double> v) {
  Mat m(static_cast<Eigen::Index>(v.size()), 1);
  Eigen::Index i = 0;
  for (double x : v) m(i++, 0) = x;
  return m;
}

// Values printed by R 4.x: quantile(1:10, c(.05, .5, .95)) = 1.45, 5.5, 9.55;
// quantile(c(3, 1, 4, 1, 5), .3) = 1.4 (sorted 1 1 3 4 5, h = (n−1)p = 1.2 between the 2nd
// and 3rd order statistics: 1 + 0.2·(3 − 1)).
TEST(Quantile, Type7MatchesR) {
  Mat x(10, 1);
  for (int i = 0; i < 10; ++i) x(i, 0) = i + 1;
  EXPECT_NEAR(quantile(x, 0.05), 1.45, 1e-14);
  EXPECT_NEAR(quantile(x, 0.5), 5.5, 1e-14);
  EXPECT_NEAR(quantile(x, 0.95), 9.55, 1e-14);
  EXPECT_NEAR(quantile(column({3, 1, 4, 1, 5}), 0.3), 1.4, 1e-14);
  EXPECT_EQ(quantile(x, 0.0), 1.0);
  EXPECT_EQ(quantile(x, 1.0), 10.0);
  Vec probs(3);
  probs << 0.05, 0.5, 0.95;
  const Vec q = quantiles(x, probs);
  EXPECT_NEAR(q(0), 1.45, 1e-14);
  EXPECT_NEAR(q(2), 9.55, 1e-14);
}

TEST(Quantile, BadInput) {
  EXPECT_THROW(quantile(column({1, 2}), 1.5), UsageError);
  EXPECT_THROW(quantile(Mat(0, 1), 0.5), DataError);
  EXPECT_TRUE(std::isnan(quantile(column({1, std::nan(""), 3}), 0.5)));
}

// The stansummary rule against boost::accumulators' tail_quantile itself (what CmdStan 2.35
// calls), an independent implementation, for several sample sizes and probabilities.
TEST(Quantile, StansummaryRuleMatchesBoostTailQuantile) {
  namespace acc = boost::accumulators;
  Rng rng = make_rng(41, 0);
  for (int n : {20, 101, 999, 4000}) {
    const Mat x = testing::ar1_chains(rng, n, 1, 0.0);
    acc::accumulator_set<double, acc::stats<acc::tag::tail_quantile<acc::left>>> left(
        acc::tag::tail<acc::left>::cache_size = n);
    acc::accumulator_set<double, acc::stats<acc::tag::tail_quantile<acc::right>>> right(
        acc::tag::tail<acc::right>::cache_size = n);
    for (int i = 0; i < n; ++i) {
      left(x(i, 0));
      right(x(i, 0));
    }
    for (double p : {0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95}) {
      const double expected = p < 0.5 ? acc::quantile(left, acc::quantile_probability = p)
                                      : acc::quantile(right, acc::quantile_probability = p);
      EXPECT_EQ(stansummary_quantile(x, p), expected) << "n=" << n << " p=" << p;
    }
  }
}

TEST(RankNormalize, AverageRanksForTies) {
  const Mat r = average_ranks(column({3, 1, 3, 2, 3}));
  // sorted: 1 (rank 1), 2 (rank 2), 3,3,3 (ranks 3,4,5 → 4)
  EXPECT_EQ(r(0, 0), 4.0);
  EXPECT_EQ(r(1, 0), 1.0);
  EXPECT_EQ(r(2, 0), 4.0);
  EXPECT_EQ(r(3, 0), 2.0);
  EXPECT_EQ(r(4, 0), 4.0);
}

// z = Φ⁻¹((r − 3/8)/(S + 1/4)): checked by mapping back with Φ(z) = erfc(−z/√2)/2 (std::erfc,
// an implementation independent of boost's inverse).
TEST(RankNormalize, ZScaleInvertsThroughErfc) {
  Mat x(3, 2);
  x << 0.3, -1.0, 2.0, 0.3, 7.0, 5.0;
  const Mat r = average_ranks(x);
  const Mat z = z_scale(x);
  const double s = 6.0;
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    const double phi = 0.5 * std::erfc(-z.data()[i] / std::sqrt(2.0));
    EXPECT_NEAR(phi, (r.data()[i] - 0.375) / (s + 0.25), 1e-14);
  }
  EXPECT_EQ(z(0, 0), z(1, 1));  // tied values share a z
}

TEST(Chains, SplitDropsMiddleDrawOfOddChains) {
  Mat x(5, 2);
  x << 1, 10, 2, 20, 3, 30, 4, 40, 5, 50;
  const Mat s = split_chains(x);
  ASSERT_EQ(s.rows(), 2);
  ASSERT_EQ(s.cols(), 4);
  EXPECT_EQ(s(0, 0), 1);
  EXPECT_EQ(s(1, 1), 20);
  EXPECT_EQ(s(0, 2), 4);  // draw 3 (the middle) is dropped
  EXPECT_EQ(s(1, 3), 50);
}

TEST(Chains, StackRefusesRaggedChains) {
  std::vector<Vec> chains = {Vec::Zero(10), Vec::Zero(10), Vec::Zero(9)};
  const std::vector<std::string> labels = {"a.csv", "b.csv", "c.csv"};
  try {
    stack_chains(chains, labels);
    FAIL() << "expected DataError";
  } catch (const DataError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("chain 3 (c.csv) has 9 draws"), std::string::npos) << msg;
    EXPECT_NE(msg.find("chain 1 (a.csv) has 10"), std::string::npos) << msg;
  }
  EXPECT_THROW(stack_chains(std::vector<Vec>{}), DataError);
  chains.pop_back();
  const Mat m = stack_chains(chains);
  EXPECT_EQ(m.rows(), 10);
  EXPECT_EQ(m.cols(), 2);
}

}  // namespace
}  // namespace dpmcmc
