// Per-iteration cost of DP Barker ([Raisa2021] Algorithm 3) on the tempered 2-d
// banana preset (n = 10⁵, T = 1000/n) with its published proposal sd, b = 1300 and σ² = 2:
// propose, draw a secret batch of 1300 rows (Floyd, sorted), gather, fused clipped ratio + Σr²,
// one event, Gaussian noise and one V_corr variate (alias method), Barker's test.
// items = rows in the batch.
#include <benchmark/benchmark.h>

#include <limits>
#include <memory>

#include "models/presets.hpp"
#include "privacy/barker_accounting.hpp"
#include "privacy/private_data.hpp"
#include "samplers/dp_barker.hpp"
#include "test_allowance.hpp"
#include "test_noise.hpp"

namespace dpmcmc {
namespace {

constexpr std::uint64_t kUnlimited = std::numeric_limits<std::uint64_t>::max();

void BM_DpBarkerIteration(benchmark::State& state) {
  const Preset& preset = find_preset("banana-tempered-2d");
  const auto model = preset.make_model();
  const Dataset data = simulate_preset(preset, *model, 1);
  const auto& d = preset.sampler_defaults("dp-barker");
  DpBarkerConfig config;
  config.scale = Vec::Constant(1, d.at("proposal_sd").get<double>());
  config.batch = d.at("batch_size").get<std::size_t>();
  config.noise_variance = d.at("noise_variance").get<double>();
  EventLog log;
  PrivateData pd(
      *model, data, test_noise_rng(1, 0), log,
      template_allowance(dp_barker_template(config.noise_variance, config.batch, data.rows()),
                         kUnlimited));
  DpBarkerKernel kernel(*model, pd, config);
  kernel.init(preset.true_theta);
  Rng rng = make_rng(1, 0);
  double extras[3];
  for (auto _ : state) {  // identical events merge in the log: it does not grow
    benchmark::DoNotOptimize(kernel.transition(rng, extras));
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(config.batch));
  state.counters["rows_n"] = static_cast<double>(data.rows());
}
BENCHMARK(BM_DpBarkerIteration)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace dpmcmc

BENCHMARK_MAIN();
