#include "run/kept_draws.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.hpp"

namespace dpmcmc {
namespace {

// A run with columns lp__, accept_stat__, a, b whose chain c has `rows[c]` draws; entry (i, j) of
// chain c is 100c + 10i + j, so every value says where it came from.
RunResult hand_built_run(const std::vector<Eigen::Index>& rows) {
  RunResult run;
  run.columns = {"lp__", "accept_stat__", "a", "b"};
  run.first_param_column = 2;
  for (std::size_t c = 0; c < rows.size(); ++c) {
    ChainResult ch;
    ch.chain = static_cast<int>(c);
    ch.draws.resize(rows[c], 4);
    for (Eigen::Index i = 0; i < rows[c]; ++i) {
      for (Eigen::Index j = 0; j < 4; ++j) {
        // Squares make the columns non-constant within a chain and distinct between chains.
        ch.draws(i, j) = 100.0 * static_cast<double>(c) + 10.0 * static_cast<double>(i * i) +
                         static_cast<double>(j);
      }
    }
    run.chains.push_back(ch);
  }
  return run;
}

TEST(KeptDraws, EqualChainsArePooledInChainOrderAndKeptInTheRun) {
  RunResult run = hand_built_run({5, 5});
  const RunResult before = run;
  const std::vector<std::string> labels = {"chain-1.csv", "chain-2.csv"};
  const KeptDraws kept = kept_draws(run, labels);

  ASSERT_EQ(kept.pooled.rows(), 10);
  ASSERT_EQ(kept.pooled.cols(), 2);
  for (Eigen::Index i = 0; i < 5; ++i) {
    EXPECT_EQ(kept.pooled(i, 0), before.chains[0].draws(i, 2));
    EXPECT_EQ(kept.pooled(5 + i, 1), before.chains[1].draws(i, 3));
  }
  // The summary is summarize() of the chains themselves.
  const std::vector<Mat> chains = {before.chains[0].draws, before.chains[1].draws};
  const Summary direct = summarize(before.columns, chains, labels);
  ASSERT_EQ(kept.summary.parameters.size(), 4u);
  EXPECT_EQ(kept.summary.draws_per_chain, 5u);
  for (std::size_t j = 0; j < 4; ++j) {
    EXPECT_EQ(kept.summary.parameters[j].mean, direct.parameters[j].mean);
    EXPECT_EQ(kept.summary.parameters[j].sd, direct.parameters[j].sd);
  }
  // The draws were lent, not lost.
  for (std::size_t c = 0; c < 2; ++c) {
    ASSERT_EQ(run.chains[c].draws.rows(), before.chains[c].draws.rows());
    EXPECT_EQ(run.chains[c].draws, before.chains[c].draws);
  }
}

TEST(KeptDraws, UnequalChainsAreCutToTheShortestAndEmptyOnesSkipped) {
  // An interrupted run: chain 2 kept nothing, chain 3 stopped one draw early.
  RunResult run = hand_built_run({6, 0, 5});
  const RunResult before = run;
  const KeptDraws kept = kept_draws(run, {});

  ASSERT_EQ(kept.pooled.rows(), 10);  // 2 chains × the shortest 5
  EXPECT_EQ(kept.pooled(4, 0), before.chains[0].draws(4, 2));
  EXPECT_EQ(kept.pooled(5, 0), before.chains[2].draws(0, 2));  // chain 1's sixth draw is cut
  EXPECT_EQ(kept.summary.chains, 2u);
  EXPECT_EQ(kept.summary.draws_per_chain, 5u);
  EXPECT_EQ(run.chains[0].draws.rows(), 6);  // the run keeps every draw
  EXPECT_EQ(run.chains[1].draws.rows(), 0);
  ASSERT_EQ(run.chains[2].draws.rows(), 5);
  EXPECT_EQ(run.chains[2].draws, before.chains[2].draws);
}

// A summary that throws (draws with more columns than names) leaves the run's draws in place.
TEST(KeptDraws, DrawsComeBackWhenTheSummaryThrows) {
  RunResult run = hand_built_run({5, 6});
  const RunResult before = run;
  run.columns.pop_back();
  run.first_param_column = 1;
  EXPECT_THROW(kept_draws(run, {}), DataError);
  for (std::size_t c = 0; c < 2; ++c) {
    ASSERT_EQ(run.chains[c].draws.rows(), before.chains[c].draws.rows());
    EXPECT_EQ(run.chains[c].draws, before.chains[c].draws);
  }
}

TEST(KeptDraws, TooFewDrawsGiveNoSummaryButStillPool) {
  RunResult run = hand_built_run({3, 3});
  const KeptDraws kept = kept_draws(run, {});
  EXPECT_TRUE(kept.summary.parameters.empty());
  EXPECT_EQ(kept.pooled.rows(), 6);
}

TEST(KeptDraws, NoDrawsGiveAnEmptyPool) {
  RunResult run = hand_built_run({0, 0});
  const KeptDraws kept = kept_draws(run, {});
  EXPECT_EQ(kept.pooled.rows(), 0);
  EXPECT_EQ(kept.pooled.cols(), 2);
  EXPECT_TRUE(kept.summary.parameters.empty());
}

}  // namespace
}  // namespace dpmcmc
