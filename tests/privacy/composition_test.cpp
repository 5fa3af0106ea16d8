// (ε, δ) composition: advanced composition ([Yildirim2020] Theorem 3), the optimal
// homogeneous composition of Kairouz, Oh and Viswanath (Theorem 3.3), and the classical
// accountant built on them.
#include "privacy/composition.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <vector>

#include "core/error.hpp"
#include "privacy/classical_accountant.hpp"

namespace dpmcmc {
namespace {

// Independent value: the hockey-stick divergence max(0, P − e^{ε_g} Q) summed over every outcome
// of k independent copies of the dominating pair of an (ε, δ)-DP mechanism:
//   P = {reveal_P: δ, 1: (1−δ)e^ε/(1+e^ε), 0: (1−δ)/(1+e^ε)},
//   Q = {reveal_Q: δ, 1: (1−δ)/(1+e^ε), 0: (1−δ)e^ε/(1+e^ε)}
// (Kairouz, Oh and Viswanath 2015, Section 3). 4^k outcomes, no binomial formula involved.
double brute_force_delta(double eps, double delta, int k, double eps_g) {
  const double p1 = (1 - delta) * std::exp(eps) / (1 + std::exp(eps));
  const double p0 = (1 - delta) / (1 + std::exp(eps));
  const double P[4] = {delta, 0.0, p1, p0};  // reveal_P, reveal_Q, 1, 0
  const double Q[4] = {0.0, delta, p0, p1};
  double total = 0.0;
  std::vector<int> digits(k, 0);
  for (long index = 0; index < (1L << (2 * k)); ++index) {
    long rest = index;
    double p = 1.0, q = 1.0;
    for (int i = 0; i < k; ++i) {
      const int d = static_cast<int>(rest % 4);
      rest /= 4;
      p *= P[d];
      q *= Q[d];
    }
    total += std::max(0.0, p - std::exp(eps_g) * q);
  }
  return total;
}

TEST(OptimalComposition, MatchesExhaustiveEnumeration) {
  for (double eps : {0.1, 0.5, 1.3}) {
    for (double delta : {0.0, 1e-3}) {
      for (int k : {1, 3, 7}) {
        const OptimalHomogeneousComposition kov(eps, delta, k);
        for (double eps_g : {0.0, 0.05, 0.4, 1.0, 2.5, k * eps}) {
          const double want = brute_force_delta(eps, delta, k, eps_g);
          // Sums of ≤ 16384 positive terms: agreement to 1e-12 absolute is rounding only.
          EXPECT_NEAR(kov.delta(eps_g), want, 1e-12)
              << "eps=" << eps << " delta=" << delta << " k=" << k << " eps_g=" << eps_g;
        }
      }
    }
  }
}

TEST(OptimalComposition, TheoremGridFormula) {
  // Theorem 3.3 as stated: at ε_g = (k − 2i)ε, δ_total = 1 − (1 − δ)^k (1 − δᵢ) with
  // δᵢ = Σ_{ℓ<i} C(k,ℓ)(e^{(k−ℓ)ε} − e^{(k−2i+ℓ)ε})/(1 + e^ε)^k, summed directly for k = 20.
  const double eps = 0.3, delta = 1e-4;
  const int k = 20;
  const OptimalHomogeneousComposition kov(eps, delta, k);
  for (int i = 0; i <= k / 2; ++i) {
    double di = 0.0;
    for (int l = 0; l < i; ++l)
      di += std::tgamma(k + 1.0) / (std::tgamma(l + 1.0) * std::tgamma(k - l + 1.0)) *
            (std::exp((k - l) * eps) - std::exp((k - 2 * i + l) * eps)) /
            std::pow(1 + std::exp(eps), k);
    const double want = 1 - std::pow(1 - delta, k) * (1 - di);
    EXPECT_NEAR(kov.delta((k - 2 * i) * eps), want, 1e-13) << i;
  }
}

TEST(OptimalComposition, ExtremesOfTheDeltaTerm) {
  const double eps = 0.2, delta = 1e-6;
  const std::uint64_t k = 50;
  const OptimalHomogeneousComposition kov(eps, delta, k);
  const double floor_delta = -std::expm1(50 * std::log1p(-delta));  // 1 − (1 − δ)^k
  // i = 0: ε_g = kε costs only the δ-terms; nothing smaller reaches that δ.
  EXPECT_NEAR(kov.delta(k * eps), floor_delta, 1e-18);
  // Just above that δ the pure part may be ~5e-19 > 0: the heaviest loss kε has probability
  // (e^ε/(1+e^ε))^k ≈ 1e-13, so 1 − e^{ε_g − kε} ≈ 5e-6 and ε_g = kε(1 − 5e-7).
  EXPECT_NEAR(kov.epsilon(floor_delta * (1 + 1e-14)), k * eps, 1e-5 * k * eps);
  EXPECT_EQ(kov.epsilon(floor_delta * (1 - 1e-6)), INFINITY);
  // Further above, ε decreases continuously: δ = floor + 5e-14 needs ε_g ≈ kε − ln 2 − … < kε.
  const double eps_mid = kov.epsilon(floor_delta * (1 + 1e-9));
  EXPECT_LT(eps_mid, k * eps - 0.3);
  EXPECT_NEAR(kov.delta(eps_mid), floor_delta * (1 + 1e-9), 1e-17);
  // δ at or above δ(0) needs no ε at all.
  EXPECT_EQ(kov.epsilon(std::min(0.99, kov.delta(0.0) * 1.01)), 0.0);
}

TEST(OptimalComposition, NeverWorseThanAdvancedComposition) {
  for (double eps : {0.01, 0.1, 0.5}) {
    for (std::uint64_t k : {10u, 100u, 10000u}) {
      const double delta = 1e-8;
      const OptimalHomogeneousComposition kov(eps, delta, k);
      for (double slack : {1e-3, 1e-6, 1e-10}) {
        const double adv = advanced_composition_epsilon(eps, k, slack);
        EXPECT_LE(kov.epsilon(k * delta + slack), std::min(adv, k * eps) * (1 + 1e-12))
            << eps << " " << k << " " << slack;
      }
    }
  }
}

TEST(OptimalComposition, LargeKInLogSpace) {
  // k = 10⁵ with ε = 0.01: (1 + e^ε)^k = e^{69 000} overflows; the log-space sum does not.
  const auto start = std::chrono::steady_clock::now();
  const OptimalHomogeneousComposition kov(0.01, 1e-9, 100000);
  const double eps = kov.epsilon(1e-3);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(std::isfinite(eps));
  EXPECT_NEAR(kov.delta(eps), 1e-3, 1e-9);
  // The central limit regime: privacy loss ≈ N(kε tanh(ε/2), kε²), so ε(δ) is close to the
  // Gaussian value kε²/2 + √k ε Φ⁻¹(1 − δ)-ish; check the bracket [advanced/3, advanced].
  const double adv = advanced_composition_epsilon(0.01, 100000, 1e-3 - 1e-4);
  EXPECT_LT(eps, adv);
  EXPECT_GT(eps, adv / 3);
  EXPECT_LT(seconds, 5.0);  // generous: ~0.05 s in Release
  // Large ε per step: log weights up to kε = 5e4 stay finite.
  const OptimalHomogeneousComposition big(50.0, 0.0, 1000);
  EXPECT_TRUE(std::isfinite(big.epsilon(1e-10)));
  EXPECT_LE(big.epsilon(1e-10), 50.0 * 1000);
}

TEST(AdvancedComposition, Theorem3Formula) {
  // ε′ = √(2k ln(1/δ′)) ε + kε(e^ε − 1) for k = 100, ε = 0.1, δ′ = 1e-5.
  const double want = std::sqrt(200.0 * std::log(1e5)) * 0.1 + 100 * 0.1 * (std::exp(0.1) - 1);
  EXPECT_NEAR(advanced_composition_epsilon(0.1, 100, 1e-5), want, 1e-12);
  // Heterogeneous form with equal εᵢ reduces to Theorem 3.
  ApproxDpSums sums;
  sums.add(0.1, 1e-7, 100);
  EXPECT_NEAR(composed_epsilon_basic_advanced(sums, 100 * 1e-7 + 1e-5), want, 1e-12);
  // Basic composition wins for few releases.
  ApproxDpSums few;
  few.add(0.5, 0.0, 2);
  EXPECT_DOUBLE_EQ(composed_epsilon_basic_advanced(few, 1e-6), 1.0);
  // δ(ε) inverts ε(δ) on the advanced branch.
  EXPECT_NEAR(composed_delta_basic_advanced(sums, want), 100 * 1e-7 + 1e-5, 1e-15);
  EXPECT_EQ(composed_epsilon_basic_advanced(sums, 1e-6), INFINITY);  // δ < Σδᵢ
}

PrivacyEvent adp(double eps, double delta, std::uint64_t count) {
  PrivacyEvent e;
  e.mechanism = Mechanism::approximate_dp;
  e.epsilon = eps;
  e.delta = delta;
  e.count = count;
  return e;
}

TEST(ClassicalAccountant, OptimalAtTheLargestEpsilonDeltaBoundsMixedLists) {
  const ClassicalAccountant accountant;
  const std::vector<PrivacyEvent> same{adp(0.05, 1e-7, 300), adp(0.05, 1e-7, 700)};
  const auto profile = accountant.compose(same);
  const OptimalHomogeneousComposition kov(0.05, 1e-7, 1000);
  EXPECT_DOUBLE_EQ(profile->epsilon(1e-3), kov.epsilon(1e-3));
  EXPECT_TRUE(dynamic_cast<const ClassicalProfile&>(*profile).uses_optimal_composition());

  // A mixed list: the better of advanced composition of the actual (εᵢ, δᵢ) and the optimal
  // composition of 1000 mechanisms at (max ε, max δ) = (0.1, 1e-7).
  const std::vector<PrivacyEvent> mixed{adp(0.05, 1e-7, 300), adp(0.1, 0.0, 700)};
  const auto p2 = accountant.compose(mixed);
  ApproxDpSums sums;
  sums.add(0.05, 1e-7, 300);
  sums.add(0.1, 0.0, 700);
  const OptimalHomogeneousComposition worst(0.1, 1e-7, 1000);
  EXPECT_DOUBLE_EQ(p2->epsilon(1e-3),
                   std::min(composed_epsilon_basic_advanced(sums, 1e-3), worst.epsilon(1e-3)));
  // A log of worst-case events plus a few cheaper ones never costs more than the all-worst-case
  // plan (DP-Fast MH records cheaper (0, δ) events on its free branch).
  const std::vector<PrivacyEvent> planned{adp(0.05, 1e-7, 1000)};
  const std::vector<PrivacyEvent> recorded{adp(0.05, 1e-7, 990), adp(0.0, 1e-8, 10)};
  EXPECT_LE(accountant.compose(recorded)->epsilon(1e-3),
            accountant.compose(planned)->epsilon(1e-3));
  // Certified ε is monotone: decreasing in δ, increasing in compositions.
  double previous = INFINITY;
  for (double delta : {1e-5, 1e-4, 1e-3, 1e-2}) {
    const double e = profile->epsilon(delta);
    EXPECT_LE(e, previous);
    previous = e;
  }
  const std::vector<PrivacyEvent> more{adp(0.05, 1e-7, 1001)};
  EXPECT_GT(accountant.compose(more)->epsilon(1e-3), profile->epsilon(1e-3));
}

TEST(ClassicalAccountant, RejectsGaussianEvents) {
  PrivacyEvent g;
  const std::vector<PrivacyEvent> events{g};
  EXPECT_THROW(ClassicalAccountant().compose(events), ConfigError);
}

}  // namespace
}  // namespace dpmcmc
