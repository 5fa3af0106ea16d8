// Timing of the privacy accountants of part B (issue "Privacy accounting toolkit", item 4 and
// "Benchmarks"): 10⁴ compositions of a Poisson-subsampled Gaussian (q = 0.01, σ = 1) by the
// numerical PLD at discretisation interval 1e-4 (target: under 2 s on one core) and by RDP; the
// same for sampling without replacement. Each measurement is compose() plus one ε(δ = 1e-5)
// query on a fresh accountant, i.e. what `dpmcmc account` does for one accountant row (an
// accountant caches what it composed, so a reused instance would time its cache, not the work).
#include <benchmark/benchmark.h>

#include <vector>

#include "privacy/numerical_pld.hpp"
#include "privacy/rdp_accountant.hpp"

namespace {

using namespace dpmcmc;

std::vector<PrivacyEvent> subsampled(Sampling sampling, std::uint64_t count) {
  PrivacyEvent e;
  e.mechanism = Mechanism::subsampled_gaussian;
  e.sampling = sampling;
  e.relation = sampling == Sampling::poisson ? Neighbouring::add_remove : Neighbouring::substitute;
  e.sampling_rate = 0.01;
  e.noise_sd = 1.0;
  e.count = count;
  return {e};
}

template <class Make>
void run(benchmark::State& state, Make make, Sampling sampling) {
  const auto events = subsampled(sampling, static_cast<std::uint64_t>(state.range(0)));
  double eps = 0.0;
  for (auto _ : state) {
    const auto accountant = make();
    eps = accountant.compose(events)->epsilon(1e-5);
    benchmark::DoNotOptimize(eps);
  }
  state.counters["epsilon"] = eps;
}

void BM_PldUpperPoisson(benchmark::State& s) {
  run(
      s, [] { return NumericalPldAccountant(PldRounding::pessimistic); }, Sampling::poisson);
}
void BM_PldLowerPoisson(benchmark::State& s) {
  run(
      s, [] { return NumericalPldAccountant(PldRounding::optimistic); }, Sampling::poisson);
}
void BM_PldUpperWor(benchmark::State& s) {
  run(
      s, [] { return NumericalPldAccountant(PldRounding::pessimistic); },
      Sampling::without_replacement);
}
void BM_RdpPoisson(benchmark::State& s) {
  run(
      s, [] { return RdpAccountant(); }, Sampling::poisson);
}
void BM_RdpWor(benchmark::State& s) {
  run(
      s, [] { return RdpAccountant(); }, Sampling::without_replacement);
}

BENCHMARK(BM_PldUpperPoisson)->Arg(10000)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_PldLowerPoisson)->Arg(10000)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_PldUpperWor)->Arg(10000)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_RdpPoisson)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RdpWor)->Arg(10000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
