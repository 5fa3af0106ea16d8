// ReleaseAllowance (release_allowance.hpp): a release is admitted only by a planned slot of its
// kind whose calibration it matches at least as privately. Each refusal rule gets a release that
// breaks exactly it, next to one that differs only where the plan allows (more noise, a smaller
// sensitivity, a smaller ε), so that a rule dropped or reversed fails here.
#include "privacy/release_allowance.hpp"

#include <gtest/gtest.h>

#include <string>

namespace dpmcmc {
namespace {

PrivacyEvent gaussian(ReleaseKind kind, double sensitivity, double noise_sd) {
  PrivacyEvent e;
  e.kind = kind;
  e.mechanism = Mechanism::gaussian;
  e.sensitivity = sensitivity;
  e.noise_sd = noise_sd;
  e.relation = Neighbouring::substitute;
  return e;
}

PrivacyEvent subsampled(double rate, Sampling sampling, Neighbouring relation,
                        double multiplier = 2.0) {
  PrivacyEvent e;
  e.kind = ReleaseKind::grad_batch;
  e.mechanism = Mechanism::subsampled_gaussian;
  e.sensitivity = 1.0;
  e.noise_sd = multiplier;
  e.sampling = sampling;
  e.sampling_rate = rate;
  e.relation = relation;
  return e;
}

PrivacyEvent approximate(double epsilon, double delta) {
  PrivacyEvent e;
  e.kind = ReleaseKind::fastmh;
  e.mechanism = Mechanism::approximate_dp;
  e.epsilon = epsilon;
  e.delta = delta;
  e.relation = Neighbouring::substitute;
  return e;
}

// The refusal's message, or "" when admitted.
std::string refusal(const ReleaseAllowance& a, const PrivacyEvent& e) {
  try {
    a.check(e);
  } catch (const ReleaseRefused& r) {
    return r.what();
  }
  return "";
}

TEST(ReleaseAllowance, RefusesAnUnderNoisedRelease) {
  ReleaseAllowance a;
  a.add(gaussian(ReleaseKind::llr_sum, 1.0, 5.0), 10);                  // planned σ/Δ = 5
  EXPECT_EQ(refusal(a, gaussian(ReleaseKind::llr_sum, 0.3, 1.5)), "");  // σ/Δ = 5, other Δ
  EXPECT_EQ(refusal(a, gaussian(ReleaseKind::llr_sum, 0.3, 3.0)), "");  // more noise
  const std::string m = refusal(a, gaussian(ReleaseKind::llr_sum, 0.3, 1.49));
  EXPECT_NE(m.find("noise multiplier"), std::string::npos) << m;
  EXPECT_NE(m.find("below the planned 5"), std::string::npos) << m;
  EXPECT_NE(m.find("llr_sum"), std::string::npos) << m;
  // One ulp-level difference from another order of the same arithmetic is not a refusal.
  EXPECT_EQ(refusal(a, gaussian(ReleaseKind::llr_sum, 1.0, 5.0 * (1 - 1e-14))), "");
}

TEST(ReleaseAllowance, RefusesAnOverSensitiveReleaseWhenThePlanFixesTheSensitivity) {
  ReleaseAllowance a;
  a.add(gaussian(ReleaseKind::grad_sum, 1.0, 3.0), 10, 2.0);  // Δ ≤ 2 (a clip bound of 1, T = 1)
  EXPECT_EQ(refusal(a, gaussian(ReleaseKind::grad_sum, 2.0, 6.0)), "");
  EXPECT_EQ(refusal(a, gaussian(ReleaseKind::grad_sum, 0.5, 1.5)), "");
  const std::string m = refusal(a, gaussian(ReleaseKind::grad_sum, 4.0, 12.0));  // same σ/Δ
  EXPECT_NE(m.find("sensitivity"), std::string::npos) << m;
  EXPECT_NE(m.find("above the planned 2"), std::string::npos) << m;
  // Without a cap only σ/Δ matters (the penalty's Δ = 2T·b‖θ′ − θ‖ changes every iteration).
  ReleaseAllowance free;
  free.add(gaussian(ReleaseKind::llr_sum, 1.0, 3.0), 10);
  EXPECT_EQ(refusal(free, gaussian(ReleaseKind::llr_sum, 400.0, 1200.0)), "");
}

TEST(ReleaseAllowance, RefusesAnotherSamplingRate) {
  ReleaseAllowance a;
  a.add(subsampled(0.1, Sampling::poisson, Neighbouring::add_remove), 10);
  EXPECT_EQ(refusal(a, subsampled(0.1, Sampling::poisson, Neighbouring::add_remove)), "");
  EXPECT_EQ(refusal(a, subsampled(0.1 * (1 + 1e-14), Sampling::poisson, Neighbouring::add_remove)),
            "");
  for (const double q : {0.2, 0.05}) {  // amplification at 0.05 is not what was accounted either
    const std::string m = refusal(a, subsampled(q, Sampling::poisson, Neighbouring::add_remove));
    EXPECT_NE(m.find("sampling rate"), std::string::npos) << m;
  }
  const std::string s =
      refusal(a, subsampled(0.1, Sampling::without_replacement, Neighbouring::add_remove));
  EXPECT_NE(s.find("sampling without_replacement"), std::string::npos) << s;
}

TEST(ReleaseAllowance, RefusesAnotherRelation) {
  ReleaseAllowance a;
  a.add(subsampled(0.1, Sampling::poisson, Neighbouring::add_remove), 10);
  const std::string m = refusal(a, subsampled(0.1, Sampling::poisson, Neighbouring::substitute));
  EXPECT_NE(m.find("relation substitute"), std::string::npos) << m;
  EXPECT_NE(m.find("holds for add_remove"), std::string::npos) << m;
}

TEST(ReleaseAllowance, RefusesAnotherMechanismOrKindAndALargerApproximateDpCost) {
  ReleaseAllowance a;
  a.add(approximate(0.5, 1e-8), 3);
  EXPECT_EQ(refusal(a, approximate(0.5, 1e-8)), "");
  EXPECT_EQ(refusal(a, approximate(0.0, 1e-9)), "");  // DP-Fast MH's free branch
  EXPECT_NE(refusal(a, approximate(0.6, 1e-8)).find("ε = 0.6"), std::string::npos);
  EXPECT_NE(refusal(a, approximate(0.5, 1e-7)).find("δ = "), std::string::npos);
  PrivacyEvent g = gaussian(ReleaseKind::fastmh, 1.0, 100.0);
  EXPECT_NE(refusal(a, g).find("mechanism gaussian"), std::string::npos);
  EXPECT_NE(refusal(a, gaussian(ReleaseKind::llr_sum, 1.0, 100.0)).find("no release of this kind"),
            std::string::npos);
}

TEST(ReleaseAllowance, CountsPerKindAndRefusesWhenUsedUp) {
  ReleaseAllowance a = ReleaseAllowance::for_iterations(
      {gaussian(ReleaseKind::llr_sum, 1.0, 5.0), gaussian(ReleaseKind::grad_sum, 1.0, 3.0)}, 2);
  a.add(gaussian(ReleaseKind::grad_sum, 1.0, 9.0), 1);  // a second, noisier slot of the kind
  EXPECT_EQ(a.remaining(ReleaseKind::llr_sum), 2u);
  EXPECT_EQ(a.remaining(ReleaseKind::grad_sum), 3u);
  EXPECT_EQ(a.remaining(ReleaseKind::suff_stat), 0u);
  a.use(gaussian(ReleaseKind::llr_sum, 2.0, 10.0));
  a.use(gaussian(ReleaseKind::llr_sum, 2.0, 10.0));
  EXPECT_EQ(a.remaining(ReleaseKind::llr_sum), 0u);
  const std::string m = refusal(a, gaussian(ReleaseKind::llr_sum, 2.0, 10.0));
  EXPECT_NE(m.find("used up (allowance 2 releases"), std::string::npos) << m;
  // σ/Δ = 4 fits only the first grad_sum slot; σ/Δ = 9 fits both and uses the first with room.
  a.use(gaussian(ReleaseKind::grad_sum, 1.0, 4.0));
  a.use(gaussian(ReleaseKind::grad_sum, 1.0, 9.0));
  EXPECT_NE(refusal(a, gaussian(ReleaseKind::grad_sum, 1.0, 4.0)).find("used up"),
            std::string::npos);
  a.use(gaussian(ReleaseKind::grad_sum, 1.0, 9.0));
  EXPECT_EQ(a.remaining(ReleaseKind::grad_sum), 0u);
  EXPECT_EQ(a.planned(ReleaseKind::grad_sum), 3u);
}

TEST(ReleaseAllowance, RefusesToPlanAMalformedRelease) {
  ReleaseAllowance a;
  EXPECT_THROW(a.add(gaussian(ReleaseKind::llr_sum, 1.0, 0.0), 1), SoftwareError);
  EXPECT_THROW(a.add(gaussian(ReleaseKind::llr_sum, 1.0, 1.0), 1, -1.0), SoftwareError);
}

}  // namespace
}  // namespace dpmcmc
