// The planner: largest iteration count, smallest noise, chain split, tightest accountant.
#include "privacy/planner.hpp"
#include "privacy/rdp_accountant.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "privacy/classical_accountant.hpp"
#include "privacy/gaussian_calibration.hpp"
#include "privacy/gaussian_pld.hpp"
#include "privacy/iteration_templates.hpp"
#include "privacy/zcdp.hpp"
#include "privacy/zcdp_iterations.hpp"

namespace dpmcmc {
namespace {

using Events = std::vector<PrivacyEvent>;

// δ(ε; μ) of the PLD N(μ, 2μ) written with std::erfc, exactly as in [RaisaKoskelaHonkela2021]
// Theorem 2.4. Accurate here: ε ≤ 6 and δ ≥ 1e-7 leave both terms ≥ 1e-8, no cancellation.
double raw_delta(double eps, double mu) {
  return 0.5 * (std::erfc((eps - mu) / (2 * std::sqrt(mu))) -
                std::exp(eps) * std::erfc((eps + mu) / (2 * std::sqrt(mu))));
}

// The largest μ with raw_delta(ε, μ) ≤ δ by plain bisection (δ increases with μ), independent
// of the library's log-space root finder.
double max_mu_by_bisection(double eps, double delta) {
  double lo = 1e-8, hi = 1e3;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (raw_delta(eps, mid) <= delta ? lo : hi) = mid;
  }
  return lo;
}

// The thesis' comparison ([Raisa2021] Section 6.1, Fig. 6.1, left panel): flat
// 2-d banana, DP penalty, n = 1e5, δ = 0.1/n, τ = 0.1. One iteration is a unit-sensitivity
// release with noise τ√n, PLD mean μ₁ = 1/(2τ²n); k iterations have μ = kμ₁. So the tight count
// is k = ⌊μ*/μ₁⌋ = ⌊μ*·2τ²n⌋, μ* the largest μ with δ(ε; μ) ≤ δ (Theorem 3.2); the zCDP count
// is Theorem 3.1's ⌊2τ²nρ⌋, ρ = (√(ε − ln δ) − √(−ln δ))².
TEST(Planner, BananaDpPenaltyCountsMatchIndependentFormulas) {
  const double n = 1e5, delta = 0.1 / n, tau = 0.1;
  const auto tmpl = dp_penalty_template(tau, n);
  const GaussianPldAccountant pld;
  const ZcdpAccountant zcdp;
  for (double eps = 1.0; eps <= 6.0; eps += 1.0) {
    const double scaled = max_mu_by_bisection(eps, delta) * 2 * tau * tau * n;
    // The formula is ambiguous only if μ*/μ₁ is within rounding of an integer.
    ASSERT_GT(scaled - std::floor(scaled), 1e-9) << eps;
    const auto k_pld = static_cast<std::uint64_t>(std::floor(scaled));
    const double L = -std::log(delta);
    const double rho = std::pow(std::sqrt(eps + L) - std::sqrt(L), 2);
    const auto k_zcdp = static_cast<std::uint64_t>(std::floor(2 * tau * tau * n * rho));

    const auto plan_pld = plan_iterations({eps, delta}, tmpl, pld);
    const auto plan_zcdp = plan_iterations({eps, delta}, tmpl, zcdp);
    EXPECT_EQ(plan_pld.iterations, k_pld) << "eps=" << eps;
    EXPECT_EQ(plan_zcdp.iterations, k_zcdp) << "eps=" << eps;
    EXPECT_GT(plan_pld.iterations, plan_zcdp.iterations);  // the point of Fig. 6.1
    // Algorithm 2 starts from the zCDP count: same answer, no more evaluations.
    PlanOptions from_zcdp;
    from_zcdp.initial_guess = k_zcdp;
    const auto guided = plan_iterations({eps, delta}, tmpl, pld, from_zcdp);
    EXPECT_EQ(guided.iterations, k_pld);
    EXPECT_LE(guided.evaluations, plan_pld.evaluations + 2);
  }
}

// DP HMC on the flat 2-d banana (τ_l 0.1, τ_g 0.4, L 10; docs/references.md): Theorem 4.3's
// μ = k/(2τ_l²n) + k(L+1)/(2τ_g²n), so k = ⌊μ*/(1/(2τ_l²n) + (L+1)/(2τ_g²n))⌋.
TEST(Planner, BananaDpHmcCountMatchesTheorem43) {
  const double n = 1e5, delta = 0.1 / n, tau_l = 0.1, tau_g = 0.4;
  const std::uint64_t L = 10;
  const GaussianPldAccountant pld;
  for (double eps : {1.0, 4.0, 6.0}) {
    const double per_iteration = 1 / (2 * tau_l * tau_l * n) + (L + 1) / (2 * tau_g * tau_g * n);
    const double scaled = max_mu_by_bisection(eps, delta) / per_iteration;
    ASSERT_GT(scaled - std::floor(scaled), 1e-9);
    const auto plan = plan_iterations({eps, delta}, dp_hmc_template(tau_l, tau_g, L, n), pld);
    EXPECT_EQ(plan.iterations, static_cast<std::uint64_t>(std::floor(scaled))) << eps;
    EXPECT_GE(plan.iterations, dp_hmc_iterations_zcdp(eps, delta, tau_l, tau_g, L, n));
  }
}

PrivacyEvent adp(double eps, double delta) {
  PrivacyEvent e;
  e.mechanism = Mechanism::approximate_dp;
  e.epsilon = eps;
  e.delta = delta;
  return e;
}

TEST(Planner, CountSatisfiesTheBudgetAndOneMoreDoesNot) {
  const GaussianPldAccountant pld;
  const ZcdpAccountant zcdp;
  const ClassicalAccountant classical;
  struct Case {
    const Accountant* accountant;
    std::vector<PrivacyEvent> tmpl;
    Budget budget;
  };
  const std::vector<Case> cases{
      {&pld, dp_penalty_template(0.1, 1e5), {1.0, 1e-6}},
      {&pld, dp_hmc_template(0.05, 0.2, 10, 2e5), {3.0, 5e-7}},
      {&zcdp, dp_hmc_template(0.6, 1.9, 40, 1e5), {15.0, 1e-6}},
      {&pld, dp_penalty_template(0.01, 1e4), {10.0, 1e-3}},  // a few iterations only
      {&classical, {adp(0.05, 1e-9)}, {1.0, 1e-5}},
      {&classical, {adp(0.01, 0.0), adp(0.02, 1e-10)}, {2.0, 1e-6}},
  };
  for (const Case& c : cases) {
    const auto plan = plan_iterations(c.budget, c.tmpl, *c.accountant);
    ASSERT_GE(plan.iterations, 1u);
    ASSERT_TRUE(plan.epsilon_next.has_value());
    const double at_k = iterations_spend(*c.accountant, c.tmpl, plan.iterations, c.budget.delta);
    const double at_k1 =
        iterations_spend(*c.accountant, c.tmpl, plan.iterations + 1, c.budget.delta);
    EXPECT_LE(at_k, c.budget.epsilon) << c.accountant->name();
    EXPECT_GT(at_k1, c.budget.epsilon) << c.accountant->name();
    EXPECT_EQ(plan.epsilon_spent, at_k);
    EXPECT_EQ(*plan.epsilon_next, at_k1);
    EXPECT_EQ(plan.accountant, c.accountant->name());
  }
}

TEST(Planner, BudgetTooSmallForOneIterationNamesTheSpend) {
  // τ = 0.001, n = 1e5: noise multiplier 0.316, μ₁ = 5: one iteration costs ε ≈ 19 at δ = 1e-6.
  try {
    plan_iterations({1.0, 1e-6}, dp_penalty_template(0.001, 1e5), GaussianPldAccountant());
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("ε = 1, δ = 1e-06"), std::string::npos) << m;
    EXPECT_NE(m.find("does not allow a single iteration"), std::string::npos) << m;
    EXPECT_NE(m.find("pld-gaussian"), std::string::npos) << m;
  }
  EXPECT_THROW(plan_iterations({0.0, 1e-6}, dp_penalty_template(0.1, 1e5), ZcdpAccountant()),
               ConfigError);
  EXPECT_THROW(plan_iterations({1.0, 1.0}, dp_penalty_template(0.1, 1e5), ZcdpAccountant()),
               ConfigError);
  EXPECT_THROW(plan_iterations({1.0, 1e-6}, {}, ZcdpAccountant()), ConfigError);
  EXPECT_THROW(plan_iterations({1.0, 1e-6}, Events{adp(0.1, 0.0)}, ZcdpAccountant()), ConfigError);
}

TEST(Planner, CapsTheSearch) {
  PlanOptions options;
  options.max_iterations = 1000;
  const auto plan = plan_iterations({50.0, 1e-6}, dp_penalty_template(10.0, 1e5),
                                    GaussianPldAccountant(), options);
  EXPECT_TRUE(plan.capped);
  EXPECT_EQ(plan.iterations, 1000u);
  EXPECT_FALSE(plan.epsilon_next.has_value());
}

// An accountant whose spend drops at 8 releases: the planner must notice, not bisect on it.
class NonMonotoneAccountant final : public Accountant {
 public:
  class Profile final : public PrivacyProfile {
   public:
    explicit Profile(double eps) : eps_(eps) {}
    double epsilon(double) const override { return eps_; }
    double delta(double) const override { return 0.0; }

   private:
    double eps_;
  };
  std::string name() const override { return "broken"; }
  BoundKind bound() const override { return BoundKind::upper_bound; }
  bool supports(const PrivacyEvent&) const override { return true; }
  std::unique_ptr<PrivacyProfile> compose(std::span<const PrivacyEvent> events) const override {
    std::uint64_t count = 0;
    for (const auto& e : events) count += e.count;
    return std::make_unique<Profile>(count == 8 ? 0.5 : static_cast<double>(count));
  }
};

TEST(Planner, DetectsANonMonotoneAccountant) {
  PrivacyEvent e;
  EXPECT_THROW(plan_iterations({10.0, 1e-6}, Events{e}, NonMonotoneAccountant()), ConfigError);
  // Beside a sound accountant it plans nothing, says why, and the sound one plans the run.
  const GaussianPldAccountant pld;
  const NonMonotoneAccountant broken;
  const std::vector<const Accountant*> both{&broken, &pld};
  const auto result = plan_iterations_tightest({10.0, 1e-6}, Events{e}, both);
  EXPECT_EQ(result.best.accountant, "pld-gaussian");
  ASSERT_EQ(result.attempts.size(), 2u);
  EXPECT_FALSE(result.attempts[0].plan.has_value());
  EXPECT_NE(result.attempts[0].reason.find("is not monotone"), std::string::npos)
      << result.attempts[0].reason;
}

TEST(Planner, SmallestNoiseScaleMatchesTheAnalyticGaussian) {
  // k releases of a unit-sensitivity Gaussian with noise mσ compose to one release with
  // sensitivity √k and noise mσ, so the smallest m is analytic_gaussian_sigma(√k, ε, δ)/σ.
  PrivacyEvent e;
  e.noise_sd = 2.0;
  const GaussianPldAccountant pld;
  for (std::uint64_t k : {1u, 100u, 10000u}) {
    const auto plan = plan_noise_scale({1.0, 1e-5}, Events{e}, k, pld, 1e-10);
    const double want = analytic_gaussian_sigma(std::sqrt(static_cast<double>(k)), 1.0, 1e-5) / 2.0;
    EXPECT_NEAR(plan.noise_scale, want, 2e-9 * want) << k;
    EXPECT_LE(plan.epsilon_spent, 1.0);
    EXPECT_GT(iterations_spend(pld, scale_noise(Events{e}, plan.noise_scale * (1 - 1e-8)), k, 1e-5),
              1.0);
  }
  // Inverse of plan_iterations: with the noise found for k, the planner allows ≥ k iterations.
  const auto tmpl = dp_hmc_template(0.1, 0.4, 10, 1e5);
  const auto noise = plan_noise_scale({2.0, 1e-6}, tmpl, 5000, pld);
  EXPECT_GE(plan_iterations({2.0, 1e-6}, scale_noise(tmpl, noise.noise_scale), pld).iterations,
            5000u);
  EXPECT_THROW(plan_noise_scale({1.0, 1e-5}, Events{adp(0.1, 0.0)}, 10, ClassicalAccountant()),
               ConfigError);
}

TEST(Planner, SplitsIterationsAmongChains) {
  const auto equal = split_among_chains(1003, 4);
  EXPECT_EQ(equal.per_chain, (std::vector<std::uint64_t>{250, 250, 250, 250}));
  EXPECT_EQ(equal.unused, 3u);
  const auto all = split_among_chains(1003, 4, false);
  EXPECT_EQ(all.per_chain, (std::vector<std::uint64_t>{251, 251, 251, 250}));
  EXPECT_EQ(all.unused, 0u);
  EXPECT_THROW(split_among_chains(3, 4), ConfigError);
  EXPECT_THROW(split_among_chains(3, 0), ConfigError);
}

class LowerBoundStub final : public Accountant {
 public:
  std::string name() const override { return "optimistic"; }
  BoundKind bound() const override { return BoundKind::lower_bound; }
  bool supports(const PrivacyEvent&) const override { return true; }
  std::unique_ptr<PrivacyProfile> compose(std::span<const PrivacyEvent>) const override {
    return std::make_unique<NonMonotoneAccountant::Profile>(0.0);  // spends nothing
  }
};

TEST(Planner, TightestCertifiedAccountantWins) {
  const ZcdpAccountant zcdp;
  const GaussianPldAccountant pld;
  const ClassicalAccountant classical;
  const LowerBoundStub optimistic;
  const std::vector<const Accountant*> accountants{&zcdp, &optimistic, &classical, &pld};
  const auto result =
      plan_iterations_tightest({4.0, 1e-6}, dp_penalty_template(0.1, 1e5), accountants);
  EXPECT_EQ(result.best.accountant, "pld-gaussian");
  ASSERT_EQ(result.attempts.size(), 4u);
  EXPECT_TRUE(result.attempts[0].plan.has_value());
  EXPECT_LT(result.attempts[0].plan->iterations, result.best.iterations);
  EXPECT_FALSE(result.attempts[1].plan.has_value());  // not certified
  EXPECT_NE(result.attempts[1].reason.find("lower bound"), std::string::npos);
  EXPECT_FALSE(result.attempts[2].plan.has_value());  // cannot interpret Gaussian events
  EXPECT_NE(result.attempts[2].reason.find("cannot interpret"), std::string::npos);
  // None can plan: the error lists every accountant's reason.
  try {
    plan_iterations_tightest({0.01, 1e-6}, dp_penalty_template(0.001, 1e5), accountants);
    FAIL();
  } catch (const ConfigError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("zcdp"), std::string::npos);
    EXPECT_NE(m.find("does not allow a single iteration"), std::string::npos);
  }
}

// An exact accountant makes the others unnecessary: the same plan, the others not run. A rule
// that skipped without an exact accountant (or chose a non-exact one) fails here.
TEST(Planner, StopAtExactPlansWithTheExactAccountantAlone) {
  const ZcdpAccountant zcdp;
  const GaussianPldAccountant pld;
  const std::vector<const Accountant*> accountants{&zcdp, &pld};
  const auto tmpl = dp_penalty_template(0.1, 1e5);
  EXPECT_TRUE(pld.exact(tmpl));
  EXPECT_FALSE(zcdp.exact(tmpl));
  PlanOptions stop;
  stop.stop_at_exact = true;
  const auto all = plan_iterations_tightest({4.0, 1e-6}, tmpl, accountants);
  const auto fast = plan_iterations_tightest({4.0, 1e-6}, tmpl, accountants, stop);
  EXPECT_EQ(fast.best.iterations, all.best.iterations);
  EXPECT_EQ(fast.best.accountant, "pld-gaussian");
  ASSERT_EQ(fast.attempts.size(), 2u);
  EXPECT_FALSE(fast.attempts[0].plan.has_value());
  EXPECT_NE(fast.attempts[0].reason.find("pld-gaussian is exact"), std::string::npos);
  // Subsampled releases: the Gaussian PLD cannot interpret them, so nothing is skipped.
  const std::vector<const Accountant*> only_zcdp{&zcdp};
  EXPECT_EQ(exact_upper_bound(only_zcdp, tmpl), nullptr);
  EXPECT_EQ(exact_upper_bound(accountants, tmpl), &pld);
  PrivacyEvent sub = tmpl.front();
  sub.mechanism = Mechanism::subsampled_gaussian;
  sub.sampling = Sampling::poisson;
  sub.sampling_rate = 0.01;
  sub.relation = Neighbouring::add_remove;
  EXPECT_FALSE(pld.exact(std::vector<PrivacyEvent>{sub}));
  // With stop_at_exact on such a template, nothing is skipped for exactness: RDP plans.
  const RdpAccountant rdp;
  const std::vector<const Accountant*> both{&pld, &rdp};
  const auto subsampled =
      plan_iterations_tightest({4.0, 1e-6}, std::vector<PrivacyEvent>{sub}, both, stop);
  EXPECT_EQ(subsampled.best.accountant, "rdp");
  EXPECT_EQ(subsampled.attempts[0].reason.find("is exact"), std::string::npos);
  EXPECT_TRUE(subsampled.attempts[1].plan.has_value());
}

}  // namespace
}  // namespace dpmcmc

namespace dpmcmc {
namespace {

// dp-nss's pilot releases (iteration_templates.hpp, staged_noise): the pilots take a share s of
// zCDP's ρ equally and the final release the rest, z_pilot = z √(K/s), z_final = z/√(1 − s);
// K + 1 Gaussian releases with Σ 1/z_k² = 1/z² cost exactly what one of multiplier z costs under
// the Gaussian PLD and zCDP, whose ε are compared here at K = 1, 2, 3 and s = 0.1, 0.3, 0.6.
TEST(Planner, PilotReleasesCostWhatOneReleaseOfTheWholeBudgetCosts) {
  const GaussianPldAccountant pld;
  const ZcdpAccountant zcdp;
  const double z = 4.6, delta = 1e-5;
  const auto one = noisy_statistics_template(z);
  for (std::uint64_t pilots : {1u, 2u, 3u}) {
    for (double share : {0.1, 0.3, 0.6}) {
      const StagedNoise noise = staged_noise(z, pilots, share);
      EXPECT_NEAR(noise.pilot, z * std::sqrt(pilots / share), 1e-12);
      EXPECT_NEAR(noise.final, z / std::sqrt(1.0 - share), 1e-12);
      const auto staged = noisy_statistics_template(z, pilots, share);
      ASSERT_EQ(staged.size(), 2u);
      EXPECT_EQ(staged[0].count, pilots);
      EXPECT_EQ(staged[1].count, 1u);
      for (const Accountant* a :
           {static_cast<const Accountant*>(&pld), static_cast<const Accountant*>(&zcdp)}) {
        EXPECT_NEAR(a->compose(staged)->epsilon(delta), a->compose(one)->epsilon(delta), 1e-9)
            << a->name() << " pilots " << pilots << " share " << share;
      }
    }
  }
  EXPECT_EQ(noisy_statistics_template(z, 0, 0.0).size(), 1u);  // no pilots: the one release
  EXPECT_THROW(staged_noise(z, 2, 1.0), ConfigError);
  EXPECT_THROW(staged_noise(z, 2, 0.0), ConfigError);
}

}  // namespace
}  // namespace dpmcmc
