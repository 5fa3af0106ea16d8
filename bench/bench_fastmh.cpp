// Per-iteration cost of DP-Fast MH ([ZhangZhang2023] Algorithm 2; samplers/dp_fast_mh.hpp)
// on the truncated Gaussian mixture of [ZhangZhang2023] Section 6.1 (σx² = 2, true θ = (0, 1), data
// range [−8, 8], box |θ_j| ≤ 3), ε = 0.05 and δ = 1e-9 per iteration, started at the true θ.
//   DpFastMhIteration/N/τ/λ/K   N simulated rows, temperature τ (T = 1/τ), λ, cap K:
//     N = 50 000, τ = 500        [ZhangZhang2023]'s setting (N·T = 100), proposal sd 0.06
//     N = 10⁶,    τ = 10 000     the same posterior width (N·T = 100): B stays put
//     N = 10⁶,    τ = 500        20× the data at [ZhangZhang2023]'s temperature: C̄, hence B,
//                                grows 20× (proposal sd 0.06/√20 to keep the step's acceptance)
//   DpFastMhFullBatch/N/τ        the full-batch variant (every iteration reads all N rows).
// Counters: batch = mean B (public: draws incl. the padding row), rows = mean rows evaluated
// (real draws; n in full-batch iterations), full = fraction of full-batch iterations, accept.
#include <benchmark/benchmark.h>

#include <cmath>
#include <map>
#include <memory>
#include <utility>

#include "models/gaussian_mixture.hpp"
#include "privacy/fastmh_guarantee.hpp"
#include "samplers/dp_fast_mh.hpp"
#include "test_allowance.hpp"
#include "test_noise.hpp"

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

void run(benchmark::State& state, bool full_batch) {
  const Problem& p = problem(state.range(0), state.range(1));
  const double nt = static_cast<double>(state.range(0)) / static_cast<double>(state.range(1));
  DpFastMhConfig c;
  c.scale = Vec::Constant(1, 0.06 * std::sqrt(100.0 / nt));
  c.lambda = full_batch ? 10.0 : static_cast<double>(state.range(2));
  c.max_batch = full_batch ? 1 : static_cast<std::uint64_t>(state.range(3));
  c.epsilon = 0.05;
  c.delta = 1e-9;
  c.full_batch = full_batch;
  EventLog log;
  PrivateData data(*p.model, p.data, test_noise_rng(3, 0), log,
                   template_allowance(fastmh_template(c.epsilon, c.delta), std::uint64_t{1} << 40));
  DpFastMhKernel kernel(*p.model, data, c);
  Vec start(2);
  start << 0.0, 1.0;
  kernel.init(start);
  Rng rng = make_rng(2, 0);
  std::vector<double> extras(kernel.extra_columns().size());
  for (int i = 0; i < (full_batch ? 20 : 2000); ++i) kernel.transition(rng, extras);
  const auto it0 = kernel.iterations(), rows0 = kernel.rows_evaluated();
  const auto full0 = kernel.full_batch_iterations();
  double batch = 0.0;
  std::int64_t accepted = 0;
  for (auto _ : state) {
    accepted += kernel.transition(rng, extras).accepted;
    batch += extras[0];
  }
  const auto n = static_cast<double>(state.iterations());
  const auto rows = static_cast<double>(kernel.rows_evaluated() - rows0);
  state.SetItemsProcessed(static_cast<std::int64_t>(rows));
  state.counters["batch"] = batch / n;
  state.counters["rows"] = rows / n;
  state.counters["full"] = static_cast<double>(kernel.full_batch_iterations() - full0) /
                           static_cast<double>(kernel.iterations() - it0);
  state.counters["accept"] = static_cast<double>(accepted) / n;
  state.counters["nu1"] = kernel.calibration().minibatch_multiplier;
}

void DpFastMhIteration(benchmark::State& state) {
  run(state, false);
}
void DpFastMhFullBatch(benchmark::State& state) {
  run(state, true);
}

BENCHMARK(DpFastMhIteration)
    ->Args({50000, 500, 10, 150})
    ->Args({50000, 500, 200, 400})
    ->Args({1000000, 10000, 200, 400})
    ->Args({1000000, 500, 200, 800})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(DpFastMhFullBatch)
    ->Args({50000, 500})
    ->Args({1000000, 500})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace dpmcmc

BENCHMARK_MAIN();
