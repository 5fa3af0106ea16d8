#include "privacy/spend_meter.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "privacy/barker_accounting.hpp"
#include "privacy/composition.hpp"
#include "privacy/gaussian_pld.hpp"
#include "privacy/rdp_accountant.hpp"
#include "test_events.hpp"

namespace dpmcmc {
namespace {

using test::gaussian_event;
using test::subsampled_event;

TEST(SpendMeter, EmptyLogSpendsNothing) {
  SpendMeter meter(1e-6);
  EXPECT_EQ(meter.epsilon(EventLog{}), 0.0);
}

// Full-batch Gaussian releases: the closed form of the Gaussian PLD, checked against the
// composition of k releases with multiplier m being one release with multiplier m/√k
// (μ = √k/m in GDP terms), evaluated independently by the PLD profile.
TEST(SpendMeter, FullBatchMatchesClosedFormGaussianComposition) {
  SpendMeter meter(1e-5);
  EventLog log;
  log.append(gaussian_event(30.0, 400));
  const double expected = GaussianPldProfile(0.5 * 400.0 / (30.0 * 30.0)).epsilon(1e-5);
  EXPECT_NEAR(meter.epsilon(log), expected, 1e-9 * expected);
  // The same budget as one release of multiplier 30/√400 = 1.5.
  EventLog single;
  single.append(gaussian_event(1.5, 1));
  EXPECT_NEAR(meter.epsilon(single), expected, 1e-9 * expected);
}

// Subsampled releases: the RDP accountant with the same grid and no refinement composes the
// events by its own path (groups, RdpProfile); the meter's cached curves must give the same ε,
// and adding releases must reuse the cache without changing the answer's definition.
TEST(SpendMeter, SubsampledMatchesRdpAccountantWithoutRefinement) {
  RdpOptions options;
  options.refine = false;
  const RdpAccountant rdp(options);
  SpendMeter meter(1e-6);
  EventLog log;
  for (int step = 0; step < 3; ++step) {
    log.append(subsampled_event(Sampling::without_replacement, 0.01, 1.2, 250));
    const double expected = rdp.compose(log.events())->epsilon(1e-6);
    EXPECT_NEAR(meter.epsilon(log), expected, 1e-12 * expected) << "step " << step;
  }
  EventLog poisson;
  poisson.append(subsampled_event(Sampling::poisson, 0.02, 0.9, 1000));
  const double expected = rdp.compose(poisson.events())->epsilon(1e-6);
  EXPECT_NEAR(meter.epsilon(poisson), expected, 1e-12 * expected);
}

// (ε, δ)-certified releases: the optimal composition (KOV) at the next grid count when it beats
// basic/advanced composition, which it does here by a wide margin; never below KOV at the count
// itself (the certified value), and within the grid's step above it.
TEST(SpendMeter, ApproximateDpByOptimalCompositionOnAGrid) {
  PrivacyEvent e;
  e.mechanism = Mechanism::approximate_dp;
  e.epsilon = 0.05;
  e.delta = 1e-9;
  e.count = 500;
  EventLog log;
  log.append(e);
  SpendMeter meter(1e-5);
  const double advanced =
      std::min(500 * 0.05, advanced_composition_epsilon(0.05, 500, 1e-5 - 500 * 1e-9));
  const double exact = OptimalHomogeneousComposition(0.05, 1e-9, 500).epsilon(1e-5);
  const double on_grid =
      OptimalHomogeneousComposition(0.05, 1e-9, kov_grid_count(500)).epsilon(1e-5);
  EXPECT_EQ(meter.epsilon(log), on_grid);
  EXPECT_LT(on_grid, 0.9 * advanced);
  EXPECT_GE(on_grid, exact);
  EXPECT_LE(on_grid, 1.05 * exact);  // ε grows like √k: a 5% step in k is ≤ 2.5% in ε, roughly
  // Heterogeneous certificates: KOV over the total count at the largest (ε, δ).
  PrivacyEvent cheap = e;
  cheap.epsilon = 0.01;
  cheap.count = 100;
  log.append(cheap);
  EXPECT_EQ(meter.epsilon(log),
            OptimalHomogeneousComposition(0.05, 1e-9, kov_grid_count(600)).epsilon(1e-5));
  // One release: grid count 1, so KOV exactly, which uses the slack δ − δ₁ to go just below the
  // certificate's ε (basic composition's value).
  EventLog few;
  PrivacyEvent one = e;
  one.count = 1;
  few.append(one);
  const double single = SpendMeter(1e-5).epsilon(few);
  EXPECT_EQ(single, OptimalHomogeneousComposition(0.05, 1e-9, 1).epsilon(1e-5));
  EXPECT_LE(single, 0.05);
  EXPECT_GT(single, 0.049);
}

// Counts between the last grid count below the KOV limit (⌈1.05^311⌉ = 3 889 306) and the limit
// (4·10⁶) are evaluated at the limit itself, not given up to advanced composition; above the
// limit only basic/advanced composition remain.
TEST(SpendMeter, ApproximateDpNearTheOptimalCompositionLimit) {
  PrivacyEvent e;
  e.mechanism = Mechanism::approximate_dp;
  e.epsilon = 1e-4;
  e.delta = 1e-13;
  e.count = 3'950'000;
  EventLog log;
  log.append(e);
  SpendMeter meter(1e-5);
  ApproxDpSums sums;
  sums.add(1e-4, 1e-13, 3'950'000);
  const double advanced = composed_epsilon_basic_advanced(sums, 1e-5);
  const double at_limit =
      OptimalHomogeneousComposition(1e-4, 1e-13, kOptimalCompositionMaxK).epsilon(1e-5);
  EXPECT_EQ(meter.epsilon(log), std::min(advanced, at_limit));
  EXPECT_LT(at_limit, advanced);
  EventLog beyond;
  e.count = kOptimalCompositionMaxK + 1;
  beyond.append(e);
  ApproxDpSums more;
  more.add(1e-4, 1e-13, kOptimalCompositionMaxK + 1);
  EXPECT_EQ(meter.epsilon(beyond), composed_epsilon_basic_advanced(more, 1e-5));
}

// DP Barker's releases: shown as the barker-rdp accountant certifies them (the route that plans
// a Barker run), not by the classical composition of their per-iteration certificates, which on
// [ZhangZhang2023]'s mixture setting (batch 1000 of 50 000 rows, σ² = 2) is about ten times larger.
TEST(SpendMeter, BarkerReleasesAsTheBarkerRdpAccountantComposesThem) {
  const double delta = 1e-5;
  PrivacyEvent e = dp_barker_event(2.0, 1000, 50000);
  e.count = 13641;
  EventLog log;
  log.append(e);
  SpendMeter meter(delta);
  const double shown = meter.epsilon(log);
  const std::vector<PrivacyEvent> events = {e};
  EXPECT_DOUBLE_EQ(shown, BarkerRdpAccountant().compose(events)->epsilon(delta));
  // The event carries σ = √2; decoded, σ² is 2 to the last bit or two.
  const double variance = e.noise_sd * e.noise_sd;
  EXPECT_DOUBLE_EQ(shown, barker_epsilon(13641, 1000.0 / 50000, 1000, variance, delta).value);
  ApproxDpSums sums;
  sums.add(e.epsilon, e.delta, e.count);
  EXPECT_LT(3 * shown, composed_epsilon_basic_advanced(sums, delta));
  EXPECT_LT(shown, 20.0);  // the budget that planned 13 641 iterations
  // Two batch sizes: each curve counted with its count, on the orders admissible for both.
  PrivacyEvent small = dp_barker_event(2.0, 400, 50000);
  small.count = 500;
  log.append(small);
  const std::vector<PrivacyEvent> both = {e, small};
  EXPECT_DOUBLE_EQ(meter.epsilon(log), BarkerRdpAccountant().compose(both)->epsilon(delta));
  EXPECT_GT(meter.epsilon(log), shown);
}

// The grid counts ⌈1.05^j⌉: the smallest one ≥ k, found independently by walking j upward.
TEST(SpendMeter, KovGridCount) {
  for (std::uint64_t k : {1ull, 2ull, 3ull, 21ull, 100ull, 4746ull, 17704ull, 1000000ull}) {
    std::uint64_t g = 1;
    for (int j = 0; g < k; ++j) g = static_cast<std::uint64_t>(std::ceil(std::pow(1.05, j)));
    EXPECT_EQ(kov_grid_count(k), g) << k;
  }
  EXPECT_EQ(kov_grid_count(100), 104u);  // ⌈1.05^94⌉ = 99 < 100 ≤ ⌈1.05^95⌉ = 104
  // Saturation above the last grid count below 2^64 (⌈1.05^909⌉ ≈ 1.82e19), and no hang.
  EXPECT_EQ(kov_grid_count(std::numeric_limits<std::uint64_t>::max()),
            std::numeric_limits<std::uint64_t>::max());
  EXPECT_GE(kov_grid_count(18'000'000'000'000'000'000ull), 18'000'000'000'000'000'000ull);
}

TEST(SpendMeter, RefusesBadDelta) {
  EXPECT_THROW(SpendMeter(0.0), ConfigError);
  EXPECT_THROW(SpendMeter(1.0), ConfigError);
}

}  // namespace
}  // namespace dpmcmc
