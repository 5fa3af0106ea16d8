// Warmup adaptation driven by the runner (RunConfig::adapt; samplers/warmup_adapter.hpp): it
// reaches the target acceptance and the posterior scales, it is a function of the published
// columns only (replayed from the saved warmup rows, bit for bit), and it is off by default.
#include <gtest/gtest.h>

#include <cmath>

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

RunConfig adapting_run(std::size_t samples) {
  RunConfig run;
  run.chains = 2;
  run.seed = 21;
  run.warmup = 1000;
  run.samples = samples;
  run.adapt = true;
  run.save_warmup = true;
  run.progress = ProgressMode::never;
  run.handle_sigint = false;
  return run;
}

// RWMH started from a scale 100× too small: after Stan's warmup the metric is within 50% of the
// posterior variances (the last window holds 500 draws of a random walk with an integrated
// autocorrelation of ~10, an effective ~50: a variance estimate's relative sd is then ~20%, so 50%
// is 2.5 sd) and the sampling acceptance within 0.06 of the 2-d random-walk target (the binomial
// sd over 4000 draws is 0.008; the rest is the step's own sampling error at the end of warmup).
TEST(Adaptation, RandomWalkReachesTargetAndPosteriorScales) {
  const auto model = testing::standard_model();
  const Dataset data = testing::standard_data(model);
  const Mat cov = model.posterior_cov(data);
  RwmhConfig config;
  config.scale = Vec::Constant(1, 0.01 * std::sqrt(cov.diagonal().minCoeff()));
  const RunResult r = run_chains([&](int) { return make_rwmh(model, data, config); },
                                 model.param_names(), adapting_run(4000));
  const double target = random_walk_target_accept(2);
  EXPECT_TRUE(make_rwmh(model, data, config)->adaptation()->random_walk);
  for (const auto& chain : r.chains) {
    ASSERT_TRUE(chain.tuning);
    for (int j = 0; j < 2; ++j) {
      EXPECT_NEAR(chain.tuning->metric[j], cov(j, j), 0.5 * cov(j, j)) << j;
    }
    EXPECT_NEAR(chain.acceptance_rate(), target, 0.06);
  }
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

// The same for a private sampler: DP penalty's adapted proposal (ε, m of the sd ε√m, starting
// at ε = 1, m = s²) is recomputed from the published accept_stat__ and θ of its warmup rows, so
// it is post-processing of the releases (docs/decisions.md, "Adaptation is post-processing").
TEST(Adaptation, PrivateTuningIsReplayedFromPublishedWarmupColumns) {
  const Preset& preset = find_preset("banana-tempered-2d");
  const auto model = preset.make_model();
  const Dataset data = simulate_preset(preset, *model, 5, std::size_t{2000});
  const nlohmann::json params = sampler_params(preset, "dp-penalty", nlohmann::json::object());
  RunConfig run = adapting_run(0);
  run.init.centre = preset.start_centre;
  run.init.spread = 0.0;
  SampleSpec spec;
  spec.sampler = "dp-penalty";
  spec.epsilon = 4.0;
  spec.noise_key = std::make_shared<const NoiseKey>(NoiseKey::from_bytes(NoiseKey::Bytes{}));
  PrivateJob job = prepare_private_job(spec, *find_private_sampler("dp-penalty"), preset, *model,
                                       data, params, run);
  const RunResult r =
      run_chains(private_kernel_factory(job, *model, data, run), model->param_names(), run);
  const double s = params.at("proposal_sd").get<double>();
  const Tuning initial{1.0, Vec::Constant(2, s * s)};
  for (const auto& chain : r.chains) {
    const Mat& w = chain.warmup_draws;
    ASSERT_GE(w.rows(), 20) << "too few warmup iterations for a metric window";
    ASSERT_TRUE(chain.tuning);
    const Tuning replayed =
        replay_adaptation({random_walk_target_accept(2), true, true}, initial,
                          static_cast<std::size_t>(w.rows()), w.col(1), w.rightCols(2));
    EXPECT_EQ(replayed.step, chain.tuning->step);
    EXPECT_EQ(replayed.metric, chain.tuning->metric);
    EXPECT_NE(replayed.metric, initial.metric);  // it did adapt
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
