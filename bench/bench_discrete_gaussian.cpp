// Cost of one exact discrete Gaussian draw (core/discrete_gaussian.hpp: Canonne, Kamath and
// Steinke 2020, Algorithms 1–3, integer arithmetic only) from the privacy noise stream
// (ChaCha20), beside the floating-point baseline it replaces:
//   DiscreteGaussian/s=1.5      σ² = 9/4: every acceptance in 64-bit arithmetic
//   DiscreteGaussian/s=1000     σ = 10³: 64-bit arithmetic for every |Y| < 4·10⁶
//   DiscreteGaussian/s=2^40     σ = 2⁴⁰: the acceptance exponent in 256-bit arithmetic
//   OneShot/s=1000              sample_discrete_gaussian(): the scale's set-up redone per draw
//   PolarNormal                 NoiseRng::normal(), Marsaglia's polar method (the baseline)
// items = draws; the counter "words" is the 64-bit words of randomness consumed per draw.
#include <benchmark/benchmark.h>

#include <array>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "core/discrete_gaussian.hpp"
#include "core/rng.hpp"
#include "test_noise.hpp"

namespace dpmcmc {
namespace {

// The noise stream of `seed` under the public test key (tests/support/test_noise.hpp): a
// reproducible ChaCha20 keystream, not a secret one.
ChaChaEngine bench_engine(std::uint64_t seed) {
  return ChaChaEngine(test_noise_key().stream_key(seed, 0, 0));
}

// Counts the words drawn, to report randomness per draw.
class CountingEngine {
 public:
  using result_type = std::uint64_t;
  explicit CountingEngine(ChaChaEngine engine) : engine_(std::move(engine)) {}
  static constexpr result_type min() { return ChaChaEngine::min(); }
  static constexpr result_type max() { return ChaChaEngine::max(); }
  result_type operator()() {
    ++words_;
    return engine_();
  }
  std::uint64_t words() const { return words_; }

 private:
  ChaChaEngine engine_;
  std::uint64_t words_ = 0;
};

void Discrete(benchmark::State& state, DiscreteGaussianScale scale) {
  const DiscreteGaussian sampler(scale);
  CountingEngine engine(bench_engine(1));
  for (auto _ : state) benchmark::DoNotOptimize(sampler(engine));
  state.SetItemsProcessed(state.iterations());
  state.counters["words"] =
      static_cast<double>(engine.words()) / static_cast<double>(state.iterations());
}
BENCHMARK_CAPTURE(Discrete, s_1_5, DiscreteGaussianScale::rational(9, 4))
    ->Name("DiscreteGaussian/s=1.5");
BENCHMARK_CAPTURE(Discrete, s_1000, DiscreteGaussianScale::integer(1000))
    ->Name("DiscreteGaussian/s=1000");
BENCHMARK_CAPTURE(Discrete, s_2_40, DiscreteGaussianScale::integer(std::uint64_t{1} << 40))
    ->Name("DiscreteGaussian/s=2^40");

void OneShot(benchmark::State& state) {
  const DiscreteGaussianScale scale = DiscreteGaussianScale::integer(1000);
  ChaChaEngine engine = bench_engine(2);
  for (auto _ : state) benchmark::DoNotOptimize(sample_discrete_gaussian(engine, scale));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(OneShot)->Name("OneShot/s=1000");

void PolarNormal(benchmark::State& state) {
  NoiseRng rng(bench_engine(3));
  for (auto _ : state) benchmark::DoNotOptimize(rng.normal());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(PolarNormal);

}  // namespace
}  // namespace dpmcmc

BENCHMARK_MAIN();
