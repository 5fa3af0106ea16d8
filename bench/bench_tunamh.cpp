// Per-iteration cost of TunaMH ([ZhangZhang2023] Algorithm 1) on the truncated Gaussian
// mixture of [ZhangZhang2023] Section 6.1 (σx² = 2, true θ = (0, 1), data range [−8, 8],
// box |θ_j| ≤ 3), proposal sd 0.06 and λ = 10 (docs/references.md, "DP-Fast MH"), started at the
// true θ.
//   TunaMhIteration/N/τ   N simulated rows, temperature τ (T = 1/τ):
//     N = 50 000,  τ = 500     [ZhangZhang2023]'s setting (N·T = 100)
//     N = 10⁶,     τ = 10 000  the same posterior width (N·T = 100): the batch size stays put
//     N = 10⁶,     τ = 500     20× the data at [ZhangZhang2023]'s temperature: C, hence the
//                              batch, grows 20×
// Counters: batch_size = mean B (rows evaluated per iteration), minibatch = mean |I|, accept =
// acceptance rate; items/s = rows evaluated per second.
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <utility>

#include "models/gaussian_mixture.hpp"
#include "samplers/tunamh.hpp"

namespace dpmcmc {
namespace {

struct Problem {
  std::unique_ptr<GaussianMixtureModel> model;
  Dataset data;
};

const Problem& problem(std::int64_t rows, std::int64_t tau) {
  static std::map<std::pair<std::int64_t, std::int64_t>, Problem> cache;
  auto& p = cache[{rows, tau}];
  if (!p.model) {
    GaussianMixtureModel::Params params;
    params.temperature = 1.0 / static_cast<double>(tau);
    p.model = std::make_unique<GaussianMixtureModel>(params);
    Vec truth(2);
    truth << 0.0, 1.0;
    Rng rng = make_rng(1, 0, Stream::data);
    p.data = p.model->simulate(truth, static_cast<std::size_t>(rows), rng);
  }
  return p;
}

void TunaMhIteration(benchmark::State& state) {
  const Problem& p = problem(state.range(0), state.range(1));
  TunaMhConfig config;
  config.scale = Vec::Constant(1, 0.06);
  config.lambda = 10.0;
  auto kernel = make_tunamh(*p.model, p.data, config);
  Vec start(2);
  start << 0.0, 1.0;
  kernel->init(start);
  Rng rng = make_rng(2, 0);
  std::vector<double> extras(kernel->extra_columns().size());
  // Warm up off the clock so the chain is in the posterior's bulk.
  for (int i = 0; i < 2000; ++i) kernel->transition(rng, extras);
  double batch = 0.0, kept = 0.0;
  std::int64_t accepted = 0;
  for (auto _ : state) {
    accepted += kernel->transition(rng, extras).accepted;
    batch += extras[0];
    kept += extras[1];
  }
  const auto n = static_cast<double>(state.iterations());
  state.SetItemsProcessed(static_cast<std::int64_t>(batch));
  state.counters["batch_size"] = batch / n;
  state.counters["minibatch"] = kept / n;
  state.counters["accept"] = static_cast<double>(accepted) / n;
  state.counters["C"] = static_cast<const TunaMhKernel&>(*kernel).total_bound();
}

BENCHMARK(TunaMhIteration)
    ->Args({50000, 500})
    ->Args({1000000, 10000})
    ->Args({1000000, 500})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace dpmcmc

BENCHMARK_MAIN();
