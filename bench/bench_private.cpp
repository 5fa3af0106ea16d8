// Per-iteration cost of the private kernels (issue "Private data access and the DP penalty
// family", Benchmarks): one DP penalty transition — propose, one fused clipped
// log-likelihood-ratio release over all rows through PrivateData (noise from the ChaCha20
// stream, one event appended), penalty test — on the 10-d flat banana preset
// ([Raisa2021] Table 5.1: d = 10, a = 20, n = 2·10⁵) with the preset's published
// τ, proposal sd and clip bound, for the plain, OCU and GWMH variants.
// items = rows touched per transition (n), so items/s is the release's row throughput.
//
// ExpFamIteration: one exponential-family DP penalty transition ([Yildirim2020] Algorithm 3)
// on a 2-d Gaussian mean with data in the box [−5, 5]² at n = 10³ and n = 10⁷: the
// exact sufficient statistic is computed once when the kernel is built (not timed), each
// iteration releases it with fresh noise, so the time per iteration must not grow with n.
#include <benchmark/benchmark.h>

#include <cmath>
#include <limits>
#include <memory>

#include "models/expfam_gaussian.hpp"
#include "models/presets.hpp"
#include "privacy/private_data.hpp"
#include "samplers/dp_penalty.hpp"
#include "samplers/dp_penalty_expfam.hpp"
#include "test_allowance.hpp"
#include "test_noise.hpp"

namespace dpmcmc {
namespace {

struct Problem {
  const Preset* preset = nullptr;
  std::unique_ptr<Model> model;
  Dataset data;
};

const Problem& banana10() {
  static const Problem problem = [] {
    Problem p;
    p.preset = &find_preset("banana-flat-10d");
    p.model = p.preset->make_model();
    p.data = simulate_preset(*p.preset, *p.model, 1);
    return p;
  }();
  return problem;
}

void BM_DpPenaltyIteration(benchmark::State& state) {
  const Problem& p = banana10();
  const auto variant = static_cast<PenaltyProposal>(state.range(0));
  const auto& d = p.preset->sampler_defaults(variant == PenaltyProposal::full ? "dp-penalty"
                                                                              : "dp-penalty-ocu");
  DpPenaltyConfig config;
  config.scale = Vec::Constant(1, d.at("proposal_sd").get<double>());
  config.tau = d.at("tau").get<double>();
  config.clip = d.at("clip").get<double>();
  config.proposal = variant;
  EventLog log;
  auto data = std::make_unique<PrivateData>(
      *p.model, p.data, test_noise_rng(1, 0), log,
      gaussian_allowance({{ReleaseKind::llr_sum, std::numeric_limits<std::uint64_t>::max()}},
                         kLowestTestMultiplier));
  DpPenaltyKernel kernel(*p.model, std::move(data), config);
  kernel.init(p.preset->true_theta);
  Rng rng = make_rng(1, 0);
  std::vector<double> extras(kernel.extra_columns().size());
  std::int64_t accepted = 0;
  for (auto _ : state) accepted += kernel.transition(rng, extras).accepted;
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(p.data.rows()));
  state.counters["accept_rate"] =
      static_cast<double>(accepted) / static_cast<double>(state.iterations());
  state.SetLabel(penalty_sampler_name(variant));
}
BENCHMARK(BM_DpPenaltyIteration)
    ->Arg(static_cast<int>(PenaltyProposal::full))
    ->Arg(static_cast<int>(PenaltyProposal::one_component))
    ->Arg(static_cast<int>(PenaltyProposal::guided_walk))
    ->Unit(benchmark::kMillisecond);

void BM_ExpFamIteration(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const ExpFamGaussianModel model(Vec::Zero(2), 100.0 * Mat::Identity(2, 2), Mat::Identity(2, 2),
                                  Vec::Constant(2, -5.0), Vec::Constant(2, 5.0));
  Rng data_rng = make_rng(1, 0, Stream::data);
  Vec theta(2);
  theta << 0.0, 1.0;
  const Dataset data = model.simulate(theta, n, data_rng);
  EventLog log;
  DpPenaltyExpFamConfig config;
  config.scale = Vec::Constant(1, 1.0 / std::sqrt(static_cast<double>(n)));
  config.tau = 0.1;
  DpPenaltyExpFamKernel kernel(
      model,
      std::make_unique<PrivateData>(
          model, data, test_noise_rng(1, 0), log,
          gaussian_allowance({{ReleaseKind::suff_stat, std::numeric_limits<std::uint64_t>::max()}},
                             kLowestTestMultiplier)),
      config);
  kernel.init(theta);
  Rng rng = make_rng(1, 0);
  std::vector<double> extras(kernel.extra_columns().size());
  for (auto _ : state) benchmark::DoNotOptimize(kernel.transition(rng, extras).accepted);
}
BENCHMARK(BM_ExpFamIteration)->Arg(1000)->Arg(10000000)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace dpmcmc

BENCHMARK_MAIN();
