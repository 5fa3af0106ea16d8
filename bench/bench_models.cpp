// Per-row model kernels over a whole dataset in blocks (docs/benchmarks.md), items = rows:
//   LogLik        log p(x_i | θ) for every row
//   Ratio         the fused log p(x_i | θ′) − log p(x_i | θ) (the DP penalty's kernel)
//   RatioClipSum  Σ_i clip(ratio_i, ±c): what one llr_sum release computes before its noise
//   Grad          ∇ log p(x_i | θ) for every row
//   GradClipSum   Σ_i clip₂(∇ log p(x_i | θ), c): what one grad_sum release computes
//   ReadSum       Σ of every value of the same blocks: the memory-bandwidth baseline (issue 28,
//                 goal 3: the fused kernel at n = 10⁷, d = 10 should reach ≥ 70 % of its rows/s)
//   ExactGradient the exact log posterior and its gradient, as HMC and NUTS ask for them: by
//                 rows (log-likelihood and gradient of every row, summed block by block) against
//                 Posterior, which uses the model's LikelihoodSummary where it has one
// on banana-flat-2d, gauss-30d (the thesis' 30-d Gaussian: banana with a = 0, diagonal
// covariance) and gauss-10d (dense 10-d covariance), at n = 10⁵ and 10⁶ rows. Arguments: n, block
// rows. θ and θ′ are the preset's true θ and a small perturbation of it (a typical proposal).
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <string>

#include "models/posterior.hpp"
#include "models/presets.hpp"

namespace dpmcmc {
namespace {

struct Problem {
  std::unique_ptr<Model> model;
  Dataset data;
  Vec theta, theta_prime;
};

// Datasets are simulated once per (preset, n) and shared by every benchmark.
const Problem& problem(const std::string& name, std::size_t n) {
  static std::map<std::pair<std::string, std::size_t>, Problem> cache;
  auto it = cache.find({name, n});
  if (it == cache.end()) {
    const Preset& p = find_preset(name);
    Problem pr;
    pr.model = p.make_model();
    pr.data = simulate_preset(p, *pr.model, 1, n);
    pr.theta = p.true_theta;
    pr.theta_prime = p.true_theta + Vec::Constant(p.dim, 1e-3);
    it = cache.emplace(std::make_pair(name, n), std::move(pr)).first;
  }
  return it->second;
}

template <class Body>
void over_blocks(benchmark::State& state, const Problem& pr, Body&& body) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto block = static_cast<std::size_t>(state.range(1));
  for (auto _ : state) {
    for (std::size_t begin = 0; begin < n; begin += block) {
      const std::size_t count = std::min(block, n - begin);
      body(pr.data.block(begin, count), static_cast<Eigen::Index>(count));
    }
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
}

void LogLik(benchmark::State& state, const char* name) {
  const Problem& pr = problem(name, static_cast<std::size_t>(state.range(0)));
  Vec buf(state.range(1));
  over_blocks(state, pr, [&](const RowBlock& rows, Eigen::Index m) {
    pr.model->log_lik_rows(pr.theta, rows, buf.head(m));
    benchmark::DoNotOptimize(buf.data());
  });
}

void Ratio(benchmark::State& state, const char* name) {
  const Problem& pr = problem(name, static_cast<std::size_t>(state.range(0)));
  Vec buf(state.range(1));
  over_blocks(state, pr, [&](const RowBlock& rows, Eigen::Index m) {
    pr.model->log_lik_ratio_rows(pr.theta, pr.theta_prime, rows, buf.head(m));
    benchmark::DoNotOptimize(buf.data());
  });
}

void RatioClipSum(benchmark::State& state, const char* name) {
  const Problem& pr = problem(name, static_cast<std::size_t>(state.range(0)));
  Vec buf(state.range(1));
  const double c = 0.01;
  double total = 0.0;
  over_blocks(state, pr, [&](const RowBlock& rows, Eigen::Index m) {
    auto out = buf.head(m);
    pr.model->log_lik_ratio_rows(pr.theta, pr.theta_prime, rows, out);
    total += out.cwiseMax(-c).cwiseMin(c).sum();
  });
  benchmark::DoNotOptimize(total);
}

void Grad(benchmark::State& state, const char* name) {
  const Problem& pr = problem(name, static_cast<std::size_t>(state.range(0)));
  Mat buf(state.range(1), pr.model->dim());
  over_blocks(state, pr, [&](const RowBlock& rows, Eigen::Index m) {
    pr.model->grad_log_lik_rows(pr.theta, rows, buf.topRows(m));
    benchmark::DoNotOptimize(buf.data());
  });
}

void GradClipSum(benchmark::State& state, const char* name) {
  const Problem& pr = problem(name, static_cast<std::size_t>(state.range(0)));
  Mat buf(state.range(1), pr.model->dim());
  Vec scale(state.range(1));
  Vec total = Vec::Zero(pr.model->dim());
  const double c = 1.0;
  over_blocks(state, pr, [&](const RowBlock& rows, Eigen::Index m) {
    auto g = buf.topRows(m);
    pr.model->grad_log_lik_rows(pr.theta, rows, g);
    // Row norms by column passes (contiguous), then the factor min(1, c/‖g_i‖).
    auto s = scale.head(m).array();
    s = g.col(0).array().square();
    for (Eigen::Index j = 1; j < g.cols(); ++j) s += g.col(j).array().square();
    s = c / s.sqrt().max(c);
    total.noalias() += g.transpose() * scale.head(m);
  });
  benchmark::DoNotOptimize(total.data());
}

// Reads every value of the blocks once, column by column (the data are column-major) and sums
// them: no per-row arithmetic beyond one add, so its rows/s is what memory traffic allows.
void ReadSum(benchmark::State& state, const char* name) {
  const Problem& pr = problem(name, static_cast<std::size_t>(state.range(0)));
  double total = 0.0;
  over_blocks(state, pr, [&](const RowBlock& rows, Eigen::Index) { total += rows.sum(); });
  benchmark::DoNotOptimize(total);
}

// by_rows = 1: Σ_i of the rows' log-likelihoods and gradients (the path of models without a
// summary); 0: Posterior::log_density_gradient. Items = rows the evaluation stands for.
void ExactGradient(benchmark::State& state, const char* name, bool by_rows) {
  const Problem& pr = problem(name, static_cast<std::size_t>(state.range(0)));
  const Posterior posterior(*pr.model, pr.data);
  Vec values(state.range(1));
  Mat grads(state.range(1), pr.model->dim());
  Vec grad(pr.model->dim());
  for (auto _ : state) {
    if (!by_rows) {
      benchmark::DoNotOptimize(posterior.log_density_gradient(pr.theta, grad));
      continue;
    }
    double lik = 0.0;
    grad.setZero();
    const std::size_t block = static_cast<std::size_t>(state.range(1));
    for (std::size_t begin = 0; begin < pr.data.rows(); begin += block) {
      const std::size_t count = std::min(block, pr.data.rows() - begin);
      const auto m = static_cast<Eigen::Index>(count);
      pr.model->log_lik_rows(pr.theta, pr.data.block(begin, count), values.head(m));
      pr.model->grad_log_lik_rows(pr.theta, pr.data.block(begin, count), grads.topRows(m));
      lik += values.head(m).sum();
      grad += grads.topRows(m).colwise().sum().transpose();
    }
    benchmark::DoNotOptimize(lik);
    benchmark::DoNotOptimize(grad.data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void sizes(benchmark::internal::Benchmark* b) {
  for (std::int64_t n : {100000, 1000000}) b->Args({n, 4096});
  b->ArgNames({"n", "block"});
}

// Block-size scan for the headline kernel.
void block_sizes(benchmark::internal::Benchmark* b) {
  for (std::int64_t blk : {512, 1024, 2048, 4096, 16384}) b->Args({1000000, blk});
  b->ArgNames({"n", "block"});
}

BENCHMARK_CAPTURE(Ratio, banana_flat_2d, "banana-flat-2d")->Apply(sizes);
BENCHMARK_CAPTURE(Ratio, banana_flat_2d_blocks, "banana-flat-2d")->Apply(block_sizes);
BENCHMARK_CAPTURE(RatioClipSum, banana_flat_2d, "banana-flat-2d")->Apply(sizes);
BENCHMARK_CAPTURE(LogLik, banana_flat_2d, "banana-flat-2d")->Apply(sizes);
BENCHMARK_CAPTURE(Grad, banana_flat_2d, "banana-flat-2d")->Apply(sizes);
BENCHMARK_CAPTURE(GradClipSum, banana_flat_2d, "banana-flat-2d")->Apply(sizes);

// Beyond the caches (800 MB): the fused ratio against a plain read of the same rows.
void large(benchmark::internal::Benchmark* b) {
  b->Args({10000000, 4096})->ArgNames({"n", "block"})->Unit(benchmark::kMillisecond);
}
BENCHMARK_CAPTURE(ReadSum, banana_flat_10d, "banana-flat-10d")->Apply(large);
BENCHMARK_CAPTURE(Ratio, banana_flat_10d, "banana-flat-10d")->Apply(large);
BENCHMARK_CAPTURE(RatioClipSum, banana_flat_10d, "banana-flat-10d")->Apply(large);
BENCHMARK_CAPTURE(ReadSum, gauss_10d_dense, "gauss-10d")->Apply(large);
BENCHMARK_CAPTURE(Ratio, gauss_10d_dense_large, "gauss-10d")->Apply(large);

BENCHMARK_CAPTURE(Ratio, gauss_30d, "gauss-30d")->Apply(sizes);
BENCHMARK_CAPTURE(RatioClipSum, gauss_30d, "gauss-30d")->Apply(sizes);
BENCHMARK_CAPTURE(LogLik, gauss_30d, "gauss-30d")->Apply(sizes);
BENCHMARK_CAPTURE(Grad, gauss_30d, "gauss-30d")->Apply(sizes);
BENCHMARK_CAPTURE(GradClipSum, gauss_30d, "gauss-30d")->Apply(sizes);

BENCHMARK_CAPTURE(Ratio, gauss_10d_dense, "gauss-10d")->Apply(sizes);
BENCHMARK_CAPTURE(LogLik, gauss_10d_dense, "gauss-10d")->Apply(sizes);
BENCHMARK_CAPTURE(Grad, gauss_10d_dense, "gauss-10d")->Apply(sizes);
BENCHMARK_CAPTURE(LogLik, gauss_10d_dense_blocks, "gauss-10d")->Apply(block_sizes);
BENCHMARK_CAPTURE(ExactGradient, gauss_10d_rows, "gauss-10d", true)->Apply(sizes);
BENCHMARK_CAPTURE(ExactGradient, gauss_10d_posterior, "gauss-10d", false)->Apply(sizes);
BENCHMARK_CAPTURE(ExactGradient, banana_flat_2d_posterior, "banana-flat-2d", false)->Apply(sizes);

}  // namespace
}  // namespace dpmcmc

BENCHMARK_MAIN();
