// Per-iteration cost of the non-private kernels on banana-flat-2d ([Raisa2021] Table 5.1:
// d = 2, a = 20) with n = 10⁵ simulated rows:
//   HmcIteration   one HMC transition with L = 10 leapfrog steps (10 fused log-lik + gradient
//                  passes over the data), η = the preset's non-private step size (0.001)
//   HmcJittered    the same with the randomised-Halton step size
//   RwmhIteration  one RWMH transition (one log-likelihood pass), proposal sd 0.01
//   RunnerHmc4     4 HMC chains × 25 transitions through run_chains (threads = all cores):
//                  the runner's overhead and its parallel speed-up
// items = data rows touched (rows × passes), so items/s is the kernel's row throughput.
#include <benchmark/benchmark.h>

#include <memory>

#include "models/presets.hpp"
#include "run/runner.hpp"
#include "samplers/hmc.hpp"
#include "samplers/rwmh.hpp"

namespace dpmcmc {
namespace {

constexpr std::size_t kRows = 100000;
constexpr int kSteps = 10;

struct Problem {
  const Preset* preset = nullptr;
  std::unique_ptr<Model> model;
  Dataset data;
};

const Problem& banana() {
  static const Problem problem = [] {
    Problem p;
    p.preset = &find_preset("banana-flat-2d");
    p.model = p.preset->make_model();
    p.data = simulate_preset(*p.preset, *p.model, 1, kRows);
    return p;
  }();
  return problem;
}

HmcConfig hmc_config(StepJitter jitter) {
  HmcConfig c;
  c.step_size = banana().preset->sampler_defaults("hmc").at("step_size").get<double>();
  c.steps = kSteps;
  c.jitter = jitter;
  return c;
}

void run_kernel(benchmark::State& state, Kernel& kernel, std::int64_t passes) {
  const Problem& p = banana();
  kernel.init(p.preset->true_theta);
  Rng rng = make_rng(1, 0);
  std::vector<double> extras(kernel.extra_columns().size());
  std::int64_t accepted = 0;
  for (auto _ : state) {
    accepted += kernel.transition(rng, extras).accepted;
  }
  state.SetItemsProcessed(state.iterations() * passes * static_cast<std::int64_t>(kRows));
  state.counters["accept_rate"] =
      benchmark::Counter(static_cast<double>(accepted), benchmark::Counter::kAvgIterations);
}

void HmcIteration(benchmark::State& state) {
  auto kernel = make_hmc(*banana().model, banana().data, hmc_config(StepJitter::none));
  run_kernel(state, *kernel, kSteps);
}
BENCHMARK(HmcIteration)->Unit(benchmark::kMillisecond);

void HmcJittered(benchmark::State& state) {
  auto kernel = make_hmc(*banana().model, banana().data, hmc_config(StepJitter::halton));
  run_kernel(state, *kernel, kSteps);
}
BENCHMARK(HmcJittered)->Unit(benchmark::kMillisecond);

void RwmhIteration(benchmark::State& state) {
  RwmhConfig c;
  c.scale =
      Vec::Constant(1, banana().preset->sampler_defaults("rwmh").at("proposal_sd").get<double>());
  auto kernel = make_rwmh(*banana().model, banana().data, c);
  run_kernel(state, *kernel, 1);
}
BENCHMARK(RwmhIteration)->Unit(benchmark::kMillisecond);

void RunnerHmc4(benchmark::State& state) {
  const Problem& p = banana();
  RunConfig config;
  config.chains = 4;
  config.warmup = 0;
  config.samples = 25;
  config.progress = ProgressMode::never;
  config.handle_sigint = false;
  config.init.points = {p.preset->true_theta};
  const HmcConfig hc = hmc_config(StepJitter::halton);
  for (auto _ : state) {
    const RunResult r = run_chains([&](int) { return make_hmc(*p.model, p.data, hc); },
                                   p.model->param_names(), config);
    benchmark::DoNotOptimize(r.chains.data());
  }
  // Each chain also evaluates the gradient once at its start.
  state.SetItemsProcessed(state.iterations() * 4 * (25 * kSteps + 1) *
                          static_cast<std::int64_t>(kRows));
}
BENCHMARK(RunnerHmc4)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace dpmcmc

BENCHMARK_MAIN();
