#include "privacy/spend_meter.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/error.hpp"
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

// (ε, δ)-certified releases: basic/advanced composition of the certificates, written out.
TEST(SpendMeter, ApproximateDpByAdvancedComposition) {
  PrivacyEvent e;
  e.mechanism = Mechanism::approximate_dp;
  e.epsilon = 0.05;
  e.delta = 1e-9;
  e.count = 500;
  EventLog log;
  log.append(e);
  SpendMeter meter(1e-5);
  const double expected =
      std::min(500 * 0.05, advanced_composition_epsilon(0.05, 500, 1e-5 - 500 * 1e-9));
  EXPECT_NEAR(meter.epsilon(log), expected, 1e-12 * expected);
}

TEST(SpendMeter, RefusesBadDelta) {
  EXPECT_THROW(SpendMeter(0.0), ConfigError);
  EXPECT_THROW(SpendMeter(1.0), ConfigError);
}

}  // namespace
}  // namespace dpmcmc
