// Per-iteration cost of DP HMC ([Raisa2021] Algorithm 4; issue 5): one transition —
// L + 1 = 11 fused clipped gradient releases over all rows and one clipped log-likelihood-ratio
// release through PrivateData (ChaCha20 noise, events appended), L leapfrog steps, penalty test —
// with the presets' published τ_l, τ_g, b_l, b_g and η (docs/references.md, thesis DP HMC
// table) and L = 10 on
//   * the flat 2-d banana (banana-flat-2d, n = 10⁵), and
//   * the 30-d Gaussian (gauss-30d, n = 2·10⁵; its preset has L = 5, set to 10 here).
// items = rows touched per transition ((L + 2)·n), so items/s is the releases' row throughput.
#include <benchmark/benchmark.h>

#include <limits>
#include <map>
#include <memory>
#include <string>

#include "models/presets.hpp"
#include "privacy/private_data.hpp"
#include "samplers/dp_hmc.hpp"
#include "test_allowance.hpp"
#include "test_noise.hpp"

namespace dpmcmc {
namespace {

struct Problem {
  const Preset* preset = nullptr;
  std::unique_ptr<Model> model;
  Dataset data;
};

const Problem& problem(const std::string& name) {
  static std::map<std::string, Problem> cache;
  auto it = cache.find(name);
  if (it == cache.end()) {
    Problem p;
    p.preset = &find_preset(name);
    p.model = p.preset->make_model();
    p.data = simulate_preset(*p.preset, *p.model, 1);
    it = cache.emplace(name, std::move(p)).first;
  }
  return it->second;
}

void run(benchmark::State& state, const std::string& name) {
  const Problem& p = problem(name);
  const auto& d = p.preset->sampler_defaults("dp-hmc");
  DpHmcConfig config;
  config.tau_l = d.at("tau_l").get<double>();
  config.tau_g = d.at("tau_g").get<double>();
  config.clip_l = d.at("clip_l").get<double>();
  config.clip_g = d.at("clip_g").get<double>();
  config.step_size = d.at("step_size").get<double>();
  config.steps = 10;
  EventLog log;
  constexpr auto kMany = std::numeric_limits<std::uint64_t>::max();
  auto data = std::make_unique<PrivateData>(
      *p.model, p.data, test_noise_rng(1, 0), log,
      gaussian_allowance({{ReleaseKind::grad_sum, kMany}, {ReleaseKind::llr_sum, kMany}},
                         kLowestTestMultiplier));
  DpHmcKernel kernel(*p.model, std::move(data), config);
  kernel.init(p.preset->true_theta);
  Rng rng = make_rng(1, 0);
  std::vector<double> extras(kernel.extra_columns().size());
  std::int64_t accepted = 0;
  for (auto _ : state) accepted += kernel.transition(rng, extras).accepted;
  state.SetItemsProcessed(state.iterations() * (config.steps + 2) *
                          static_cast<std::int64_t>(p.data.rows()));
  state.counters["accept_rate"] =
      static_cast<double>(accepted) / static_cast<double>(state.iterations());
}

void BM_DpHmcIterationFlatBanana2d(benchmark::State& state) {
  run(state, "banana-flat-2d");
}
BENCHMARK(BM_DpHmcIterationFlatBanana2d)->Unit(benchmark::kMillisecond);

void BM_DpHmcIterationGauss30d(benchmark::State& state) {
  run(state, "gauss-30d");
}
BENCHMARK(BM_DpHmcIterationGauss30d)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace dpmcmc

BENCHMARK_MAIN();
