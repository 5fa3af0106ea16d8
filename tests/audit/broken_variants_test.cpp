// The auditor's own test (issue #27): mechanisms broken in the ways a private sampler can break
// must be flagged as violations with confidence ≥ 0.99 (β = 0.01), and their honest
// counterparts must not. The broken variants exist only here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "audit_fixture.hpp"
#include "core/rng.hpp"

namespace dpmcmc {
namespace {

using audit_test::options;
using audit_test::sampler_case;
using audit_test::test_key;

constexpr double kBeta = 0.01;

// Runs one sampler's kernels but claims another's certificate.
class Mislabelled : public AuditSubject {
 public:
  Mislabelled(const SamplerSubject& runs, const SamplerSubject& claims)
      : runs_(runs), claims_(claims) {}
  std::string describe() const override { return "mislabelled " + runs_.describe(); }
  Neighbouring relation() const override { return runs_.relation(); }
  std::size_t declared_rows() const override { return runs_.declared_rows(); }
  std::vector<std::string> statistic_names() const override { return runs_.statistic_names(); }
  void run(const Dataset& data, const NoiseKey& key, std::uint64_t stream,
           std::span<double> statistics) const override {
    runs_.run(data, key, stream, statistics);
  }
  double certified_epsilon(double delta) const override { return claims_.certified_epsilon(delta); }

 private:
  const SamplerSubject& runs_;
  const SamplerSubject& claims_;
};

AuditOutcome audit(const AuditSubject& subject, const Dataset& base) {
  return run_audit(subject, canary_pairs(base, subject.relation()), options(20000, 500, kBeta),
                   test_key());
}

TEST(BrokenVariants, NoiseAQuarterOfTheCertifiedIsFlagged) {
  const auto c = sampler_case("dp-penalty", 2000, 1.0);
  nlohmann::json weak = c.params;
  weak["tau"] = c.params["tau"].get<double>() / 4.0;
  const SamplerSubject honest(*c.entry, *c.preset, c.params, c.base, 1, 1);
  const SamplerSubject broken(*c.entry, *c.preset, weak, c.base, 1, 1);
  const auto out = audit(Mislabelled(broken, honest), c.base);
  EXPECT_TRUE(out.violation()) << out.to_json().dump(1);
  EXPECT_FALSE(audit(honest, c.base).violation());
}

TEST(BrokenVariants, ClippingSkippedIsFlagged) {
  // The noise of the clip bound b with the sum clipped at 1000 b: the penalty's σ is
  // τ·n^α·2b‖θ′ − θ‖, so clip × 1000 and τ / 1000 keep σ and let every row through.
  const auto c = sampler_case("dp-penalty", 2000, 1.0);
  nlohmann::json unclipped = c.params;
  unclipped["clip"] = c.params["clip"].get<double>() * 1000.0;
  unclipped["tau"] = c.params["tau"].get<double>() / 1000.0;
  const SamplerSubject honest(*c.entry, *c.preset, c.params, c.base, 1, 1);
  const SamplerSubject broken(*c.entry, *c.preset, unclipped, c.base, 1, 1);
  const auto out = audit(Mislabelled(broken, honest), c.base);
  EXPECT_TRUE(out.violation()) << out.to_json().dump(1);
}

// Noise from the public seed: every run draws the same noise, as an attacker holding the seed
// could regenerate and subtract it.
class SeededNoise : public AuditSubject {
 public:
  explicit SeededNoise(const SamplerSubject& inner) : inner_(inner) {}
  std::string describe() const override { return "seeded noise " + inner_.describe(); }
  Neighbouring relation() const override { return inner_.relation(); }
  std::size_t declared_rows() const override { return inner_.declared_rows(); }
  std::vector<std::string> statistic_names() const override { return inner_.statistic_names(); }
  void run(const Dataset& data, const NoiseKey&, std::uint64_t,
           std::span<double> statistics) const override {
    inner_.run(data, test_key(1), 1, statistics);  // a key derived from the seed, one stream
  }
  double certified_epsilon(double delta) const override { return inner_.certified_epsilon(delta); }

 private:
  const SamplerSubject& inner_;
};

TEST(BrokenVariants, NoiseFromThePublicSeedIsFlagged) {
  const auto c = sampler_case("dp-hmc", 2000, 1.0);
  const SamplerSubject honest(*c.entry, *c.preset, c.params, c.base, 1, 1);
  const auto out = audit(SeededNoise(honest), c.base);
  EXPECT_TRUE(out.violation()) << out.to_json().dump(1);
}

// A clipped sum over a Poisson batch plus Gaussian noise (DP-SGLD's release, add/remove), with
// the batch drawn from the public stream (same every run) or, honestly, from the noise stream.
class PoissonSum : public AuditSubject {
 public:
  PoissonSum(std::size_t n, double q, double sigma, std::uint64_t seed, bool public_membership)
      : n_(n), q_(q), sigma_(sigma), seed_(seed), public_(public_membership) {}
  std::string describe() const override {
    return public_ ? "Poisson sum, membership from the public seed" : "Poisson sum";
  }
  Neighbouring relation() const override { return Neighbouring::add_remove; }
  std::size_t declared_rows() const override { return n_; }
  std::vector<std::string> statistic_names() const override { return {"sum"}; }
  void run(const Dataset& data, const NoiseKey& key, std::uint64_t stream,
           std::span<double> statistics) const override {
    Rng pub = make_rng(seed_, 0);
    NoiseRng noise = make_noise_rng(key, stream, 0);
    double sum = 0.0;
    for (Eigen::Index i = 0; i < data.x.rows(); ++i) {
      const bool in = public_ ? pub.uniform() < q_ : noise.uniform() < q_;
      if (in) sum += std::clamp(data.x(i, 0), -1.0, 1.0);
    }
    statistics[0] = sum + sigma_ * noise.normal();
  }
  double certified_epsilon(double delta) const override { return certified(sigma_, delta); }

  double certified(double sigma, double delta) const {
    PrivacyEvent e;
    e.mechanism = Mechanism::subsampled_gaussian;
    e.sampling = Sampling::poisson;
    e.sampling_rate = q_;
    e.sensitivity = 1.0;
    e.noise_sd = sigma;
    e.relation = Neighbouring::add_remove;
    e.kind = ReleaseKind::grad_batch;
    return certified_iterations_epsilon({&e, 1}, 1, delta);
  }

 private:
  std::size_t n_;
  double q_, sigma_;
  std::uint64_t seed_;
  bool public_;
};

TEST(BrokenVariants, PoissonMembershipFromThePublicStreamIsFlagged) {
  const std::size_t n = 500;
  const double q = 0.1;
  Dataset base;
  base.columns = {"x"};
  base.x.resize(static_cast<Eigen::Index>(n), 1);
  Rng data_rng = make_rng(5, 0, Stream::data);
  for (std::size_t i = 0; i < n; ++i) base.x(static_cast<Eigen::Index>(i), 0) = data_rng.normal();
  // σ certifying ε = 1 with amplification by q (bisection on the certificate).
  double lo = 0.1, hi = 50.0;
  for (int i = 0; i < 60; ++i) {
    const double mid = std::sqrt(lo * hi);
    (PoissonSum(n, q, mid, 1, false).certified(mid, 1e-5) > 1.0 ? lo : hi) = mid;
  }
  const double sigma = hi;
  // The seed whose public stream puts the canary's row (index n) in the batch: the case an
  // attacker who reads the seed would pick.
  std::uint64_t seed = 0;
  for (std::uint64_t s = 1; s < 200 && seed == 0; ++s) {
    Rng pub = make_rng(s, 0);
    bool in = false;
    for (std::size_t i = 0; i <= n; ++i) in = pub.uniform() < q;
    if (in) seed = s;
  }
  ASSERT_NE(seed, 0u);
  const PoissonSum broken(n, q, sigma, seed, true);
  const PoissonSum honest(n, q, sigma, seed, false);
  EXPECT_NEAR(broken.certified_epsilon(1e-5), 1.0, 1e-6);
  const auto out = audit(broken, base);
  EXPECT_TRUE(out.violation()) << out.to_json().dump(1);
  EXPECT_FALSE(audit(honest, base).violation());
}

// A curator-only column (the clip fraction, computed from the rows without noise) published.
class PublishesEverything : public SamplerSubject {
 public:
  using SamplerSubject::SamplerSubject;

 protected:
  std::vector<std::string> published_extras(const Kernel& kernel) const override {
    return kernel.extra_columns();
  }
};

TEST(BrokenVariants, AnUnaccountedDataDependentColumnIsFlagged) {
  const auto c = sampler_case("dp-penalty", 2000, 1.0);
  const PublishesEverything broken(*c.entry, *c.preset, c.params, c.base, 1, 1);
  const auto names = broken.statistic_names();
  ASSERT_NE(std::find(names.begin(), names.end(), "clip_frac__"), names.end());
  const auto out = audit(broken, c.base);
  EXPECT_TRUE(out.violation()) << out.to_json().dump(1);
  EXPECT_EQ(out.bound.statistic, "clip_frac__");
}

}  // namespace
}  // namespace dpmcmc
