// Do the non-private samplers target the right posterior on the built-in presets? (issue "Core
// engine", Done when.) Criterion of the issue: the MMD of the sampler's draws to exact posterior
// draws is within 2× the MMD between two independent exact samples of the same size.
//
// Why the criterion is meaningful with these sizes: MCMC draws are autocorrelated, and the MMD of
// a correlated sample behaves like that of an iid sample of its effective size. We therefore
// thin each chain to (about) independent draws — thinning by more than the integrated
// autocorrelation time measured on pilot runs — and compare N = 1000 thinned draws with N = 1000
// exact draws. Chains start from exact posterior draws (so no burn-in bias enters: the test
// checks that the kernel leaves the posterior invariant and mixes over it), and all seeds are
// fixed. A wrong target (e.g. a gradient off by a factor, a missing tempering factor, a wrong
// acceptance ratio) moves the draws by a sizeable fraction of a posterior sd, which raises MMD
// far above 2× the exact-vs-exact level (the exact-vs-exact MMD with N = 1000 is
// sqrt(|MMD²_u|) ≈ 0.03–0.05; a 0.5-sd shift gives ≈ 0.2).
#include <gtest/gtest.h>

#include "diagnostics/ess.hpp"
#include "diagnostics/mmd.hpp"
#include "diagnostics/sample_error.hpp"
#include "models/banana.hpp"
#include "models/presets.hpp"
#include "run/runner.hpp"
#include "samplers/hmc.hpp"
#include "samplers/rwmh.hpp"

namespace dpmcmc {
namespace {

constexpr std::size_t kDraws = 1000;  // compared sample sizes

struct Problem {
  const Preset& preset;
  std::unique_ptr<Model> model;
  Dataset data;
  Mat exact_a, exact_b;  // two independent exact samples of kDraws
};

void draw_exact(Problem& pr) {
  Rng ra = make_rng(11, 0, Stream::exact), rb = make_rng(11, 1, Stream::exact);
  pr.exact_a = pr.model->sample_posterior(pr.data, kDraws, ra);
  pr.exact_b = pr.model->sample_posterior(pr.data, kDraws, rb);
}

Problem make_problem(const std::string& name, std::optional<std::size_t> n = std::nullopt) {
  const Preset& p = find_preset(name);
  Problem pr{p, p.make_model(), {}, {}, {}};
  pr.data = simulate_preset(p, *pr.model, 11, n);
  draw_exact(pr);
  return pr;
}

// The tempered 2-d banana preset on n = 5000 rows with T = n0/n = 1000/5000: its posterior
// depends on the data only through T·n = 1000 (as in the preset) and T·Σx, so it has the
// preset's shape at 1/20 of the cost per iteration ([Raisa2021] Theorem 5.2).
Problem tempered_banana_problem() {
  const Preset& p = find_preset("banana-tempered-2d");
  const auto preset_model = p.make_model();
  BananaModel::Params params = dynamic_cast<const BananaModel&>(*preset_model).params();
  const std::size_t n = 5000;
  params.temperature = 1000.0 / static_cast<double>(n);
  Problem pr{p, std::make_unique<BananaModel>(params), {}, {}, {}};
  Rng data_rng = preset_data_rng(11);
  pr.data = pr.model->simulate(p.true_theta, n, data_rng);
  draw_exact(pr);
  return pr;
}

// Runs `chains` chains from exact draws, keeps kDraws thinned draws in total.
Mat run_from_exact(const Problem& pr, const KernelFactory& kernels, int chains, std::size_t thin,
                   std::size_t warmup = 100) {
  RunConfig config;
  config.chains = chains;
  config.seed = 21;
  config.warmup = warmup;
  config.samples = kDraws / static_cast<std::size_t>(chains) * thin;
  config.thin = thin;
  config.progress = ProgressMode::never;
  config.handle_sigint = false;
  for (int c = 0; c < chains; ++c) config.init.points.push_back(pr.exact_b.row(c).transpose());
  const RunResult result = run_chains(kernels, pr.model->param_names(), config);
  EXPECT_TRUE(result.complete());
  Mat pooled(0, pr.model->dim());
  for (std::size_t c = 0; c < result.chains.size(); ++c) {
    const Mat d = result.param_draws(c);
    Mat grown(pooled.rows() + d.rows(), d.cols());
    grown << pooled, d;
    pooled = std::move(grown);
  }
  return pooled;
}

void expect_close_to_exact(const Problem& pr, const Mat& draws, const std::string& what) {
  ASSERT_EQ(draws.rows(), static_cast<Eigen::Index>(kDraws)) << what;
  // One bandwidth for both comparisons (median heuristic on the exact samples), so the two MMDs
  // are on the same scale.
  Rng bw_rng = make_rng(31, 0);
  const double h = median_heuristic_bandwidth(pr.exact_a, pr.exact_b, 200, bw_rng);
  const double exact_vs_exact = std::sqrt(std::abs(mmd2_unbiased(pr.exact_a, pr.exact_b, h)));
  const double sampler_vs_exact = std::sqrt(std::abs(mmd2_unbiased(draws, pr.exact_a, h)));
  ::testing::Test::RecordProperty(what + "_mmd", std::to_string(sampler_vs_exact));
  ::testing::Test::RecordProperty(what + "_mmd_exact", std::to_string(exact_vs_exact));
  EXPECT_LT(sampler_vs_exact, 2.0 * exact_vs_exact)
      << what << ": MMD " << sampler_vs_exact << " vs exact-vs-exact " << exact_vs_exact;
}

Vec posterior_sd(const Mat& exact) {
  return ((exact.rowwise() - exact.colwise().mean()).array().square().colwise().mean()).sqrt();
}

// Tempered 2-d banana (preset shape, see tempered_banana_problem). RWMH with a proposal of 0.6 ×
// the component-wise posterior sd (acceptance ≈ 0.3 on this curved target); thinning 40 exceeds the
// integrated autocorrelation time measured in pilot runs (≈ 25 iterations).
TEST(PresetTargets, RwmhTemperedBanana) {
  const Problem pr = tempered_banana_problem();
  RwmhConfig config;
  config.scale = 0.6 * posterior_sd(pr.exact_a);
  const auto factory = [&](int) { return make_rwmh(*pr.model, pr.data, config); };
  expect_close_to_exact(pr, run_from_exact(pr, factory, 4, 40), "rwmh_banana_tempered_2d");
}

// HMC on the same banana: η = 0.002 keeps the leapfrog stable where the banana's curvature is
// largest within the bulk (|θ1| ≲ 0.4: curvature ≈ (nT/σ2²)(2aθ1)² ≈ 1e5, so η < 2/√1e5 ≈ 6e-3),
// L = 100 gives trajectories of length ≈ 0.2 (more than θ1's posterior sd 0.14); thinning 5.
TEST(PresetTargets, HmcTemperedBanana) {
  const Problem pr = tempered_banana_problem();
  HmcConfig config;
  config.step_size = 0.002;
  config.steps = 100;
  const auto factory = [&](int) { return make_hmc(*pr.model, pr.data, config); };
  expect_close_to_exact(pr, run_from_exact(pr, factory, 4, 5, 20), "hmc_banana_tempered_2d");
}

// The same with the randomised Halton step size ([RaisaKoskelaHonkela2021] Section 3): η_i = h_i·η
// with h_i ∈ (0, 1), mean η/2, so twice the nominal η keeps the mean trajectory length; the
// thinning doubles because the trajectory lengths now vary (pilot runs: the θ2 sd of the pooled
// draws was 30% low with thinning 5 — four chains that had not yet spread over the banana).
TEST(PresetTargets, HmcHaltonTemperedBanana) {
  const Problem pr = tempered_banana_problem();
  HmcConfig config;
  config.step_size = 0.004;
  config.steps = 100;
  config.jitter = StepJitter::halton;
  const auto factory = [&](int) { return make_hmc(*pr.model, pr.data, config); };
  expect_close_to_exact(pr, run_from_exact(pr, factory, 4, 10, 20),
                        "hmc_halton_banana_tempered_2d");
}

// The 30-d Gaussian preset with n = 2000 rows (a Gaussian posterior whose scale alone depends
// on n: the test of the kernel is the same, at 1/100 of the cost). RWMH with the optimal-scaling
// proposal 2.38/√d × posterior sd (Roberts, Gelman and Gilks 1997), acceptance ≈ 0.23; the
// integrated autocorrelation time is ≈ 3.3·d ≈ 100, thinning 150.
TEST(PresetTargets, RwmhGauss30d) {
  const Problem pr = make_problem("gauss-30d", 2000);
  RwmhConfig config;
  config.scale = 2.38 / std::sqrt(30.0) * posterior_sd(pr.exact_a);
  const auto factory = [&](int) { return make_rwmh(*pr.model, pr.data, config); };
  expect_close_to_exact(pr, run_from_exact(pr, factory, 4, 150), "rwmh_gauss_30d");
}

// HMC on the 30-d Gaussian with the mass matrix set to the posterior precision (the standard
// diagonal preconditioning), η = 0.3, L = 8: near-independent draws each iteration; thinning 2.
TEST(PresetTargets, HmcGauss30d) {
  const Problem pr = make_problem("gauss-30d", 2000);
  HmcConfig config;
  config.mass = posterior_sd(pr.exact_a).array().square().inverse().matrix();
  config.step_size = 0.3;
  config.steps = 8;
  const auto factory = [&](int) { return make_hmc(*pr.model, pr.data, config); };
  expect_close_to_exact(pr, run_from_exact(pr, factory, 2, 2, 20), "hmc_gauss_30d");
}

// Circle (no exact sampler): the posterior mean is the origin ([Raisa2021] Section 5.1).
// With n = 10⁴ rows, RWMH with proposal sd 0.2 (the thesis' DP penalty setting).
// Tolerance: each coordinate of the pooled mean has sd ≈ √(Var/ESS); Var ≈ R²/2 ≈ 5 on a ring
// of radius R = √E[r²] = √10. With the bulk ESS of each coordinate measured from the chains, the
// distance of the mean from the origin is (about) Rayleigh with that scale, and 4.3 scales is
// its 1 − 10⁻⁴ quantile. A sampler stuck on part of the ring has a mean at distance ≈ R.
TEST(PresetTargets, RwmhCircleMeanAtOrigin) {
  const Preset& p = find_preset("circle");
  const auto model = p.make_model();
  const Dataset data = simulate_preset(p, *model, 11, 10000);
  RwmhConfig config;
  config.scale = Vec::Constant(1, 0.2);
  RunConfig run;
  run.chains = 4;
  run.seed = 5;
  run.warmup = 2000;
  run.samples = 20000;
  run.progress = ProgressMode::never;
  run.handle_sigint = false;
  run.init.centre = p.start_centre;
  run.init.spread = 1.0;
  const auto factory = [&](int) { return make_rwmh(*model, data, config); };
  const RunResult result = run_chains(factory, model->param_names(), run);
  Mat pooled(0, 2);
  Mat per_coord[2] = {Mat(run.samples, run.chains), Mat(run.samples, run.chains)};
  for (int c = 0; c < run.chains; ++c) {
    const Mat d = result.param_draws(static_cast<std::size_t>(c));
    for (int j = 0; j < 2; ++j) per_coord[j].col(c) = d.col(j);
    Mat grown(pooled.rows() + d.rows(), 2);
    grown << pooled, d;
    pooled = std::move(grown);
  }
  const double ess = std::min(ess_bulk(per_coord[0]), ess_bulk(per_coord[1]));
  const Vec var = posterior_sd(pooled).array().square();
  const double scale = std::sqrt(var.mean() / ess);
  const double dist = mean_error_from_mean(pooled, Vec::Zero(2));
  ::testing::Test::RecordProperty("circle_mean_distance", std::to_string(dist));
  ::testing::Test::RecordProperty("circle_ess", std::to_string(ess));
  EXPECT_GT(ess, 50.0) << "the chains barely move around the ring";
  EXPECT_LT(dist, 4.3 * scale) << "ESS " << ess << ", scale " << scale;
  // And the draws do lie on the ring of radius ≈ √10 (not collapsed to the origin).
  EXPECT_NEAR(pooled.rowwise().norm().mean(), std::sqrt(10.0), 0.3);
}

}  // namespace
}  // namespace dpmcmc
