// Per-iteration cost of DP-SGLD (issue 5): one transition on the gauss-10d preset (n = 10⁵,
// d = 10; and the 2-d banana below) at the DP HMC paper's batch size b = 1000 (clip 15, η₀ = 0.008
// per row; run/sgld_setup.hpp) — the batch drawn inside PrivateData from the ChaCha20 noise stream
// (Poisson: geometric skips; without replacement: Floyd, privacy/batch_sampling.hpp), the rows
// gathered, per-row gradients clipped and summed, Gaussian noise added, the event appended — and
// the Langevin update. items = expected rows touched per transition (b).
#include <benchmark/benchmark.h>

#include <limits>
#include <memory>
#include <string>

#include "models/presets.hpp"
#include "privacy/private_data.hpp"
#include "run/sampler_params.hpp"
#include "run/sgld_setup.hpp"
#include "test_noise.hpp"

namespace dpmcmc {
namespace {

struct Problem {
  const Preset* preset = nullptr;
  std::unique_ptr<Model> model;
  Dataset data;
};

Problem make_problem(const char* preset) {
  Problem q;
  q.preset = &find_preset(preset);
  q.model = q.preset->make_model();
  q.data = simulate_preset(*q.preset, *q.model, 1);
  return q;
}

const Problem& gauss10d() {
  static const Problem p = make_problem("gauss-10d");
  return p;
}

const Problem& banana() {
  static const Problem p = make_problem("banana-dphmc-2d");
  return p;
}

void run(benchmark::State& state, const char* sampling, const Problem& p = gauss10d()) {
  nlohmann::json overrides = {{"batch_size", 1000}, {"batch_sampling", sampling}};
  const nlohmann::json params = sampler_params(*p.preset, "dp-sgld", overrides);
  const PrivateSamplerSetup setup = setup_dp_sgld("dp-sgld", params, *p.model, p.data.rows());
  EventLog log;
  auto data = std::make_unique<PrivateData>(
      *p.model, p.data, test_noise_rng(1, 0), log,
      allowance_for(setup, std::numeric_limits<std::uint64_t>::max()));
  auto kernel = setup.make_kernel(std::move(data));
  kernel->init(p.preset->true_theta);
  Rng rng = make_rng(1, 0);
  std::vector<double> extras(kernel->extra_columns().size());
  double rows = 0.0;
  for (auto _ : state) {
    kernel->transition(rng, extras);
    rows += extras[2];
  }
  state.SetItemsProcessed(state.iterations() * 1000);
  state.counters["mean_batch"] = rows / static_cast<double>(state.iterations());
  state.counters["clip_frac"] = extras[0];
}

void BM_DpSgldStepGauss10dPoisson(benchmark::State& state) {
  run(state, "poisson");
}
BENCHMARK(BM_DpSgldStepGauss10dPoisson)->Unit(benchmark::kMicrosecond);

void BM_DpSgldStepGauss10dWor(benchmark::State& state) {
  run(state, "without_replacement");
}
BENCHMARK(BM_DpSgldStepGauss10dWor)->Unit(benchmark::kMicrosecond);

// The DP HMC paper's banana (n = 10⁵, d = 2, b = 1000, clip 0.2) with a batch without
// replacement: the per-row gradient is cheap, so drawing the batch is a large share of a step.
// (The paper experiment itself uses the Poisson default; docs/benchmarks.md.)
void BM_DpSgldStepBananaWor(benchmark::State& state) {
  run(state, "without_replacement", banana());
}
BENCHMARK(BM_DpSgldStepBananaWor)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace dpmcmc

BENCHMARK_MAIN();
