// The auditor on the real private samplers: every one calibrates to a target ε and audits as
// consistent (ε_lb ≤ ε_certified at 95%); the DP penalty's single release shows at least half of
// its certified ε (the accountant is tight, not only safe); the result does not depend on the
// thread count.
#include <gtest/gtest.h>

#include "audit_fixture.hpp"
#include "core/error.hpp"

namespace dpmcmc {
namespace {

using audit_test::options;
using audit_test::sampler_case;
using audit_test::test_key;

TEST(PrivacyKnobs, EveryPrivateSamplerCalibratesToTheTargetOnTheSafeSide) {
  for (const auto& name : private_sampler_names()) {
    const auto* entry = find_private_sampler(name);
    ASSERT_FALSE(entry->privacy_knobs.empty()) << name;
    for (const double eps : {0.5, 4.0}) {
      const auto c = sampler_case(name, 3000, eps);
      const auto setup = entry->build_private(name, c.params, *c.model, c.base.rows());
      const double certified = certified_iterations_epsilon(setup.per_iteration, 1, 1e-5);
      EXPECT_LE(certified, eps) << name;
      // A count knob (DP Barker's batch) moves ε in steps; a continuous one lands on ε.
      EXPECT_GE(certified, (name == "dp-barker" ? 0.85 : 0.9999) * eps) << name << " at " << eps;
    }
  }
}

TEST(PrivacyKnobs, AnUnreachableTargetIsAConfigErrorNamingTheKnob) {
  // DP Barker's smallest batch (b(σ² − 1) > 15) certifies far less than ε = 500.
  try {
    sampler_case("dp-barker", 3000, 500.0);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("batch_size"), std::string::npos) << e.what();
  }
}

TEST(SamplerAudit, EveryPrivateSamplerIsConsistentAtEpsilonOne) {
  for (const auto& name : private_sampler_names()) {
    const auto c = sampler_case(name, 3000, 1.0);
    const SamplerSubject subject(*c.entry, *c.preset, c.params, c.base, 1, 1);
    const auto out = run_audit(subject, canary_pairs(c.base, subject.relation()),
                               options(4000, 200), test_key());
    EXPECT_FALSE(out.violation()) << name << ": " << out.to_json().dump(1);
    EXPECT_LE(out.certified_epsilon, 1.0) << name;
  }
}

TEST(SamplerAudit, DpPenaltySingleReleaseShowsHalfItsCertifiedEpsilon) {
  const auto c = sampler_case("dp-penalty", 5000, 1.0);
  const SamplerSubject subject(*c.entry, *c.preset, c.params, c.base, 1, 1);
  const auto out = run_audit(subject, canary_pairs(c.base, subject.relation()),
                             options(200000, 1000), test_key());
  EXPECT_FALSE(out.violation());
  EXPECT_GE(out.bound.epsilon, 0.5 * out.certified_epsilon) << out.to_json().dump(1);
  EXPECT_EQ(out.bound.statistic.rfind("release", 0), 0u) << out.bound.statistic;
}

TEST(SamplerAudit, SeveralIterationsAreAuditedAgainstTheirComposedCertificate) {
  const auto c = sampler_case("dp-penalty", 2000, 2.0, 5);
  const SamplerSubject subject(*c.entry, *c.preset, c.params, c.base, 5, 1);
  const double one =
      SamplerSubject(*c.entry, *c.preset, c.params, c.base, 1, 1).certified_epsilon(1e-5);
  EXPECT_LE(subject.certified_epsilon(1e-5), 2.0);
  EXPECT_GE(subject.certified_epsilon(1e-5), 2.0 * (1.0 - 1e-4));
  EXPECT_LT(one, 1.0);  // five Gaussian iterations compose to more than one of them
  const auto out =
      run_audit(subject, canary_pairs(c.base, subject.relation()), options(20000, 500), test_key());
  EXPECT_FALSE(out.violation()) << out.to_json().dump(1);
}

TEST(SamplerAudit, ResultDoesNotDependOnTheThreadCount) {
  const auto c = sampler_case("dp-sgld", 2000, 1.0);
  const SamplerSubject subject(*c.entry, *c.preset, c.params, c.base, 1, 1);
  const auto pair = canary_pairs(c.base, subject.relation()).front();
  const Mat one = audit_samples(subject, pair.d_prime, test_key(), 0, 1, 64, 1);
  const Mat two = audit_samples(subject, pair.d_prime, test_key(), 0, 1, 64, 2);
  EXPECT_EQ(one, two);
  // …and a fresh key gives other noise.
  const Mat other = audit_samples(subject, pair.d_prime, test_key(9), 0, 1, 64, 2);
  EXPECT_NE(one, other);
}

TEST(Neighbours, SubstitutePairsDifferInRowOneOnlyAndAddRemoveAppendsOneRow) {
  const auto c = sampler_case("dp-penalty", 100, std::nullopt);
  for (const auto& p : canary_pairs(c.base, Neighbouring::substitute)) {
    ASSERT_EQ(p.d.rows(), 100u);
    ASSERT_EQ(p.d_prime.rows(), 100u);
    EXPECT_EQ(p.d.x.bottomRows(99), p.d_prime.x.bottomRows(99)) << p.name;
    EXPECT_EQ(p.d.x.bottomRows(99), c.base.x.bottomRows(99)) << p.name;
  }
  for (const auto& p : canary_pairs(c.base, Neighbouring::add_remove)) {
    EXPECT_EQ(p.d.x, c.base.x) << p.name;
    ASSERT_EQ(p.d_prime.rows(), 101u);
    EXPECT_EQ(p.d_prime.x.topRows(100), c.base.x) << p.name;
  }
}

}  // namespace
}  // namespace dpmcmc
