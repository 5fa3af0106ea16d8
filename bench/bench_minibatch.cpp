// Per-iteration cost of the subsampled releases (issue 4, item 3):
//   MinibatchPenaltyIteration  one minibatch DP penalty transition ([Raisa2021] Section 3.4)
//                              on the flat 2-d banana preset (n = 10⁵) with its
//                              published τ, proposal sd and clip, b = 1000: propose, draw a
//                              secret batch (Floyd, sorted), gather the rows, fused clipped
//                              ratio + Σr² over the batch, one event, penalty test.
//   GradSumBatch               one grad_sum_batch release at b = 1000 on the same data,
//                              Poisson (expected size 1000, geometric skips) and without
//                              replacement.
// items = rows in the batch, so items/s is the release's row throughput including the draw and
// the gather; the time per iteration should not grow with n (only with b).
#include <benchmark/benchmark.h>

#include <limits>
#include <memory>

#include "models/presets.hpp"
#include "privacy/private_data.hpp"
#include "samplers/dp_penalty_minibatch.hpp"
#include "test_allowance.hpp"
#include "test_noise.hpp"

namespace dpmcmc {
namespace {

constexpr std::uint64_t kUnlimited = std::numeric_limits<std::uint64_t>::max();

struct Problem {
  const Preset* preset = nullptr;
  std::unique_ptr<Model> model;
  Dataset data;
};

const Problem& banana2() {
  static const Problem problem = [] {
    Problem p;
    p.preset = &find_preset("banana-flat-2d");
    p.model = p.preset->make_model();
    p.data = simulate_preset(*p.preset, *p.model, 1);
    return p;
  }();
  return problem;
}

void BM_MinibatchPenaltyIteration(benchmark::State& state) {
  const Problem& p = banana2();
  const auto variant = static_cast<PenaltyProposal>(state.range(0));
  const auto& d = p.preset->sampler_defaults(
      variant == PenaltyProposal::full ? "dp-penalty-minibatch" : "dp-penalty-minibatch-ocu");
  DpPenaltyMinibatchConfig config;
  config.scale = Vec::Constant(1, d.at("proposal_sd").get<double>());
  config.tau = d.at("tau").get<double>();
  config.clip = d.at("clip").get<double>();
  config.batch = d.at("batch_size").get<std::size_t>();
  config.proposal = variant;
  EventLog log;
  auto data = std::make_unique<PrivateData>(
      *p.model, p.data, test_noise_rng(1, 0), log,
      template_allowance(dp_penalty_minibatch_template(config.tau, config.batch, p.data.rows()),
                         kUnlimited));
  DpPenaltyMinibatchKernel kernel(*p.model, std::move(data), config);
  kernel.init(p.preset->true_theta);
  Rng rng = make_rng(1, 0);
  std::vector<double> extras(kernel.extra_columns().size());
  std::int64_t accepted = 0;
  for (auto _ : state) accepted += kernel.transition(rng, extras).accepted;
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(config.batch));
  state.counters["accept_rate"] =
      static_cast<double>(accepted) / static_cast<double>(state.iterations());
  state.counters["n"] = static_cast<double>(p.data.rows());
  state.SetLabel(kernel.name());
}
BENCHMARK(BM_MinibatchPenaltyIteration)
    ->Arg(static_cast<int>(PenaltyProposal::full))
    ->Arg(static_cast<int>(PenaltyProposal::guided_walk))
    ->Unit(benchmark::kMicrosecond);

void BM_GradSumBatch(benchmark::State& state) {
  const Problem& p = banana2();
  const BatchSpec spec{static_cast<BatchSampling>(state.range(0)), 1000};
  EventLog log;
  PrivateData data(*p.model, p.data, test_noise_rng(1, 0), log,
                   batch_test_allowance(spec, p.data.rows(), kUnlimited));
  std::int64_t rows = 0;
  for (auto _ : state) {
    const VectorRelease r = data.grad_sum_batch(p.preset->true_theta, 1.0, 1.0, spec);
    rows += static_cast<std::int64_t>(r.rows);
    benchmark::DoNotOptimize(r.value.data());
  }
  state.SetItemsProcessed(rows);
  state.SetLabel(batch_sampling_name(spec.sampling));
}
BENCHMARK(BM_GradSumBatch)
    ->Arg(static_cast<int>(BatchSampling::poisson))
    ->Arg(static_cast<int>(BatchSampling::without_replacement))
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace dpmcmc

BENCHMARK_MAIN();
