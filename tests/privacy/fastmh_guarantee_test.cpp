// DP-Fast MH's per-iteration guarantee (privacy/fastmh_guarantee.hpp, docs/dp-fast-mh.md):
// Lemma 1's sensitivities, the amplification bound of the noisy minibatch branch checked against
// the hockey-stick divergence of a worst-case pair integrated numerically, the calibration, the
// exact decision probabilities of the "privacy for free" branches, and the composition.
#include "privacy/fastmh_guarantee.hpp"

#include <gtest/gtest.h>

#include <boost/math/distributions/binomial.hpp>
#include <cmath>
#include <numbers>
#include <vector>

#include "core/error.hpp"
#include "privacy/classical_accountant.hpp"
#include "privacy/gaussian_calibration.hpp"
#include "privacy/planner.hpp"

namespace dpmcmc {
namespace {

// ---------------------------------------------------------------------------------------------
// Lemma 1.

// The largest artanh term of Algorithm 1 with C̄: x = C̄ c_i M / (c_i(2λ + C̄M)) when
// U_i(θ) − U_i(θ′) = c_i M; 2 artanh(x) must equal log(1 + C̄M/λ) = Δ(ℓ1)/2 (Appendix A).
TEST(FastMhGuarantee, Lemma1MinibatchSensitivityIsTwiceTheLargestTerm) {
  for (double cm : {0.01, 1.0, 74.25, 1e4}) {
    for (double lambda : {0.5, 10.0, 300.0}) {
      const double x = cm / (2 * lambda + cm);
      const double largest = 2 * std::atanh(x);
      EXPECT_NEAR(fastmh_minibatch_sensitivity(cm, 1.0, lambda), 2 * largest, 1e-12 * (1 + largest))
          << cm << " " << lambda;
      // Split C̄ and M differently: only the product matters.
      EXPECT_NEAR(fastmh_minibatch_sensitivity(cm / 4, 4.0, lambda),
                  fastmh_minibatch_sensitivity(cm, 1.0, lambda), 1e-12 * (1 + largest));
    }
  }
  // Full batch: one row moves ℓ2 by at most c̄M + c̄M.
  EXPECT_DOUBLE_EQ(fastmh_fullbatch_sensitivity(0.0198, 0.075), 2 * 0.0198 * 0.075);
}

// ---------------------------------------------------------------------------------------------
// Amplification by sampling with replacement.

// Closed forms at hand-checked points: q = 0.01, B = 10, ε_b = 1:
// 1 − 0.99^10 = 0.0956179249912, e − 1 = 1.718281828459, ε′ = log(1.164300) = 0.1521188.
TEST(FastMhGuarantee, AmplifiedEpsilonClosedForm) {
  const double g = 1 - std::pow(0.99, 10);
  EXPECT_NEAR(g, 0.0956179249912, 1e-12);
  EXPECT_NEAR(fastmh_amplified_epsilon(1.0, 0.01, 10), std::log(1 + g * (std::numbers::e - 1)),
              1e-14);
  EXPECT_NEAR(fastmh_amplified_epsilon(1.0, 0.01, 10), 0.1521188, 1e-6);
  EXPECT_EQ(fastmh_amplified_epsilon(1.0, 0.01, 0), 0.0);
  // Inverse.
  EXPECT_NEAR(fastmh_inner_epsilon(fastmh_amplified_epsilon(2.5, 2e-5, 59), 2e-5, 59), 2.5, 1e-9);
  EXPECT_TRUE(std::isinf(fastmh_inner_epsilon(0.1, 0.01, 0)));
}

// δ′ against a direct sum with Boost's binomial pmf and the analytic Gaussian δ.
TEST(FastMhGuarantee, AmplifiedDeltaIsTheBinomialMixture) {
  const double q = 0.05, eps = 0.7, nu = 1.3;
  const std::uint64_t b = 30;
  const boost::math::binomial_distribution<double> bin(static_cast<double>(b), q);
  double want = 0;
  for (std::uint64_t k = 1; k <= b; ++k) {
    want += boost::math::pdf(bin, static_cast<double>(k)) *
            analytic_gaussian_delta(static_cast<double>(k), nu, eps);
  }
  const double got = fastmh_amplified_delta(eps, nu, q, b);
  EXPECT_GE(got, want * (1 - 1e-12));  // an upper bound (the truncated tail is added)
  EXPECT_NEAR(got, want, 1e-10 * want);
  EXPECT_EQ(fastmh_amplified_delta(eps, nu, q, 0), 0.0);
}

// The hockey-stick divergence H_{e^ε}(P‖Q) = ∫ (p − e^ε q)_+ of the worst-case pair of the
// minibatch branch, by numerical integration. B draws, each a hit with probability q; every term
// lies in [−L, L]. Worst case: the non-hit draws and D′'s hits sit at −L and D's hits at +L, so
// after removing the common shift −BL,
//   P = Σ_k w_k N(2kL, σ²),  Q = N(0, σ²),  w = Binomial(B, q),  σ = ν·2L,
// (D′ is a point, D a mixture: the pair the amplification bound is tight for at one hit). The
// divergence is taken in both directions. No amplification theorem is involved: this is the
// independent value.
double worst_pair_hockey_stick(double eps, double nu, double q, int b, double half = 1.0) {
  const double sigma = nu * 2 * half;
  const boost::math::binomial_distribution<double> bin(b, q);
  std::vector<double> w(b + 1);
  int kmax = 0;
  for (int k = 0; k <= b; ++k) {
    w[k] = boost::math::pdf(bin, k);
    if (w[k] > 1e-30) kmax = k;
  }
  const double lo = -40 * sigma, hi = 2 * kmax * half + 40 * sigma;
  const int steps = 400000;
  const double h = (hi - lo) / steps;
  const double norm = 1 / (sigma * std::sqrt(2 * std::numbers::pi));
  double forward = 0, backward = 0;
  for (int s = 0; s <= steps; ++s) {
    const double y = lo + s * h;
    double p = 0;
    for (int k = 0; k <= kmax; ++k) {
      const double a = (y - 2 * k * half) / sigma;
      p += w[k] * std::exp(-0.5 * a * a);
    }
    const double qq = std::exp(-0.5 * (y / sigma) * (y / sigma));
    const double weight = (s == 0 || s == steps ? 0.5 : 1.0) * norm;  // trapezoid
    forward += weight * std::max(0.0, p - std::exp(eps) * qq);
    backward += weight * std::max(0.0, qq - std::exp(eps) * p);
  }
  return std::max(forward, backward) * h;
}

TEST(FastMhGuarantee, CertifiedMinibatchBoundHoldsForTheWorstPair) {
  // Small q and B so that several hits matter, and [ZhangZhang2023]'s setting (n = 50 000, K = 60).
  struct Case {
    double epsilon, delta;
    std::size_t n;
    std::uint64_t k;
    double slack;  // how far below δ the exact divergence may be
  };
  // The bound is near tight when a hit is rare (qB ≪ 1, the regime of large n: one hit
  // dominates); with qB = 0.35 or 0.39 the joint-convexity step over several hits loosens it.
  for (const Case& c : {Case{0.5, 1e-3, 20, 8, 10}, Case{0.2, 1e-4, 100, 40, 1000},
                        Case{0.05, 1e-5, 50000, 60, 3}}) {
    const FastMhCalibration cal = calibrate_fastmh(c.epsilon, c.delta, c.n, c.k);
    const int b = static_cast<int>(c.k - 1);
    const double exact =
        worst_pair_hockey_stick(c.epsilon, cal.minibatch_multiplier, cal.hit_rate, b);
    EXPECT_LE(exact, c.delta * (1 + 1e-6)) << "n " << c.n << " K " << c.k;
    // The certificate is not vacuous (measured: 8×, 216× and 2.2× below δ).
    EXPECT_GT(exact, c.delta / c.slack) << "n " << c.n << " K " << c.k;
    // ... and the bound is the smallest multiplier meeting δ by the theorem.
    EXPECT_GT(fastmh_amplified_delta(cal.inner_epsilon, cal.minibatch_multiplier * (1 - 1e-6),
                                     cal.hit_rate, c.k - 1),
              c.delta);
  }
}

// The paper's calibration ([ZhangZhang2023] Algorithm 2: σ1 = 6Kp√(2 log(2.5Kp/δ))/ε with
// p = max c_i/C = 1/n here) does not give (ε, δ) in its own setting (n = 50 000, K = 60, ε = 0.05,
// δ = 1e-5): the linearisation ε′ ≤ 6Kpε fails when ε/(6Kp) ≈ 6.9 and the classical Gaussian
// formula is used far outside ε < 1. The worst pair's exact divergence exceeds δ (measured: 1.4e-4,
// 14× δ).
TEST(FastMhGuarantee, PaperCalibrationFailsInItsOwnSetting) {
  const double eps = 0.05, delta = 1e-5, kp = 60.0 / 50000.0;
  const double sigma1 = 6 * kp * std::sqrt(2 * std::log(2.5 * kp / delta)) / eps;
  const double exact = worst_pair_hockey_stick(eps, sigma1, 1.0 / 50000, 59);
  EXPECT_GT(exact, 10 * delta);
  // Ours needs a larger multiplier.
  EXPECT_GT(calibrate_fastmh(eps, delta, 50000, 60).minibatch_multiplier, sigma1);
}

TEST(FastMhGuarantee, CalibrationFullBatchIsAnalyticGaussian) {
  const FastMhCalibration cal = calibrate_fastmh(0.05, 1e-5, 50000, 60);
  EXPECT_DOUBLE_EQ(cal.fullbatch_multiplier, analytic_gaussian_sigma(1.0, 0.05, 1e-5));
  EXPECT_LE(analytic_gaussian_delta(1.0, cal.fullbatch_multiplier, 0.05), 1e-5 * (1 + 1e-9));
  EXPECT_NEAR(cal.hit_rate, 2e-5, 1e-20);
  // K = 1: the minibatch branch has B = 0 and reads nothing.
  EXPECT_EQ(calibrate_fastmh(0.05, 1e-5, 100, 1).minibatch_multiplier, 0.0);
}

TEST(FastMhGuarantee, CalibrationRefusesBadInput) {
  EXPECT_THROW(calibrate_fastmh(0.0, 1e-5, 100, 10), ConfigError);
  EXPECT_THROW(calibrate_fastmh(-1.0, 1e-5, 100, 10), ConfigError);
  EXPECT_THROW(calibrate_fastmh(std::nan(""), 1e-5, 100, 10), ConfigError);
  EXPECT_THROW(calibrate_fastmh(0.1, 0.0, 100, 10), ConfigError);
  EXPECT_THROW(calibrate_fastmh(0.1, 1.0, 100, 10), ConfigError);
  EXPECT_THROW(calibrate_fastmh(0.1, 1e-5, 0, 10), ConfigError);
  try {
    calibrate_fastmh(0.1, 1e-5, 100, 0);
    FAIL() << "K = 0 accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("max_batch"), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------------------------------------
// "Privacy for free": exact decision probabilities of worst-case pairs.

// Full batch, no noise: P(accept | D) = min(1, e^{s}), s = ℓ2 + τ, and a neighbour has
// s′ ∈ [s − Δ2, s + Δ2]. Worst pair: s = 0, s′ = −Δ2. Accept probabilities 1 and e^{−Δ2}: their
// ratio is e^{Δ2} (the paper's bound) but reject probabilities are 0 and 1 − e^{−Δ2}.
TEST(FastMhGuarantee, FreeFullBatchWorstPairExact) {
  for (double d : {1e-6, 0.01, 0.05, 1.0}) {
    const double accept_d = std::min(1.0, std::exp(0.0));
    const double accept_n = std::min(1.0, std::exp(-d));
    const double reject_d = 1 - accept_d, reject_n = 1 - accept_n;
    // The paper's claim (Δ2, 0)-DP is violated on the reject outcome:
    EXPECT_GT(reject_n, std::exp(d) * reject_d + 0.0) << d;
    // Our certificate (0, 1 − e^{−Δ2}) holds on both outcomes, with equality: tight.
    const double cert = fastmh_free_fullbatch_delta(d);
    EXPECT_LE(reject_n - reject_d, cert * (1 + 1e-12));
    EXPECT_LE(accept_d - accept_n, cert * (1 + 1e-12));
    EXPECT_NEAR(reject_n - reject_d, cert, 1e-15);
    // And it holds over a sweep of s (every pair at distance Δ2, both orders).
    for (double s = -3; s <= 3; s += 0.001) {
      const double a = std::min(1.0, std::exp(s)), b = std::min(1.0, std::exp(s - d));
      EXPECT_LE(std::abs(a - b), cert * (1 + 1e-12) + 1e-16);
    }
  }
  // The paper's free threshold Δ2 ≤ ε = 0.05 means δ = 1 − e^{−0.05} ≈ 0.049 per iteration.
  EXPECT_NEAR(fastmh_free_fullbatch_delta(0.05), 0.0487706, 1e-6);
}

// Minibatch, no noise. Each of B draws is a hit with probability q; terms lie in [−L, L]; a hit
// is +L under D and −L under D′ (shift Δ1 = 2L), non-hits add the same c under both. Exact
// P(accept) = Σ_k w_k min(1, e^{S_k + τ}) by enumeration of the hit count, for both datasets.
TEST(FastMhGuarantee, FreeMinibatchWorstPairExact) {
  const double half = 0.8, q = 0.01;
  for (int b : {1, 5, 59}) {
    const boost::math::binomial_distribution<double> bin(b, q);
    const auto accept = [&](double hit, double c, double tau) {
      double a = 0;
      for (int k = 0; k <= b; ++k) {
        a += boost::math::pdf(bin, k) * std::min(1.0, std::exp(k * hit + (b - k) * c + tau));
      }
      return a;
    };
    const double cert = fastmh_free_minibatch_delta(2 * half, q, static_cast<std::uint64_t>(b));
    // Near-tight pair: c = 0, τ = −L (exact for B = 1).
    const double tv = std::abs(accept(half, 0, -half) - accept(-half, 0, -half));
    EXPECT_LE(tv, cert * (1 + 1e-12)) << b;
    EXPECT_GT(tv, 0.8 * cert) << b;
    if (b == 1) {
      EXPECT_NEAR(tv, cert, 1e-15);
    }
    // The certificate holds over a sweep of the common value and τ (one bit: TV = δ(0)).
    for (double c : {-half, 0.0, half}) {
      for (double tau = -60; tau <= 60; tau += 0.05) {
        EXPECT_LE(std::abs(accept(half, c, tau) - accept(-half, c, tau)), cert * (1 + 1e-12))
            << b << " " << c << " " << tau;
      }
    }
    // No pure ε: with c = 0, τ = 0 dataset D always accepts (S ≥ 0) while D′ rejects with
    // positive probability — the reject outcome has an unbounded ratio (the paper bounds only
    // the ratio of acceptance probabilities).
    EXPECT_NEAR(1 - accept(half, 0, 0), 0.0, 1e-15);
    EXPECT_GT(1 - accept(-half, 0, 0), 1e-3);
  }
  EXPECT_NEAR(fastmh_free_minibatch_delta(2 * half, q, 1), q * (1 - std::exp(-2 * half)), 1e-15);
}

// ---------------------------------------------------------------------------------------------
// Composition: recorded ≤ planned.

TEST(FastMhGuarantee, TemplateAndComposition) {
  const auto tpl = fastmh_template(0.05, 1e-7);
  ASSERT_EQ(tpl.size(), 1u);
  EXPECT_EQ(tpl[0].mechanism, Mechanism::approximate_dp);
  EXPECT_EQ(tpl[0].relation, Neighbouring::substitute);
  EXPECT_EQ(tpl[0].kind, ReleaseKind::fastmh);
  const ClassicalAccountant acc;
  const Budget budget{5.0, 1e-3};
  const IterationPlan plan = plan_iterations(budget, tpl, acc);
  ASSERT_GT(plan.iterations, 100u);
  // A homogeneous recorded log of `iterations` events: the same value as the plan.
  const auto log = repeat_iterations(tpl, plan.iterations);
  EXPECT_DOUBLE_EQ(fastmh_composed_epsilon(log, budget.delta), plan.epsilon_spent);
  EXPECT_DOUBLE_EQ(acc.compose(log)->epsilon(budget.delta), plan.epsilon_spent);
  // Some iterations free (0, δ_free ≤ δ): recorded ≤ planned with the dominated composition.
  std::vector<PrivacyEvent> mixed = log;
  PrivacyEvent free = tpl[0];
  free.epsilon = 0.0;
  free.delta = 0.5e-7;
  mixed[0].count = plan.iterations - 100;
  free.count = 100;
  mixed.push_back(free);
  EXPECT_LE(fastmh_composed_epsilon(mixed, budget.delta), plan.epsilon_spent);
  // The classical accountant alone drops to advanced composition on a mixed log (no optimal
  // composition): it reports more than planned here — why fastmh_composed_epsilon exists.
  EXPECT_GE(acc.compose(mixed)->epsilon(budget.delta),
            fastmh_composed_epsilon(mixed, budget.delta));
}

}  // namespace
}  // namespace dpmcmc
