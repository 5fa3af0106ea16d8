// The budget planner and the accountants it drives (issue "Privacy accounting toolkit"):
//   PlanPenaltyPld     largest DP penalty iteration count, flat 2-d banana (n = 1e5, δ = 1e-6,
//                      τ = 0.1), closed-form Gaussian PLD; argument ε
//   PlanPenaltyZcdp    the same under zCDP
//   PlanHmcPld         DP HMC (τ_l 0.1, τ_g 0.4, L 10, n = 1e5), PLD; argument ε
//   PlanTightest       both accountants, keep the tightest (what `account --algorithm` does)
//   PldEpsilon         one ε(δ) of the closed-form PLD (δ = 1e-6; argument: 10⁻³·μ, μ·1000)
//   PldEpsilonTiny     ε(δ = 1e-300) at μ = 1e-6 (Mills-ratio regime)
//   NoiseScale         smallest noise multiplier for 10⁴ DP HMC iterations at ε = 2
//   KovEpsilon         optimal composition of k (0.01, 1e-9)-DP mechanisms, ε(δ = 1e-3); arg k
#include <benchmark/benchmark.h>

#include <vector>

#include "privacy/composition.hpp"
#include "privacy/gaussian_pld.hpp"
#include "privacy/iteration_templates.hpp"
#include "privacy/planner.hpp"
#include "privacy/zcdp.hpp"

namespace dpmcmc {
namespace {

void PlanPenaltyPld(benchmark::State& state) {
  const auto tmpl = dp_penalty_template(0.1, 1e5);
  const GaussianPldAccountant pld;
  const Budget budget{static_cast<double>(state.range(0)), 1e-6};
  for (auto _ : state) benchmark::DoNotOptimize(plan_iterations(budget, tmpl, pld).iterations);
}
BENCHMARK(PlanPenaltyPld)->Arg(1)->Arg(6)->Unit(benchmark::kMillisecond);

void PlanPenaltyZcdp(benchmark::State& state) {
  const auto tmpl = dp_penalty_template(0.1, 1e5);
  const ZcdpAccountant zcdp;
  const Budget budget{static_cast<double>(state.range(0)), 1e-6};
  for (auto _ : state) benchmark::DoNotOptimize(plan_iterations(budget, tmpl, zcdp).iterations);
}
BENCHMARK(PlanPenaltyZcdp)->Arg(1)->Arg(6)->Unit(benchmark::kMillisecond);

void PlanHmcPld(benchmark::State& state) {
  const auto tmpl = dp_hmc_template(0.1, 0.4, 10, 1e5);
  const GaussianPldAccountant pld;
  const Budget budget{static_cast<double>(state.range(0)), 1e-6};
  for (auto _ : state) benchmark::DoNotOptimize(plan_iterations(budget, tmpl, pld).iterations);
}
BENCHMARK(PlanHmcPld)->Arg(1)->Arg(6)->Unit(benchmark::kMillisecond);

void PlanTightest(benchmark::State& state) {
  const auto tmpl = dp_penalty_template(0.1, 1e5);
  const GaussianPldAccountant pld;
  const ZcdpAccountant zcdp;
  const std::vector<const Accountant*> accountants{&zcdp, &pld};
  for (auto _ : state)
    benchmark::DoNotOptimize(plan_iterations_tightest({4.0, 1e-6}, tmpl, accountants).best);
}
BENCHMARK(PlanTightest)->Unit(benchmark::kMillisecond);

void PldEpsilon(benchmark::State& state) {
  const double mu = 1e-3 * static_cast<double>(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(gaussian_pld_epsilon(mu, 1e-6));
}
BENCHMARK(PldEpsilon)->Arg(1)->Arg(1000)->Arg(1000000)->Unit(benchmark::kMicrosecond);

void PldEpsilonTiny(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(gaussian_pld_epsilon(1e-6, 1e-300));
}
BENCHMARK(PldEpsilonTiny)->Unit(benchmark::kMicrosecond);

void NoiseScale(benchmark::State& state) {
  const auto tmpl = dp_hmc_template(0.1, 0.4, 10, 1e5);
  const GaussianPldAccountant pld;
  for (auto _ : state)
    benchmark::DoNotOptimize(plan_noise_scale({2.0, 1e-6}, tmpl, 10000, pld).noise_scale);
}
BENCHMARK(NoiseScale)->Unit(benchmark::kMillisecond);

void KovEpsilon(benchmark::State& state) {
  const auto k = static_cast<std::uint64_t>(state.range(0));
  for (auto _ : state) {
    const OptimalHomogeneousComposition kov(0.01, 1e-9, k);
    benchmark::DoNotOptimize(kov.epsilon(1e-3));
  }
}
BENCHMARK(KovEpsilon)->Arg(1000)->Arg(100000)->Arg(1000000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace dpmcmc

BENCHMARK_MAIN();
