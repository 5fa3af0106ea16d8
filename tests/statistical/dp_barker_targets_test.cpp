// Statistical run of DP Barker ([Raisa2021] Algorithm 3) on the tempered 2-d banana
// preset with the thesis' batch b = 1300 and σ² = 2 (docs/references.md), and its job setup.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "diagnostics/mmd.hpp"
#include "models/banana.hpp"
#include "models/presets.hpp"
#include "privacy/barker_accounting.hpp"
#include "privacy/planner.hpp"
#include "run/barker_setup.hpp"
#include "samplers/dp_barker.hpp"
#include "test_allowance.hpp"
#include "test_noise.hpp"

namespace dpmcmc {
namespace {

// Pinned regression bound on the MMD: measured 0.130 (exact vs exact 0.010), bound 1.25×.
constexpr double kMmdBound = 0.16;

// The preset's posterior with n = 20000 rows and T = 1000/20000 (the posterior depends on the
// data through T·n and T·Σx only, [Raisa2021] Theorem 5.2, as in
// preset_targets_test.cpp). DP Barker's release depends on n and T only through n0 = nT, b and the
// clip √b/n0, so the proxy runs the full preset's chain in law, except for the finite-population
// factor of the batch error: its variance is (1 − q)σ_b² with q = 0.065 here against 0.013 in the
// preset, a 5% smaller share of an already small σ_b² (the chain sees slightly less noise than
// Barker's test assumes). n = 20000 rather than 5000 keeps that effect small.
//
// Measured (seed 41, 4 chains × 25000 iterations from exact draws, first 5000 discarded, thinned
// to 1000 draws): MMD 0.130 against 0.010 exact-vs-exact, acceptance 0.17, 76% of the ratios
// clipped, 9.7 s in Release. The clip √b/n0 = 0.036 binds hard at the preset's proposal sd 0.12
// (a row's ratio is ≈ Δ(θ2 + 20θ1²)(x2 − ·)/2.5 ≈ 0.5): the chain targets the clipped posterior,
// which is why the MMD is far above the exact one (the thesis, Section 6, also reports DP Barker
// as the sampler with the most clipping). With the proposal sd 0.03 the clipping is still 44% and
// the MMD 0.129; where the clip does not bind the sampler is exact to the test's precision
// (tests/samplers/dp_barker_test.cpp). The bound pins the measured value (deterministic for a
// build) with a 25% margin for libm differences.
TEST(DpBarkerTargets, TemperedBananaWithTheThesisBatchReachesThePosterior) {
  const Preset& p = find_preset("banana-tempered-2d");
  const auto preset_model = p.make_model();
  BananaModel::Params params = dynamic_cast<const BananaModel&>(*preset_model).params();
  const std::size_t n = 20000;
  params.temperature = 1000.0 / static_cast<double>(n);
  const BananaModel model(params);
  Rng data_rng = preset_data_rng(41);
  const Dataset data = model.simulate(p.true_theta, n, data_rng);
  constexpr std::size_t kDraws = 1000;
  Rng ra = make_rng(41, 0, Stream::exact), rb = make_rng(41, 1, Stream::exact);
  const Mat exact_a = model.sample_posterior(data, kDraws, ra);
  const Mat exact_b = model.sample_posterior(data, kDraws, rb);

  const auto& defaults = p.samplers.at("dp-barker");
  DpBarkerConfig c;
  c.scale = Vec::Constant(2, defaults.at("proposal_sd").get<double>());
  c.batch = defaults.at("batch_size").get<std::size_t>();
  c.noise_variance = defaults.at("noise_variance").get<double>();
  ASSERT_EQ(c.batch, 1300u);

  constexpr int kChains = 4;
  constexpr std::size_t kIterations = 25000, kBurn = 5000;
  constexpr std::size_t kThin = (kIterations - kBurn) * kChains / kDraws;
  Mat draws(static_cast<Eigen::Index>(kDraws), 2);
  Eigen::Index row = 0;
  double clip = 0.0;
  std::size_t accepted = 0;
  for (int ch = 0; ch < kChains; ++ch) {
    EventLog log;
    PrivateData pd(model, data, test_noise_rng(41, static_cast<std::uint64_t>(ch)), log,
                   template_allowance(dp_barker_template(c.noise_variance, c.batch, data.rows()),
                                      kIterations));
    DpBarkerKernel kernel(model, pd, c);
    kernel.init(exact_b.row(ch).transpose());
    Rng rng = make_rng(41, static_cast<std::uint64_t>(ch));
    double extras[3];
    for (std::size_t i = 0; i < kIterations; ++i) {
      const bool moved = kernel.transition(rng, extras).accepted;
      if (i < kBurn) continue;
      accepted += moved;
      clip += extras[0];
      if ((i - kBurn) % kThin == kThin - 1) draws.row(row++) = kernel.position().transpose();
    }
    ASSERT_EQ(log.releases(), kIterations);
  }
  ASSERT_EQ(row, static_cast<Eigen::Index>(kDraws));
  const double kept = double(kChains * (kIterations - kBurn));

  Rng bw_rng = make_rng(31, 0);
  const double h = median_heuristic_bandwidth(exact_a, exact_b, 200, bw_rng);
  const double exact_vs_exact = std::sqrt(std::abs(mmd2_unbiased(exact_a, exact_b, h)));
  const double dp_vs_exact = std::sqrt(std::abs(mmd2_unbiased(draws, exact_a, h)));
  RecordProperty("mmd", std::to_string(dp_vs_exact));
  RecordProperty("mmd_exact", std::to_string(exact_vs_exact));
  RecordProperty("acceptance", std::to_string(accepted / kept));
  RecordProperty("clip_frac", std::to_string(clip / kept));
  std::printf(
      "dp-barker tempered banana: MMD %.4f (exact vs exact %.4f), acceptance %.3f, "
      "clipped %.4f\n",
      dp_vs_exact, exact_vs_exact, accepted / kept, clip / kept);
  EXPECT_LT(dp_vs_exact, kMmdBound) << "exact vs exact " << exact_vs_exact;
}

// The job setup: template, kernel factory, parameter errors.
TEST(DpBarkerSetup, BuildsTheTemplateAndTheKernelAndRefusesBadParameters) {
  const Preset& preset = find_preset("banana-tempered-2d");
  const auto model = preset.make_model();
  const Dataset data = simulate_preset(preset, *model, 3);
  ASSERT_EQ(data.rows(), 100000u);
  const nlohmann::json params = {
      {"proposal_sd", 0.05}, {"batch_size", 1300}, {"noise_variance", 2.0}};
  const PrivateSamplerSetup s = setup_dp_barker("dp-barker", params, *model, 100000);
  ASSERT_EQ(s.per_iteration.size(), 1u);
  EXPECT_EQ(s.per_iteration[0].kind, ReleaseKind::barker_test);
  EventLog log;
  auto kernel = s.make_kernel(
      std::make_unique<PrivateData>(*model, data, test_noise_rng(1, 0), log, allowance_for(s, 5)));
  EXPECT_EQ(kernel->name(), "dp-barker");
  nlohmann::json bad = params;
  bad["batch_size"] = 100001;
  EXPECT_THROW(setup_dp_barker("dp-barker", bad, *model, 100000), ConfigError);
  bad = params;
  bad["noise_variance"] = 3.5;
  EXPECT_THROW(setup_dp_barker("dp-barker", bad, *model, 100000), ConfigError);
  bad = params;
  bad.erase("noise_variance");  // default 2
  EXPECT_NO_THROW(setup_dp_barker("dp-barker", bad, *model, 100000));
}

}  // namespace
}  // namespace dpmcmc
