// The shared skeleton of the private MH samplers (samplers/private_mh_kernel.hpp), through a
// scripted test: which branches call the test and release, that the algorithm stream advances
// by the same draws in every branch, the columns, and the GWMH direction rule.
#include "samplers/private_mh_kernel.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "models/gaussian.hpp"
#include "test_allowance.hpp"
#include "test_noise.hpp"

namespace dpmcmc {
namespace {

// A Gaussian model whose prior is 0 where θ₀ > 1 (a public support restriction) and, standing
// for a model's bug, NaN where θ₁ > 3.
class HalfSupportModel final : public GaussianModel {
 public:
  HalfSupportModel()
      : GaussianModel(Vec::Zero(2), Mat::Identity(2, 2) * 100.0, Mat::Identity(2, 2), 1.0) {}
  double log_prior(const Vec& theta) const override {
    if (theta[1] > 3.0) return std::numeric_limits<double>::quiet_NaN();
    return theta[0] > 1.0 ? -std::numeric_limits<double>::infinity()
                          : GaussianModel::log_prior(theta);
  }
  static bool outside(const Vec& theta) { return theta[0] > 1.0 || theta[1] > 3.0; }
};

// A test that releases one clipped log-likelihood-ratio sum, draws `uniforms` uniforms and
// returns the next decision of its script.
class ScriptedKernel final : public PrivateMhKernel {
 public:
  ScriptedKernel(const Model& model, PrivateData& data, PenaltyProposal proposal, int uniforms,
                 std::vector<bool> script, double scale)
      : PrivateMhKernel(model, data, {{ReleaseKind::llr_sum, 1000}},
                        {proposal, {"first__", "second__"}, {"second__"}, uniforms}),
        uniforms_(uniforms),
        script_(std::move(script)) {
    set_scale(Vec::Constant(1, scale), "scripted proposal sd");
  }
  std::string name() const override { return "scripted"; }

  int tests = 0, accept_decisions = 0, accepts = 0;
  double last_ratio = 0.0, last_step = 0.0;

 private:
  AcceptDecision noisy_test(const NoisyMove& move, Rng& rng, std::span<double> columns) override {
    owner().llr_sum(move.from, move.to, move.step_norm, 1.0);
    last_ratio = move.log_prior_ratio;
    last_step = move.step_norm;
    for (int i = 0; i < uniforms_; ++i) rng.uniform_pos();
    columns[1] = 8.0;
    // Keeps θ₀ ≥ 0, so that with the support θ₀ ≤ 1 both branches stay frequent.
    const bool accept =
        script_[static_cast<std::size_t>(tests++) % script_.size()] && move.to[0] >= 0.0;
    if (accept) ++accept_decisions;
    return {accept, accept ? 1.0 : 0.0};
  }
  void on_accept() override { ++accepts; }

  int uniforms_;
  std::vector<bool> script_;
};

struct Fixture {
  HalfSupportModel model;
  Dataset data;
  EventLog log;
  std::unique_ptr<PrivateData> pd;
  Fixture() {
    Rng rng = make_rng(3, 0, Stream::data);
    data = model.simulate(Vec::Constant(2, 0.5), 50, rng);
    pd = std::make_unique<PrivateData>(
        model, data, test_noise_rng(3, 0), log,
        gaussian_allowance({{ReleaseKind::llr_sum, 1000}}, kLowestTestMultiplier));
  }
};

// Every branch leaves the algorithm stream where the proposal's normals and the test's uniforms
// leave it; the test (and its release) runs exactly for proposals inside the prior's support.
TEST(PrivateMhKernel, BranchesDrawTheSameFromTheAlgorithmStream) {
  for (const int uniforms : {0, 1, 2}) {
    Fixture f;
    // sd 2 from θ₀ = 0.5: about 40% of proposals fall outside the support (θ₀′ > 1); the
    // test keeps θ₀ in [0, 1]. θ₁ walks freely, into the NaN region at times.
    ScriptedKernel k(f.model, *f.pd, PenaltyProposal::full, uniforms, {true, false}, 2.0);
    k.init(Vec::Constant(2, 0.5));
    Rng rng = make_rng(5, 0);
    std::vector<double> extras(3);
    int outside = 0;
    for (int it = 0; it < 200; ++it) {
      Rng replay = rng;
      const Vec before = k.position();
      const int tests_before = k.tests;
      const TransitionInfo info = k.transition(rng, extras);
      Vec proposed = before;
      for (int j = 0; j < 2; ++j) proposed[j] += 2.0 * replay.normal();
      for (int i = 0; i < uniforms; ++i) replay.uniform_pos();
      ASSERT_EQ(replay.uniform_pos(), rng.uniform_pos()) << "iteration " << it;
      if (HalfSupportModel::outside(proposed)) {
        ++outside;
        EXPECT_EQ(k.tests, tests_before);
        EXPECT_FALSE(info.accepted);
        EXPECT_EQ(info.accept_stat, 0.0);
        EXPECT_EQ(extras[1], 0.0);  // the test's columns are zero without a test
        EXPECT_EQ(k.position(), before);
      } else {
        EXPECT_EQ(k.tests, tests_before + 1);
        EXPECT_EQ(extras[1], 8.0);
        EXPECT_DOUBLE_EQ(k.last_ratio, f.model.log_prior(proposed) - f.model.log_prior(before));
        EXPECT_DOUBLE_EQ(k.last_step, (proposed - before).norm());
        EXPECT_EQ(k.position(), info.accepted ? proposed : before);
      }
      EXPECT_EQ(extras[0], 0.0);
      EXPECT_TRUE(std::isnan(extras[2]));  // eps_spent__ without a spend callback
      EXPECT_TRUE(std::isnan(info.log_density));
    }
    // P(outside) ≥ P(z > 1/2) ≈ 0.31 from any θ₀ ∈ [0, 1]: ≈ 62 of 200 (sd ≈ 6.5).
    EXPECT_GT(outside, 40);
    EXPECT_GT(k.tests, 40);
    EXPECT_EQ(k.transitions(), 200U);
    EXPECT_EQ(f.log.releases(), static_cast<std::uint64_t>(k.tests));
    EXPECT_GT(k.accept_decisions, 5);
    EXPECT_EQ(k.accepts, k.accept_decisions);  // on_accept() once per accepted test
  }
}

// θ′ = θ (a step whose every component underflows against θ) is accepted without a test: no
// release, no on_accept(), θ kept, and the test's uniforms drawn.
TEST(PrivateMhKernel, ZeroStepIsAcceptedWithoutARelease) {
  for (const int uniforms : {0, 1, 2}) {
    Fixture f;
    ScriptedKernel k(f.model, *f.pd, PenaltyProposal::full, uniforms, {false}, 1e-300);
    k.init(Vec::Constant(2, 0.5));
    Rng rng = make_rng(6, 0);
    std::vector<double> extras(3);
    for (int it = 0; it < 20; ++it) {
      Rng replay = rng;
      const TransitionInfo info = k.transition(rng, extras);
      for (int j = 0; j < 2; ++j) replay.normal();
      for (int i = 0; i < uniforms; ++i) replay.uniform_pos();
      ASSERT_EQ(replay.uniform_pos(), rng.uniform_pos()) << "iteration " << it;
      EXPECT_TRUE(info.accepted);
      EXPECT_EQ(info.accept_stat, 1.0);
    }
    EXPECT_EQ(k.tests, 0);
    EXPECT_EQ(k.accepts, 0);
    EXPECT_EQ(f.log.releases(), 0U);
    EXPECT_EQ(k.position(), Vec::Constant(2, 0.5));
  }
}

// GWMH: a tested reject flips the moved component's direction, an accept keeps it.
TEST(PrivateMhKernel, GuidedWalkFlipsTheDirectionOnReject) {
  Fixture f;
  ScriptedKernel k(f.model, *f.pd, PenaltyProposal::guided_walk, 1, {true, false, false}, 0.01);
  k.init(Vec::Constant(2, 0.0));
  Rng rng = make_rng(7, 0);
  std::vector<double> extras(3);
  for (int it = 0; it < 30; ++it) {
    const Vec before_dir = k.directions();
    const Vec before = k.position();
    const TransitionInfo info = k.transition(rng, extras);
    int moved = -1;
    for (int j = 0; j < 2; ++j) {
      if (k.directions()[j] != before_dir[j] || k.position()[j] != before[j]) moved = j;
    }
    ASSERT_GE(moved, 0) << "iteration " << it;
    if (info.accepted) {
      EXPECT_EQ(k.directions(), before_dir);
      EXPECT_EQ((k.position()[moved] - before[moved]) * before_dir[moved] > 0.0, true);
    } else {
      EXPECT_EQ(k.directions()[moved], -before_dir[moved]);
      EXPECT_EQ(k.position(), before);
    }
  }
}

TEST(PrivateMhKernel, ColumnsEndWithTheSpendAndCheckTheirCount) {
  Fixture f;
  ScriptedKernel k(f.model, *f.pd, PenaltyProposal::full, 1, {true}, 0.1);
  EXPECT_EQ(k.extra_columns(), (std::vector<std::string>{"first__", "second__", "eps_spent__"}));
  EXPECT_EQ(k.publishable_columns(), (std::vector<std::string>{"second__", "eps_spent__"}));
  Rng rng = make_rng(8, 0);
  std::vector<double> extras(2);
  EXPECT_THROW(k.transition(rng, extras), SoftwareError);  // before init()
  k.init(Vec::Zero(2));
  EXPECT_THROW(k.transition(rng, extras), SoftwareError);  // one column short
  k.set_spend_callback([](std::uint64_t releases) { return 0.25 * static_cast<double>(releases); });
  extras.resize(3);
  k.transition(rng, extras);
  EXPECT_EQ(extras[2], 0.25);
  EXPECT_THROW(k.init(Vec::Constant(2, 2.0)), ConfigError);  // outside the prior's support
}

}  // namespace
}  // namespace dpmcmc
