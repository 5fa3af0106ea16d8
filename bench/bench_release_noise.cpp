// Overhead of the float-safe noise (issue #23) on the `make run` job's release: one DP penalty
// log-likelihood-ratio release over the banana-tempered-2d preset's n = 10⁵ rows with its
// published τ and clip bound, at a proposal-sized move.
//   LlrRelease/float_gaussian   the pre-#23 arithmetic: the fused clipped sum plus σ·N(0, 1)
//                               from the polar method on doubles (the baseline)
//   LlrRelease/grid             PrivateData::llr_sum as released now: the allowance check, the
//                               grid calibration, the clipped sum rounded to the grid, and an
//                               exact discrete Gaussian of scale ≥ 2⁴⁰ grid steps
//   Noise/float_gaussian, Noise/grid   the noise alone (calibration included for the grid)
// docs/benchmarks.md reports grid / float_gaussian from one run.
#include <benchmark/benchmark.h>

#include <cmath>
#include <limits>
#include <memory>

#include "models/clipped_rows.hpp"
#include "models/presets.hpp"
#include "privacy/grid_noise.hpp"
#include "privacy/private_data.hpp"
#include "test_allowance.hpp"
#include "test_noise.hpp"

namespace dpmcmc {
namespace {

struct Problem {
  const Preset* preset = nullptr;
  std::unique_ptr<Model> model;
  Dataset data;
  Vec theta, theta_prime;
  double bound = 0.0, multiplier = 0.0;
};

const Problem& banana() {
  static const Problem problem = [] {
    Problem p;
    p.preset = &find_preset("banana-tempered-2d");
    p.model = p.preset->make_model();
    p.data = simulate_preset(*p.preset, *p.model, 1);
    const auto& d = p.preset->sampler_defaults("dp-penalty");
    p.theta = p.preset->true_theta;
    p.theta_prime = p.theta + Vec::Constant(p.theta.size(), d.at("proposal_sd").get<double>());
    p.bound = d.at("clip").get<double>() * (p.theta_prime - p.theta).norm();
    p.multiplier = d.at("tau").get<double>() * std::sqrt(static_cast<double>(p.data.rows()));
    return p;
  }();
  return problem;
}

void BM_LlrRelease_float_gaussian(benchmark::State& state) {
  const Problem& p = banana();
  NoiseRng rng = test_noise_rng(1, 0);
  Vec scratch;
  const double t = p.model->temperature();
  const double sd = p.multiplier * 2.0 * t * p.bound;
  for (auto _ : state) {
    const ClippedLlr c =
        clipped_llr_sum(*p.model, p.data, p.theta, p.theta_prime, p.bound, scratch);
    benchmark::DoNotOptimize(t * c.sum + sd * rng.normal());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(p.data.rows()));
}
BENCHMARK(BM_LlrRelease_float_gaussian)->Unit(benchmark::kMicrosecond);

void BM_LlrRelease_grid(benchmark::State& state) {
  const Problem& p = banana();
  EventLog log;
  PrivateData pd(
      *p.model, p.data, test_noise_rng(1, 0), log,
      gaussian_allowance({{ReleaseKind::llr_sum, std::numeric_limits<std::uint64_t>::max()}},
                         p.multiplier));
  for (auto _ : state) {
    benchmark::DoNotOptimize(pd.llr_sum(p.theta, p.theta_prime, p.bound, p.multiplier).value);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(p.data.rows()));
}
BENCHMARK(BM_LlrRelease_grid)->Unit(benchmark::kMicrosecond);

void BM_Noise_float_gaussian(benchmark::State& state) {
  NoiseRng rng = test_noise_rng(2, 0);
  for (auto _ : state) benchmark::DoNotOptimize(0.3 + 1.7 * rng.normal());
}
BENCHMARK(BM_Noise_float_gaussian);

void BM_Noise_grid(benchmark::State& state) {
  NoiseRng rng = test_noise_rng(2, 0);
  for (auto _ : state) {
    const GridNoise g = calibrate_grid_noise(1.7, 1.0, 1, 1e-12);
    benchmark::DoNotOptimize(
        grid_release(0.3, g.grid, DiscreteGaussian(DiscreteGaussianScale::integer(g.scale)), rng));
  }
}
BENCHMARK(BM_Noise_grid);

}  // namespace
}  // namespace dpmcmc

BENCHMARK_MAIN();
