// The memo behind planning and composing in private runs: one computation per key, the stored
// value returned afterwards, failures not stored; and a memoised plan equal to a fresh one.
#include "run/pure_memo.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "privacy/accountants.hpp"
#include "privacy/minibatch_templates.hpp"
#include "run/private_plan.hpp"

namespace dpmcmc {
namespace {

TEST(PureMemo, ComputesOncePerKeyAndDoesNotStoreFailures) {
  PureMemo<int> memo;
  int calls = 0;
  EXPECT_EQ(memo.get("a", [&] { return ++calls; }), 1);
  EXPECT_EQ(memo.get("a", [&] { return ++calls; }), 1);
  EXPECT_EQ(memo.get("b", [&] { return ++calls; }), 2);
  EXPECT_EQ(calls, 2);
  EXPECT_THROW(memo.get("c", []() -> int { throw std::runtime_error("no"); }), std::runtime_error);
  EXPECT_EQ(memo.get("c", [&] { return ++calls; }), 3);  // the failure was not stored
}

// A second plan with the same inputs (a hit) equals the tightest plan computed afresh, and a
// different budget is not confused with it.
TEST(PureMemo, MemoisedPlanEqualsAFreshOne) {
  const auto tmpl = dp_penalty_minibatch_template(0.7, 1000, 100000);
  const Budget budget{3.0, 1e-6};
  const PrivateRunPlan first = plan_private_run(budget, tmpl, 2);
  const PrivateRunPlan again = plan_private_run(budget, tmpl, 2);
  const PrivateRunPlan other = plan_private_run(Budget{4.0, 1e-6}, tmpl, 2);
  std::vector<std::unique_ptr<Accountant>> owned;
  std::vector<const Accountant*> ptrs;
  for (const auto& name : accountants_supporting(tmpl, {})) {
    owned.push_back(make_accountant(name, {}));
    if (owned.back()->bound() == BoundKind::upper_bound) ptrs.push_back(owned.back().get());
  }
  const TightestPlan fresh = plan_iterations_tightest(budget, tmpl, ptrs);
  EXPECT_EQ(first.tightest.best.iterations, fresh.best.iterations);
  EXPECT_EQ(first.tightest.best.accountant, fresh.best.accountant);
  EXPECT_EQ(first.tightest.best.epsilon_spent, fresh.best.epsilon_spent);
  EXPECT_EQ(again.tightest.best.iterations, fresh.best.iterations);
  EXPECT_GT(other.tightest.best.iterations, fresh.best.iterations);
  // The accounting experiment's value at ε = 3 (experiments/results/accounting-full).
  EXPECT_EQ(fresh.best.iterations, 583u);
}

}  // namespace
}  // namespace dpmcmc
