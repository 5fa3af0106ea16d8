// DP Barker accounting ([Raisa2021] Theorem 3.3; privacy/barker_accounting.hpp):
// the formula against a direct evaluation written out here, the batch mechanism's bound against
// the exact Rényi divergence of two Gaussians, the batch-variance sensitivity against brute force,
// the planner's iteration counts on the thesis setting (b = 1300, n = 10⁵, δ = 0.1/n, ε = 1…6)
// against an independent count, and recorded = planned.
#include "privacy/barker_accounting.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <vector>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "privacy/accountants.hpp"
#include "privacy/classical_accountant.hpp"
#include "privacy/planner.hpp"
#include "privacy/rdp_accountant.hpp"

namespace dpmcmc {
namespace {

// Theorem 3.3 with σ² = 2, as printed: ε′(α) = 5/(2b) + ln(2b/(b−5α))/(2(α−1)) + 2α/(b−5α) and
// ε(α) = ln(1 + q²C(α,2)min{4(e^{ε′(2)}−1), 2e^{ε′(2)}} + 2Σ_{j≥3} q^j C(α,j)e^{(j−1)ε′(j)})/(α−1),
// in long double with the binomials as products (no log space): valid for the small orders
// where nothing overflows.
long double thesis_base(long double a, long double b) {
  return 5.0L / (2.0L * b) + std::log(2.0L * b / (b - 5.0L * a)) / (2.0L * (a - 1.0L)) +
         2.0L * a / (b - 5.0L * a);
}
long double binom(int a, int j) {
  long double c = 1.0L;
  for (int i = 1; i <= j; ++i) c = c * (a - j + i) / i;
  return c;
}
long double thesis_rdp(int alpha, long double q, long double b) {
  const long double e2 = thesis_base(2, b);
  long double s =
      1.0L + q * q * binom(alpha, 2) * std::min(4.0L * (std::exp(e2) - 1.0L), 2.0L * std::exp(e2));
  for (int j = 3; j <= alpha; ++j)
    s += 2.0L * std::pow(q, j) * binom(alpha, j) * std::exp((j - 1) * thesis_base(j, b));
  return std::log(s) / (alpha - 1);
}

TEST(BarkerAccounting, BatchBoundIsTheoremThreePointThreeAtNoiseVarianceTwo) {
  for (std::size_t b : {16u, 100u, 1300u, 2600u}) {
    for (int a = 2; 5 * a < static_cast<int>(b); a += std::max(1, static_cast<int>(b) / 40)) {
      const double expect = static_cast<double>(thesis_base(a, static_cast<long double>(b)));
      EXPECT_NEAR(barker_batch_rdp(a, b, 2.0), expect, 1e-13 * expect) << b << " " << a;
    }
    EXPECT_EQ(barker_batch_rdp(static_cast<double>(b) / 5.0, b, 2.0),
              std::numeric_limits<double>::infinity());
  }
  EXPECT_EQ(barker_max_order(1300, 2.0), 259u);  // 2 < α < 260
  EXPECT_EQ(barker_max_order(1301, 2.0), 260u);
  EXPECT_EQ(barker_max_order(16, 2.0), 3u);
  EXPECT_EQ(barker_max_order(15, 2.0), 2u);  // no order 3 ≤ α < 3
}

// ε′ bounds the Rényi divergence D_α(N(μ1, v1) ‖ N(μ0, v0)) of every admissible pair of batch
// mechanisms: |μ1 − μ0| ≤ 2/√b, v = σ² − σ_b² ∈ [σ² − 1, σ²], |v1 − v0| ≤ 5/b. Exact divergence:
// α(Δμ)²/(2v_α) + ln(v0^α v1^{1−α}/v_α)/(2(α−1)), v_α = αv0 + (1−α)v1 (Gil, Alajaji, Linder 2013).
TEST(BarkerAccounting, BatchBoundDominatesTheGaussianDivergenceOfEveryAdmissiblePair) {
  for (double s2 : {1.5, 2.0, 3.0}) {
    const std::size_t b = 200;
    const double bd = static_cast<double>(b);
    const double dmu2 = 4.0 / bd;
    for (std::uint64_t a = 2; a <= barker_max_order(b, s2); ++a) {
      const double ad = static_cast<double>(a);
      const double bound = barker_batch_rdp(ad, b, s2);
      double worst = 0.0;
      for (int i = 0; i <= 20; ++i) {
        const double v1 = (s2 - 1.0) + i / 20.0;
        for (int k = -10; k <= 10; ++k) {
          const double v0 = v1 + 5.0 / bd * k / 10.0;
          if (v0 < s2 - 1.0 || v0 > s2) continue;
          const double va = ad * v0 + (1.0 - ad) * v1;
          if (!(va > 0.0)) continue;
          const double d =
              ad * dmu2 / (2.0 * va) +
              (ad * std::log(v0) + (1.0 - ad) * std::log(v1) - std::log(va)) / (2.0 * (ad - 1.0));
          worst = std::max(worst, d);
        }
      }
      EXPECT_LE(worst, bound) << "σ² " << s2 << " α " << a;
    }
  }
}

// σ_b² = var_B(u)/b with u = nT·r ∈ [−√b, √b] (population variance) is ≤ 1, and one substitution
// moves it by at most 4(b−1)/b² < 5/b; the extreme configuration attains 4(b−1)/b².
double batch_var(const std::vector<double>& u) {
  const double b = static_cast<double>(u.size());
  double m = 0.0, s = 0.0;
  for (double x : u) m += x / b;
  for (double x : u) s += (x - m) * (x - m) / b;
  return s / b;
}

TEST(BarkerAccounting, BatchVarianceIsAtMostOneAndItsSensitivityBelowFiveOverB) {
  Rng rng = make_rng(5, 0);
  for (std::size_t b : {6u, 7u, 10u, 31u}) {
    const double bd = static_cast<double>(b), root = std::sqrt(bd);
    double worst = 0.0, largest = 0.0;
    std::vector<double> u(b);
    for (int trial = 0; trial < 20000; ++trial) {
      // Values at the ends of the range or uniform inside, to reach the extremes.
      for (auto& x : u)
        x = trial % 2 ? (rng.uniform() < 0.5 ? -root : root) : root * (2.0 * rng.uniform() - 1.0);
      largest = std::max(largest, batch_var(u));
      std::vector<double> w = u;
      w[0] = trial % 3 ? -w[0] : root * (2.0 * rng.uniform() - 1.0);
      worst = std::max(worst, std::abs(batch_var(u) - batch_var(w)));
    }
    // The extreme pair: b − 1 rows at +√b, the changed row +√b → −√b.
    std::vector<double> hi(b, root), lo(b, root);
    lo[0] = -root;
    const double extreme = std::abs(batch_var(hi) - batch_var(lo));
    EXPECT_NEAR(extreme, 4.0 * (bd - 1.0) / (bd * bd), 1e-12);
    EXPECT_LE(largest, 1.0 + 1e-12);
    EXPECT_LE(worst, 4.0 * (bd - 1.0) / (bd * bd) + 1e-12);
    EXPECT_LT(4.0 * (bd - 1.0) / (bd * bd), 5.0 / bd);
  }
}

TEST(BarkerAccounting, PerIterationCurveMatchesTheWrittenOutTheorem) {
  const double q = 1300.0 / 1e5;
  for (int a = 3; a <= 60; ++a) {
    const double expect = static_cast<double>(thesis_rdp(a, q, 1300.0L));
    EXPECT_NEAR(barker_rdp(static_cast<std::uint64_t>(a), q, 1300, 2.0), expect, 1e-11 * expect)
        << a;
  }
  EXPECT_EQ(barker_rdp(260, q, 1300, 2.0), std::numeric_limits<double>::infinity());
  // Log space keeps the top orders finite (the terms e^{(j−1)ε′(j)} overflow doubles there).
  EXPECT_TRUE(std::isfinite(barker_rdp(259, q, 1300, 2.0)));
}

// Independent count: for each admissible integer order, the largest k with
// k·ε(α) + ln(1/δ)/(α−1) ≤ ε (Theorem 2.5), ε(α) from the written-out theorem (orders ≤ 120,
// where long double does not overflow; the optimum lies far below, checked).
std::uint64_t independent_iterations(double eps, double delta, double q, int b) {
  std::uint64_t best = 0;
  int best_order = 0;
  for (int a = 3; a <= 120 && 5 * a < b; ++a) {
    const long double per = thesis_rdp(a, q, b);
    const long double room = eps - std::log(1.0L / delta) / (a - 1);
    if (room <= 0) continue;
    const auto k = static_cast<std::uint64_t>(std::floor(room / per));
    if (k > best) best = k, best_order = a;
  }
  EXPECT_LT(best_order, 100);
  return best;
}

TEST(BarkerAccounting, ThesisIterationCountsMatchAnIndependentEvaluation) {
  const std::size_t n = 100000, b = 1300;
  const double delta = 0.1 / static_cast<double>(n);
  const double q = static_cast<double>(b) / static_cast<double>(n);
  const auto tmpl = dp_barker_template(2.0, b, n);
  const BarkerRdpAccountant acc;
  for (int eps = 1; eps <= 6; ++eps) {
    const std::uint64_t k_ind = independent_iterations(eps, delta, q, static_cast<int>(b));
    const std::uint64_t k_closed = barker_iterations(eps, delta, q, b, 2.0);
    const IterationPlan plan = plan_iterations({double(eps), delta}, tmpl, acc);
    EXPECT_EQ(k_closed, k_ind) << "ε = " << eps;
    EXPECT_EQ(plan.iterations, k_ind) << "ε = " << eps;
    const auto opt = barker_epsilon(plan.iterations, q, b, 2.0, delta);
    RecordProperty("iterations_eps" + std::to_string(eps), std::to_string(plan.iterations));
    std::printf("dp-barker b=1300 n=1e5 δ=1e-6 ε=%d: k=%llu (order %llu, ε spent %.6f)\n", eps,
                static_cast<unsigned long long>(plan.iterations),
                static_cast<unsigned long long>(opt.order), opt.value);
  }
}

TEST(BarkerAccounting, RecordedEqualsPlannedAndOnlyBarkerAwareAccountantsInterpret) {
  const auto tmpl = dp_barker_template(2.0, 1300, 100000);
  ASSERT_EQ(tmpl.size(), 1u);
  std::vector<PrivacyEvent> recorded(5000, tmpl[0]);  // one event per release, as recorded
  const BarkerRdpAccountant acc;
  const double planned = iterations_spend(acc, tmpl, 5000, 1e-6);
  EXPECT_DOUBLE_EQ(acc.compose(recorded)->epsilon(1e-6), planned);
  EXPECT_DOUBLE_EQ(planned, barker_epsilon(5000, 0.013, 1300, 2.0, 1e-6).value);
  // No Gaussian-family accountant claims to understand the release (it is not a Gaussian
  // mechanism); the classical composition of the per-iteration certificate is valid and looser.
  EXPECT_FALSE(RdpAccountant{}.supports(tmpl[0]));
  const ClassicalAccountant classical;
  ASSERT_TRUE(classical.supports(tmpl[0]));
  EXPECT_GT(classical.compose(recorded)->epsilon(1e-6), planned);
  // The certificate: one iteration at δ₁.
  EXPECT_DOUBLE_EQ(tmpl[0].epsilon, barker_epsilon(1, 0.013, 1300, 2.0, kBarkerEventDelta).value);
  EXPECT_EQ(tmpl[0].delta, kBarkerEventDelta);
  // Decoding.
  BarkerEventParams p;
  ASSERT_TRUE(decode_barker_event(tmpl[0], p));
  EXPECT_EQ(p.batch, 1300u);
  EXPECT_DOUBLE_EQ(p.q, 0.013);
  EXPECT_NEAR(p.noise_variance, 2.0, 1e-15);
  PrivacyEvent other = tmpl[0];
  other.kind = ReleaseKind::llr_batch;
  EXPECT_FALSE(acc.supports(other));
  // Empty log: nothing spent. δ(ε) inverts ε(δ).
  EXPECT_EQ(acc.compose(std::vector<PrivacyEvent>{})->epsilon(1e-6), 0.0);
  const auto prof = acc.compose(recorded);
  EXPECT_LE(prof->delta(planned), 1e-6 * (1.0 + 1e-9));
  // A built-in accountant, by name.
  EXPECT_EQ(make_accountant("barker-rdp")->name(), "barker-rdp");
  const auto names = accountants_supporting(tmpl);
  EXPECT_NE(std::find(names.begin(), names.end(), "barker-rdp"), names.end());
}

TEST(BarkerAccounting, BadParametersAreRefusedNamingTheOption) {
  auto message = [](double s2, std::size_t b, std::size_t n) {
    try {
      validate_barker(s2, b, n);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const double top = std::numbers::pi * std::numbers::pi / 3.0;
  EXPECT_NE(message(top, 1300, 100000).find("--noise-variance"), std::string::npos);
  EXPECT_NE(message(0.0, 1300, 100000).find("--noise-variance"), std::string::npos);
  EXPECT_NE(message(-1.0, 1300, 100000).find("--noise-variance"), std::string::npos);
  EXPECT_NE(message(1.0, 1300, 100000).find("--noise-variance"), std::string::npos);
  EXPECT_NE(message(std::nan(""), 1300, 100000).find("--noise-variance"), std::string::npos);
  EXPECT_NE(message(2.0, 5, 100000).find("--batch"), std::string::npos);
  EXPECT_NE(message(2.0, 1300, 1000).find("n = 1000"), std::string::npos);
  EXPECT_NE(message(2.0, 15, 1000).find("--batch"), std::string::npos);  // no order
  EXPECT_EQ(message(2.0, 16, 1000), "");
  EXPECT_EQ(message(3.2, 1300, 1300), "");
}

}  // namespace
}  // namespace dpmcmc
