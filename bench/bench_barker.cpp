// DP Barker's correction distribution V_corr ([Raisa2021] Section 3.3):
//   FitCorrection      one full fit at σ² = 2 with the default settings (NNLS + error measures):
//                      the cost a run pays once (its chains share the fit)
//   SampleCorrection   one V_corr variate from the privacy noise stream (ChaCha20): alias-table
//                      component pick + one normal
//   SampleBarkerNoise  N(0, σ²) + V_corr with a floating-point normal: the noise of one DP Barker
//                      test before the float-safe grid noise (privacy/barker_grid.hpp)
#include <benchmark/benchmark.h>

#include <cmath>

#include "core/rng.hpp"
#include "samplers/logistic_correction.hpp"
#include "test_noise.hpp"

namespace dpmcmc {
namespace {

void FitCorrection(benchmark::State& state) {
  for (auto _ : state) {
    const LogisticCorrection c(2.0);
    benchmark::DoNotOptimize(c.fit().tvd);
  }
}
BENCHMARK(FitCorrection)->Unit(benchmark::kMillisecond);

void SampleCorrection(benchmark::State& state) {
  const LogisticCorrection c(2.0);
  NoiseRng rng = test_noise_rng(1, 0);
  for (auto _ : state) benchmark::DoNotOptimize(c.sample(rng));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(SampleCorrection);

void SampleBarkerNoise(benchmark::State& state) {
  const LogisticCorrection c(2.0);
  NoiseRng rng = test_noise_rng(1, 0);
  const double sigma = std::sqrt(2.0);
  for (auto _ : state) benchmark::DoNotOptimize(sigma * rng.normal() + c.sample(rng));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(SampleBarkerNoise);

}  // namespace
}  // namespace dpmcmc

BENCHMARK_MAIN();
