// The planner's share of δ for the float-safe noise (run/private_plan.hpp): the accountants plan
// at δ(1 − 2⁻¹⁰) (every release kind is grid-noised); the discretisation's δ is
// (1 + e^ε)·K·η(s_min) for the scheduled coordinates, s_min = 2⁴⁰ for the Gaussian sums and
// DP-Fast MH and DP Barker's own bound (η from the bound that
// tests/privacy/discrete_noise_bound_test.cpp checks against independent values); a plan whose
// term exceeds the reserve, or whose multiplier the exact sampler cannot reach, is refused with
// a message naming why.
#include <gtest/gtest.h>

#include <cmath>

#include "../error_message.hpp"
#include "core/error.hpp"
#include "privacy/barker_accounting.hpp"
#include "privacy/discrete_noise_bound.hpp"
#include "privacy/fastmh_guarantee.hpp"
#include "privacy/iteration_templates.hpp"
#include "run/private_plan.hpp"

namespace dpmcmc {
namespace {

using test::message_of;

TEST(PrivatePlan, ReservesAShareOfDeltaForTheDiscreteNoise) {
  const Budget budget{2.0, 1e-6};
  const PrivateRunPlan p = plan_private_run(budget, dp_penalty_template(0.1, 1e5), 4, {}, {}, 2);
  EXPECT_EQ(p.accountant_delta, 1e-6 - std::ldexp(1e-6, -10));
  const double k = static_cast<double>(p.scheduled);  // one llr_sum per iteration, 2 coordinates
  const double want = (1.0 + std::exp(2.0)) * k * 2.0 * discrete_gaussian_tv_bound(0x1.0p40);
  EXPECT_NEAR(p.discretisation_delta, want, 1e-9 * want);
  EXPECT_LE(p.accountant_delta + p.discretisation_delta, budget.delta);
  const auto report = privacy_report(p, EventLog{});
  EXPECT_EQ(report.at("delta_accountants").get<double>(), p.accountant_delta);
  EXPECT_EQ(report.at("delta_discretisation").get<double>(), p.discretisation_delta);

  // DP-Fast MH's noisy branches use the same grid noise (s ≥ 2⁴⁰), one coordinate each.
  const PrivateRunPlan f = plan_private_run({2.0, 1e-5}, fastmh_template(0.05, 1e-9), 2);
  EXPECT_EQ(f.accountant_delta, 1e-5 - std::ldexp(1e-5, -10));
  const double kf = static_cast<double>(f.scheduled);
  const double want_f = (1.0 + std::exp(2.0)) * kf * discrete_gaussian_tv_bound(0x1.0p40);
  EXPECT_NEAR(f.discretisation_delta, want_f, 1e-9 * want_f);

  // DP Barker at σ² = 2: s ≥ √(σ² − 1)/h = 2⁴¹ grid steps (barker_grid.hpp, h = 2⁻⁴¹); the
  // planner's lower bound on it is within 2⁻³⁰ relative, so η differs by ~2⁻²⁹.
  const PrivateRunPlan bk = plan_private_run({2.0, 1e-5}, dp_barker_template(2.0, 1000, 100000), 1);
  EXPECT_EQ(bk.accountant_delta, 1e-5 - std::ldexp(1e-5, -10));
  const double kb = static_cast<double>(bk.scheduled);
  const double want_b = (1.0 + std::exp(2.0)) * kb * discrete_gaussian_tv_bound(0x1.0p41);
  EXPECT_GE(bk.discretisation_delta, want_b);
  EXPECT_NEAR(bk.discretisation_delta, want_b, 1e-8 * want_b);
}

TEST(PrivatePlan, RefusesWhatTheDiscreteNoiseCannotCertify) {
  // 10¹⁸ coordinates per release: (1 + e²)·k·10¹⁸·η(2⁴⁰) ≫ 2⁻¹⁰·10⁻⁶.
  const std::string big = message_of<ConfigError>([] {
    plan_private_run({2.0, 1e-6}, dp_penalty_template(0.1, 1e5), 4, {}, {},
                     std::size_t{1000000000000000000});
  });
  EXPECT_NE(big.find("the discrete noise of"), std::string::npos) << big;
  EXPECT_NE(big.find("more than the"), std::string::npos) << big;
  // σ/Δ·√d above 2³⁸: beyond the sampler's 2⁴² grid steps.
  const std::string huge = message_of<ConfigError>([] {
    plan_private_run({2.0, 1e-6}, dp_penalty_template(0x1.0p39, 1.0), 1, {}, {}, 1);
  });
  EXPECT_NE(huge.find("too large for the exact discrete noise"), std::string::npos) << huge;
}

// The memo belongs to whoever passes it (issue #24: no process-wide state): a second plan with
// the same memo returns the first computation (its recorded timings, to the bit), and the same
// plan with another memo or none is computed again with the same result.
TEST(PrivatePlan, MemoIsOwnedByTheCallerAndChangesNoResult) {
  const auto tpl = dp_penalty_template(0.1, 1e5);
  PlanMemo memo, other;
  const PrivateRunPlan a = plan_private_run({2.0, 1e-6}, tpl, 2, {}, {}, 2, &memo);
  const PrivateRunPlan b = plan_private_run({2.0, 1e-6}, tpl, 2, {}, {}, 2, &memo);
  const PrivateRunPlan c = plan_private_run({2.0, 1e-6}, tpl, 2, {}, {}, 2, &other);
  const PrivateRunPlan d = plan_private_run({2.0, 1e-6}, tpl, 2, {}, {}, 2);
  ASSERT_EQ(a.tightest.attempts.size(), b.tightest.attempts.size());
  for (std::size_t i = 0; i < a.tightest.attempts.size(); ++i) {
    EXPECT_EQ(a.tightest.attempts[i].seconds, b.tightest.attempts[i].seconds);  // a memo hit
  }
  for (const PrivateRunPlan* p : {&b, &c, &d}) {
    EXPECT_EQ(p->tightest.best.iterations, a.tightest.best.iterations);
    EXPECT_EQ(p->tightest.best.accountant, a.tightest.best.accountant);
    EXPECT_EQ(p->split.per_chain, a.split.per_chain);
  }
  EXPECT_EQ(privacy_report(a, EventLog{}, &memo), privacy_report(a, EventLog{}));
}

}  // namespace
}  // namespace dpmcmc
