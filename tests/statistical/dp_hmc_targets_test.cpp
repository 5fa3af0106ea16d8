// Statistical runs of DP HMC ([Raisa2021] Algorithm 4), criteria as in
// preset_targets_test.cpp and thesis_penalty_test.cpp:
//   1. at a large ε the noise is small and DP HMC must reach the posterior: on the tempered 2-d
//      banana preset its draws are within 2× the exact-vs-exact MMD of exact posterior draws;
//   2. with the thesis' own setting on the flat 2-d banana at ε = 6 (Table 5.1, reference-
//      configs.md; 4 chains sharing the budget, first half discarded) the budget allows only a few
//      hundred iterations per chain, so the chains cannot converge; they must move toward the
//      posterior: the MMD of the kept draws to exact draws is below that of the starting points.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "diagnostics/mmd.hpp"
#include "models/banana.hpp"
#include "models/presets.hpp"
#include "privacy/gaussian_pld.hpp"
#include "privacy/iteration_templates.hpp"
#include "privacy/planner.hpp"
#include "run/dp_hmc_setup.hpp"
#include "run/private_plan.hpp"
#include "run/sampler_params.hpp"
#include "run/start_points.hpp"
#include "samplers/dp_hmc.hpp"
#include "test_allowance.hpp"
#include "test_noise.hpp"

namespace dpmcmc {
namespace {

struct ChainsOut {
  Mat draws;  // kept draws of all chains, pooled
  double acceptance = 0.0, grad_clip = 0.0, llr_clip = 0.0, noise_sd_llr = 0.0;
  std::uint64_t releases = 0;
  EventLog log;  // every chain's releases
};

// Runs one DpHmcKernel per chain (own PrivateData, event log, noise and algorithm streams from
// (seed, chain)) for `iterations` each, keeping every `thin`-th draw after `burn`.
ChainsOut run_dp_hmc(const Model& model, const Dataset& data, const DpHmcConfig& config,
                     const std::vector<Vec>& starts, std::size_t iterations, std::size_t burn,
                     std::size_t thin, std::uint64_t seed) {
  ChainsOut out;
  const auto chains = starts.size();
  const std::size_t kept = (iterations - burn) / thin;
  out.draws.resize(static_cast<Eigen::Index>(chains * kept), model.dim());
  const std::uint64_t per_grad = static_cast<std::uint64_t>(config.steps) + 1;
  double sum_extras[4] = {0, 0, 0, 0};
  std::size_t accepted = 0, row = 0;
  for (std::size_t c = 0; c < chains; ++c) {
    EventLog log;
    PrivateData pd(model, data, test_noise_rng(seed, c), log,
                   gaussian_allowance({{ReleaseKind::grad_sum, per_grad * iterations},
                                       {ReleaseKind::llr_sum, iterations}},
                                      kLowestTestMultiplier));
    DpHmcKernel kernel(model, pd, config);
    Rng rng = make_rng(seed, c);
    kernel.init(starts[c]);
    double extras[6];
    for (std::size_t i = 0; i < iterations; ++i) {
      const bool moved = kernel.transition(rng, extras).accepted;
      if (i < burn) continue;
      accepted += moved;
      for (int e = 0; e < 4; ++e) sum_extras[e] += extras[e == 2 ? 3 : e];
      if ((i - burn) % thin == thin - 1) {
        out.draws.row(static_cast<Eigen::Index>(row++)) = kernel.position().transpose();
      }
    }
    out.releases += log.releases();
    out.log.merge(log);
  }
  const double total = static_cast<double>(chains * (iterations - burn));
  out.acceptance = static_cast<double>(accepted) / total;
  out.grad_clip = sum_extras[0] / total;
  out.llr_clip = sum_extras[1] / total;
  out.noise_sd_llr = sum_extras[2] / total;
  return out;
}

// --- 1. Tempered 2-d banana, large ε ----------------------------------------------------------

constexpr std::size_t kDraws = 1000;

// The preset's posterior at 1/20 of the cost: n = 5000 rows with T = 1000/5000 (the posterior
// depends on the data through T·n and T·Σx only; [Raisa2021] Theorem 5.2), as in
// preset_targets_test.cpp. The releases are T·Σ clip(·) + noise with σ = τ√n·2T·b: to give the
// proxy the same noise as the full preset (n = 10⁵, T = 10⁻²) with parameters τ, the proxy uses
// τ·√(10⁵)·10⁻²/(√5000·0.2) = 0.2236·τ. The rows are draws of the same model, so the clipped
// shares are the same in distribution: the proxy runs (in law, up to the exact data) the chain the
// full preset would run.
TEST(DpHmcTargets, TemperedBananaAtLargeEpsilonReachesThePosterior) {
  const Preset& p = find_preset("banana-tempered-2d");
  const auto preset_model = p.make_model();
  BananaModel::Params params = dynamic_cast<const BananaModel&>(*preset_model).params();
  const std::size_t n = 5000;
  params.temperature = 1000.0 / static_cast<double>(n);
  const BananaModel model(params);
  Rng data_rng = preset_data_rng(11);
  const Dataset data = model.simulate(p.true_theta, n, data_rng);
  Rng ra = make_rng(11, 0, Stream::exact), rb = make_rng(11, 1, Stream::exact);
  const Mat exact_a = model.sample_posterior(data, kDraws, ra);
  const Mat exact_b = model.sample_posterior(data, kDraws, rb);

  // Full-preset parameters and their proxy equivalents. τ_l, τ_g, b_l, b_g are the thesis' for
  // this preset (docs/references.md); η = 0.004 with the Halton step and L = 100 are our
  // choice, as for HMC in preset_targets_test.cpp: the preset's η = 0.01, L = 10 is unstable in
  // part of the bulk, and pilot runs with L = 25 did not mix within the run (MMD 0.06 even with
  // clipping and noise switched off). Measured with these values: MMD 0.017 against the
  // exact-vs-exact 0.026 (limit 0.052), acceptance 0.75, gradient rows clipped 40% (this does
  // not bias the target), ratio rows clipped 4%, mean σ_l 0.44; ε = 50 allows 13346 iterations,
  // the run needs 10080. With the noise and clipping off the same run gave 0.024: the clipping at
  // these bounds does not move the draws measurably at this sample size.
  DpHmcConfig full;
  full.tau_l = 0.2;  // the thesis' τ_l and τ_g for this preset
  full.tau_g = 0.6;
  full.clip_l = 2.5;
  full.clip_g = 2.0;
  full.step_size = 0.004;
  full.steps = 100;
  full.jitter = StepJitter::halton;
  const double scale = std::sqrt(1e5) * 0.01 / (std::sqrt(double(n)) * params.temperature);
  DpHmcConfig proxy = full;
  proxy.tau_l *= scale;
  proxy.tau_g *= scale;

  constexpr int kChains = 4;
  constexpr std::size_t kThin = 10, kBurn = 20;
  const std::size_t iterations = kBurn + kDraws / kChains * kThin;
  // ε = 50 on the full preset (δ = 0.1/n, 4 chains sharing the budget) allows more iterations
  // than the proxy runs, so this run is a prefix of an ε = 50 run.
  const auto tmpl = dp_hmc_template(full.tau_l, full.tau_g, full.steps, 1e5);
  const std::uint64_t allowed =
      plan_iterations({50.0, 1e-6}, tmpl, GaussianPldAccountant{}).iterations;
  RecordProperty("eps50_iterations", std::to_string(allowed));
  ASSERT_GE(allowed, kChains * iterations);

  std::vector<Vec> starts;
  for (int c = 0; c < kChains; ++c) starts.push_back(exact_b.row(c).transpose());
  const ChainsOut out = run_dp_hmc(model, data, proxy, starts, iterations, kBurn, kThin, 21);
  ASSERT_EQ(out.draws.rows(), static_cast<Eigen::Index>(kDraws));

  Rng bw_rng = make_rng(31, 0);
  const double h = median_heuristic_bandwidth(exact_a, exact_b, 200, bw_rng);
  const double exact_vs_exact = std::sqrt(std::abs(mmd2_unbiased(exact_a, exact_b, h)));
  const double dp_vs_exact = std::sqrt(std::abs(mmd2_unbiased(out.draws, exact_a, h)));
  RecordProperty("mmd", std::to_string(dp_vs_exact));
  RecordProperty("mmd_exact", std::to_string(exact_vs_exact));
  RecordProperty("acceptance", std::to_string(out.acceptance));
  RecordProperty("grad_clip_frac", std::to_string(out.grad_clip));
  RecordProperty("llr_clip_frac", std::to_string(out.llr_clip));
  RecordProperty("noise_sd_llr", std::to_string(out.noise_sd_llr));
  EXPECT_LT(dp_vs_exact, 2.0 * exact_vs_exact)
      << "MMD " << dp_vs_exact << " vs exact-vs-exact " << exact_vs_exact;
}

// --- 2. Flat 2-d banana, the thesis' setting at ε = 6 -----------------------------------------

// The budget allows 212 iterations per chain (Gaussian PLD, 4 chains sharing ε = 6, δ = 10⁻⁶);
// measured: MMD 0.125 of the kept halves against 0.394 of the starting points, acceptance 0.62.
// The margin (3×) is large against the run-to-run spread of an MMD from 4 × 106 correlated
// draws; a chain that did not move would stay at the starting MMD.

TEST(DpHmcTargets, FlatBananaMovesTowardThePosteriorAtEpsilon6) {
  const Preset& p = find_preset("banana-flat-2d");
  const auto model = p.make_model();
  constexpr std::uint64_t kSeed = 12;
  const Dataset data = simulate_preset(p, *model, kSeed);
  const auto& h = p.samplers.at("dp-hmc");
  DpHmcConfig c;
  c.tau_l = h.at("tau_l").get<double>();
  c.tau_g = h.at("tau_g").get<double>();
  c.clip_l = h.at("clip_l").get<double>();
  c.clip_g = h.at("clip_g").get<double>();
  c.step_size = h.at("step_size").get<double>();
  c.steps = h.at("steps").get<int>();

  // The plan a job makes: ε = 6, δ = 0.1/n, 4 chains share the budget.
  constexpr int kChains = 4;
  const auto tmpl = dp_hmc_template(c.tau_l, c.tau_g, c.steps, double(p.n));
  const PrivateRunPlan plan = plan_private_run({6.0, p.delta}, tmpl, kChains);
  const std::size_t iterations = plan.split.per_chain.at(0);
  RecordProperty("iterations_per_chain", std::to_string(iterations));

  // Section 5.2's starting points: true θ + N(0, I)·(mean posterior sd).
  InitConfig init;
  init.centre = p.true_theta;
  init.spread = start_deviation(p, *model, data, kSeed);
  std::vector<Vec> starts;
  Mat start_rows(kChains, model->dim());
  for (int ch = 0; ch < kChains; ++ch) {
    starts.push_back(starting_point(init, model->dim(), kSeed, ch, ch));
    start_rows.row(ch) = starts.back().transpose();
  }
  const ChainsOut out = run_dp_hmc(*model, data, c, starts, iterations, iterations / 2, 1, kSeed);

  Rng exact_rng = make_rng(kSeed, 0, Stream::exact);
  const Mat reference = model->sample_posterior(data, 1000, exact_rng);
  Rng mmd_rng = make_rng(1, 0);
  const MmdResult dp = mmd(out.draws, reference, mmd_rng);
  Rng mmd_rng2 = make_rng(1, 0);
  const double start_mmd = mmd(start_rows, reference, mmd_rng2, {50, dp.bandwidth}).mmd;
  RecordProperty("mmd", std::to_string(dp.mmd));
  RecordProperty("start_mmd", std::to_string(start_mmd));
  RecordProperty("acceptance", std::to_string(out.acceptance));
  RecordProperty("grad_clip_frac", std::to_string(out.grad_clip));
  RecordProperty("llr_clip_frac", std::to_string(out.llr_clip));
  EXPECT_LT(dp.mmd, start_mmd);

  // Recorded = planned (every trajectory finite: all planned releases were made).
  const double recorded = GaussianPldAccountant{}.compose(out.log.events())->epsilon(p.delta);
  const double planned =
      iterations_spend(GaussianPldAccountant{}, tmpl, iterations * kChains, p.delta);
  EXPECT_NEAR(recorded, planned, 1e-9 * planned);
  EXPECT_LE(planned, 6.0);
}

// --- 3. The job setup (not statistical; here because this executable links the run layer) ---

// setup_dp_hmc on the preset's defaults: the template is dp_hmc_template of those values, the
// Halton flag is read, and missing or malformed keys are UsageErrors naming the key.
TEST(DpHmcSetup, FromPresetParameters) {
  const Preset& p = find_preset("banana-dphmc-2d");
  const auto model = p.make_model();
  const nlohmann::json params = sampler_params(p, "dp-hmc", nlohmann::json::object());
  const DpHmcConfig c = dp_hmc_config("dp-hmc", params, *model);
  EXPECT_EQ(c.jitter, StepJitter::halton);
  EXPECT_EQ(c.steps, 25);
  EXPECT_DOUBLE_EQ(c.tau_g, 0.55);
  const PrivateSamplerSetup setup = setup_dp_hmc("dp-hmc", params, *model, p.n);
  const auto expected = dp_hmc_template(0.10, 0.55, 25, double(p.n));
  ASSERT_EQ(setup.per_iteration.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(setup.per_iteration[i].kind, expected[i].kind);
    EXPECT_EQ(setup.per_iteration[i].count, expected[i].count);
    EXPECT_DOUBLE_EQ(setup.per_iteration[i].noise_sd, expected[i].noise_sd);
  }
  const Preset& flat = find_preset("banana-flat-2d");
  const auto flat_model = flat.make_model();
  EXPECT_EQ(dp_hmc_config("dp-hmc", sampler_params(flat, "dp-hmc", {}), *flat_model).jitter,
            StepJitter::none);

  for (const char* key : {"tau_l", "tau_g", "clip_l", "clip_g", "step_size", "steps"}) {
    nlohmann::json bad = params;
    bad.erase(key);
    try {
      setup_dp_hmc("dp-hmc", bad, *model, p.n);
      ADD_FAILURE() << key;
    } catch (const UsageError& e) {
      std::string option = std::string("--") + key;  // the message names the option
      std::replace(option.begin(), option.end(), '_', '-');
      EXPECT_NE(std::string(e.what()).find(option), std::string::npos) << e.what();
    }
  }
  nlohmann::json bad = params;
  bad["randomized_step_size"] = "yes";
  EXPECT_THROW(setup_dp_hmc("dp-hmc", bad, *model, p.n), UsageError);
  bad = params;
  bad["steps"] = 2.5;
  EXPECT_THROW(setup_dp_hmc("dp-hmc", bad, *model, p.n), UsageError);
  bad = params;
  bad["clip_g"] = -1.0;
  EXPECT_THROW(setup_dp_hmc("dp-hmc", bad, *model, p.n), ConfigError);
}

}  // namespace
}  // namespace dpmcmc
