// Warmup adaptation driven by the runner (RunConfig::adapt; samplers/warmup_adapter.hpp): it
// reaches the target acceptance and the posterior scales, it is a function of the published
// columns only (replayed from the saved warmup rows, bit for bit), and it is off by default.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <cmath>
#include <utility>

#include "../samplers/gaussian_test_model.hpp"
#include "core/noise_key.hpp"
#include "models/presets.hpp"
#include "run/private_job.hpp"
#include "run/runner.hpp"
#include "run/sample_job.hpp"
#include "run/sampler_descriptors.hpp"
#include "run/sampler_params.hpp"
#include "samplers/nuts.hpp"
#include "samplers/rwmh.hpp"
#include "samplers/tuning.hpp"
#include "samplers/warmup_adapter.hpp"

namespace dpmcmc {
namespace {

RunConfig adapting_run(std::size_t samples, int chains = 2) {
  RunConfig run;
  run.chains = chains;
  run.seed = 21;
  run.warmup = 1000;
  run.samples = samples;
  run.adapt = true;
  run.save_warmup = true;
  run.progress = ProgressMode::never;
  run.handle_sigint = false;
  return run;
}

// RWMH started from a scale 100× too small, 20 chains: after Stan's warmup each chain's metric
// estimates the posterior variances from the last window's 500 draws of a random walk (an
// integrated autocorrelation of ~10, so an effective ~50: relative sd ~20–25%), and the chains'
// mean sampling acceptance is within 0.04 of the 2-d random-walk target. One chain's acceptance
// varies more (sd 0.074 across 40 chains, measured): its final step is averaged over Stan's
// 50-iteration final phase, where a random walk's accept statistic is a noisy 0-or-ratio signal;
// the mean over 20 chains has sd ≈ 0.017.
TEST(Adaptation, RandomWalkReachesTargetAndPosteriorScales) {
  const auto model = testing::standard_model();
  const Dataset data = testing::standard_data(model);
  const Mat cov = model.posterior_cov(data);
  RwmhConfig config;
  config.scale = Vec::Constant(1, 0.01 * std::sqrt(cov.diagonal().minCoeff()));
  const RunResult r = run_chains([&](int) { return make_rwmh(model, data, config); },
                                 model.param_names(), adapting_run(4000, 20));
  const double target = random_walk_target_accept(2);
  EXPECT_TRUE(make_rwmh(model, data, config)->adaptation()->random_walk);
  double mean_acceptance = 0.0;
  Vec log_ratio = Vec::Zero(2);
  for (const auto& chain : r.chains) {
    ASSERT_TRUE(chain.tuning);
    for (int j = 0; j < 2; ++j) {
      const double ratio = chain.tuning->metric[j] / cov(j, j);
      EXPECT_GT(ratio, 1.0 / 3.0) << j;  // one chain: ~4 sd of its log ratio
      EXPECT_LT(ratio, 3.0) << j;
      log_ratio[j] += std::log(ratio) / static_cast<double>(r.chains.size());
    }
    mean_acceptance += chain.acceptance_rate() / static_cast<double>(r.chains.size());
  }
  // Over 20 chains the geometric mean of metric / variance is within 25% of 1 (its log has sd
  // ≈ 0.25/√20 ≈ 0.06: 4 sd).
  for (int j = 0; j < 2; ++j) EXPECT_LT(std::abs(log_ratio[j]), std::log(1.25)) << j;
  EXPECT_NEAR(mean_acceptance, target, 0.04);
}

// The tuning is what the adapter computes from accept_stat__ and θ of the kept warmup rows: the
// published columns. A private chain's tuning is therefore post-processing of its releases.
TEST(Adaptation, TuningIsReplayedFromPublishedWarmupColumns) {
  const auto model = testing::standard_model();
  const Dataset data = testing::standard_data(model);
  NutsConfig config;
  const RunResult r = run_chains([&](int) { return make_nuts(model, data, config); },
                                 model.param_names(), adapting_run(10));
  const auto kernel = make_nuts(model, data, config);
  for (const auto& chain : r.chains) {
    const Mat& w = chain.warmup_draws;
    ASSERT_EQ(w.rows(), 1000);
    const Tuning replayed =
        replay_adaptation(*kernel->adaptation(), kernel->tuning(), 1000, w.col(1), w.rightCols(2));
    ASSERT_TRUE(chain.tuning);
    EXPECT_EQ(replayed.step, chain.tuning->step);
    EXPECT_EQ(replayed.metric, chain.tuning->metric);
    // The step column of the sampling rows is the adapted step.
    EXPECT_EQ(chain.draws(0, 2), chain.tuning->step);
  }
}

// The same for the private samplers: DP penalty's adapted proposal (ε, m of the sd ε√m, starting
// at ε = 1, m = s²) and DP HMC's step and mass are recomputed from the published accept_stat__
// and θ of their warmup rows, with the kernel's own target, so they are post-processing of the
// releases (docs/decisions.md, "Adaptation is post-processing").
TEST(Adaptation, PrivateTuningIsReplayedFromPublishedWarmupColumns) {
  const Preset& preset = find_preset("banana-tempered-2d");
  const auto model = preset.make_model();
  const Dataset data = simulate_preset(preset, *model, 5, std::size_t{2000});
  // ε per sampler: enough iterations for a metric window (DP HMC releases L + 1 noisy sums per
  // iteration, so the same ε buys it fewer).
  const std::pair<const char*, double> cases[] = {{"dp-penalty", 4.0}, {"dp-hmc", 15.0}};
  for (const auto& [sampler, epsilon] : cases) {
    SCOPED_TRACE(sampler);
    const nlohmann::json params = sampler_params(preset, sampler, nlohmann::json::object());
    RunConfig run = adapting_run(0);
    run.init.centre = preset.start_centre;
    run.init.spread = 0.0;
    SampleSpec spec;
    spec.sampler = sampler;
    spec.epsilon = epsilon;
    spec.noise_key = std::make_shared<const NoiseKey>(NoiseKey::from_bytes(NoiseKey::Bytes{}));
    PrivateJob job = prepare_private_job(spec, *find_private_sampler(sampler), preset, *model, data,
                                         params, run);
    const KernelFactory factory = private_kernel_factory(job, *model, data, run);
    const RunResult r = run_chains(factory, model->param_names(), run);
    const auto fresh = factory(0);
    const AdaptationTarget target = *fresh->adaptation();
    const Tuning initial = fresh->tuning();
    // The private walk pools its windows and weighs by moves; DP HMC keeps Stan's windows.
    EXPECT_EQ(target.pool_windows, std::string(sampler) == "dp-penalty");
    if (std::string(sampler) == "dp-penalty") {
      const double s = params.at("proposal_sd").get<double>();
      EXPECT_EQ(initial.step, 1.0);
      EXPECT_EQ(initial.metric, Vec::Constant(2, s * s));
    }
    for (const auto& chain : r.chains) {
      const Mat& w = chain.warmup_draws;
      ASSERT_GE(w.rows(), 20) << "too few warmup iterations for a metric window";
      ASSERT_TRUE(chain.tuning);
      // accept_stat__ is column 1; θ the last two (after DP HMC's extra columns).
      ASSERT_EQ(r.columns[1], "accept_stat__");
      ASSERT_EQ(static_cast<int>(r.columns.size()), r.first_param_column + 2);
      const Tuning replayed = replay_adaptation(target, initial, static_cast<std::size_t>(w.rows()),
                                                w.col(1), w.rightCols(2));
      EXPECT_EQ(replayed.step, chain.tuning->step);
      EXPECT_EQ(replayed.metric, chain.tuning->metric);
      EXPECT_NE(replayed.metric, initial.metric);  // it did adapt
    }
  }
}

// Each private walk's acceptance target: the random-walk rate of the dimension it moves (a full
// move of banana-tempered-2d's two components, or one component), and for the guided walk the
// measured kGuidedWalkTargetAccept (tuning.hpp), which its persistence favours over 0.44.
TEST(Adaptation, PrivateWalkTargetsFollowTheProposal) {
  const Preset& preset = find_preset("banana-tempered-2d");
  const auto model = preset.make_model();
  const Dataset data = simulate_preset(preset, *model, 5, std::size_t{2000});
  const std::pair<const char*, double> cases[] = {{"dp-penalty", random_walk_target_accept(2)},
                                                  {"dp-penalty-ocu", 0.44},
                                                  {"dp-penalty-gwmh", 0.5}};
  for (const auto& [sampler, expected] : cases) {
    SCOPED_TRACE(sampler);
    const nlohmann::json params = sampler_params(preset, sampler, nlohmann::json::object());
    RunConfig run = adapting_run(0);
    SampleSpec spec;
    spec.sampler = sampler;
    spec.epsilon = 4.0;
    spec.noise_key = std::make_shared<const NoiseKey>(NoiseKey::from_bytes(NoiseKey::Bytes{}));
    PrivateJob job = prepare_private_job(spec, *find_private_sampler(sampler), preset, *model, data,
                                         params, run);
    const auto target = private_kernel_factory(job, *model, data, run)(0)->adaptation();
    ASSERT_TRUE(target);
    EXPECT_EQ(target->accept, expected);
    EXPECT_TRUE(target->random_walk);
  }
}

// RunConfig::adapt is off by default: the kernel keeps its configured tuning.
TEST(Adaptation, OffByDefault) {
  const auto model = testing::standard_model();
  const Dataset data = testing::standard_data(model);
  NutsConfig config;
  config.step_size = 0.3;
  RunConfig run = adapting_run(10);
  run.adapt = false;
  const RunResult r =
      run_chains([&](int) { return make_nuts(model, data, config); }, model.param_names(), run);
  EXPECT_FALSE(r.chains[0].tuning);
  EXPECT_EQ(r.chains[0].draws(0, 2), 0.3);
}

}  // namespace
}  // namespace dpmcmc

namespace dpmcmc {
namespace {

// A dense-metric RWMH on the standard fixture (correlation ≈ 0.4), 20 chains: every adapted Σ is
// positive definite, their mean is within 0.2 sd-units of the posterior covariance entrywise
// (one chain's error is ~0.25 sd-units, the mean of 20 has ~0.06: 3 sd), and the mean
// acceptance within 0.05 of the target (measured sd of one chain's 0.083 over 40 chains).
TEST(Adaptation, DenseRandomWalkEstimatesTheCovariance) {
  const auto model = testing::standard_model();
  const Dataset data = testing::standard_data(model);
  const Mat cov = model.posterior_cov(data);
  RwmhConfig config;
  config.scale = Vec::Constant(1, 0.1 * std::sqrt(cov.diagonal().minCoeff()));
  RunConfig run = adapting_run(2000, 20);
  run.dense_metric = true;
  const RunResult r =
      run_chains([&](int) { return make_rwmh(model, data, config); }, model.param_names(), run);
  double mean_acceptance = 0.0;
  Mat mean_dense = Mat::Zero(2, 2);
  for (const auto& chain : r.chains) {
    ASSERT_TRUE(chain.tuning);
    ASSERT_EQ(chain.tuning->dense.rows(), 2);
    EXPECT_EQ(chain.tuning->dense.llt().info(), Eigen::Success);
    mean_dense += chain.tuning->dense / static_cast<double>(r.chains.size());
    mean_acceptance += chain.acceptance_rate() / static_cast<double>(r.chains.size());
  }
  for (int a = 0; a < 2; ++a) {
    for (int b = 0; b < 2; ++b) {
      EXPECT_NEAR(mean_dense(a, b), cov(a, b), 0.2 * std::sqrt(cov(a, a) * cov(b, b))) << a << b;
    }
  }
  EXPECT_NEAR(mean_acceptance, random_walk_target_accept(2), 0.05);
}

}  // namespace
}  // namespace dpmcmc
