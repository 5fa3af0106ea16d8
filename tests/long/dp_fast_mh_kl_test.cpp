// DP-Fast MH on [ZhangZhang2023]'s Gaussian mixture ([ZhangZhang2023] Section 6.1: N = 50 000,
// temperature 500, i.e. T = 1/500 here): symmetric KL of the 2-d histogram (100 bins per axis)
// of the draws to the grid reference posterior, for ε ∈ {0.05, 0.1, 0.2, 0.5} per iteration, and
// the fractions of minibatch, full-batch and "privacy for free" iterations. Label "long" (not in
// the default suite): the grid reference alone evaluates 200² × 50 000 rows.
//   ctest -L long -R DpFastMhKl --output-on-failure     (or run test_long directly)
// The table it prints is the one in docs/dp-fast-mh.md.
#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

#include "core/error.hpp"
#include "diagnostics/histogram_kl.hpp"
#include "models/gaussian_mixture.hpp"
#include "models/grid_posterior.hpp"
#include "privacy/classical_accountant.hpp"
#include "privacy/fastmh_guarantee.hpp"
#include "privacy/planner.hpp"
#include "run/fastmh_setup.hpp"
#include "samplers/dp_fast_mh.hpp"
#include "test_allowance.hpp"
#include "test_noise.hpp"

namespace dpmcmc {
namespace {

struct Outcome {
  double kl = 0.0, minibatch = 0.0, full = 0.0, free = 0.0, batch = 0.0, accept = 0.0;
};

Outcome run_chain(const GaussianMixtureModel& model, const Dataset& data,
                  const Histogram2d& reference, const DpFastMhConfig& c, std::size_t iterations,
                  std::uint64_t seed) {
  EventLog log;
  PrivateData pd(model, data, test_noise_rng(seed, 0), log, fastmh_test_allowance(iterations));
  DpFastMhKernel kernel(model, pd, c);
  Vec start(2);
  start << 0.0, 0.0;  // between the modes, as a user without a pre-trained start would
  kernel.init(start);
  Rng rng = make_rng(seed, 0);
  std::vector<double> extras(kernel.extra_columns().size());
  Mat draws(static_cast<Eigen::Index>(iterations), 2);
  std::size_t accepted = 0;
  for (std::size_t i = 0; i < iterations; ++i) {
    accepted += kernel.transition(rng, extras).accepted;
    draws.row(static_cast<Eigen::Index>(i)) = kernel.position().transpose();
  }
  Outcome o;
  o.kl = symmetric_kl_histogram(draws, reference);  // the metric sym_kl, on exact bins
  const double it = static_cast<double>(kernel.iterations());
  o.minibatch = static_cast<double>(kernel.minibatch_iterations()) / it;
  o.full = static_cast<double>(kernel.full_batch_iterations()) / it;
  o.free = static_cast<double>(kernel.free_iterations()) / it;
  o.batch = static_cast<double>(kernel.batch_total()) /
            std::max(1.0, static_cast<double>(kernel.minibatch_iterations()));
  o.accept = static_cast<double>(accepted) / it;
  return o;
}

TEST(DpFastMhKl, MixtureSymmetricKlAgainstEpsilon) {
  GaussianMixtureModel::Params p;
  p.temperature = kDpFastMhTemperature;
  const GaussianMixtureModel model(p);
  Vec truth(2);
  truth << 0.0, 1.0;
  Rng drng = make_rng(2022, 0, Stream::data);
  const Dataset data = model.simulate(truth, 50000, drng);
  const Box2d box{-1.5, 2.5, -3.0, 3.0};
  const GridPosterior grid(model, data, box, 200, 2);
  ASSERT_LT(grid.edge_mass(), 1e-6);
  const Histogram2d reference = grid.histogram(box, 100);

  const std::size_t iterations = 20000;  // [ZhangZhang2023] Section 6.1
  const int chains = 4;
  const double delta = 1e-9;
  std::printf(
      "# N = 50000, T = 1/500, %zu iterations x %d chains (full batch: 1), delta = %g per "
      "iteration\n",
      iterations, chains, delta);
  for (const bool full : {false, true}) {
    std::vector<double> kls;
    for (const double eps : {0.05, 0.1, 0.2, 0.5}) {
      DpFastMhConfig c;
      c.scale = Vec::Constant(1, full ? 0.08 : 0.06);
      c.lambda = 200;
      c.max_batch = 400;
      c.epsilon = eps;
      c.delta = delta;
      c.full_batch = full;
      c.free_branch = true;  // enabled here to measure how often it can fire at this δ
      Outcome mean;
      // The full-batch variant reads all 50 000 rows per iteration: one chain each.
      const int runs = full ? 1 : chains;
      for (int ch = 0; ch < runs; ++ch) {
        const Outcome o = run_chain(model, data, reference, c, iterations, 100 + ch);
        mean.kl += o.kl / runs;
        mean.minibatch += o.minibatch / runs;
        mean.full += o.full / runs;
        mean.free += o.free / runs;
        mean.batch += o.batch / runs;
        mean.accept += o.accept / runs;
      }
      const FastMhCalibration cal = calibrate_fastmh(eps, delta, data.rows(), c.max_batch);
      const ClassicalAccountant acc;
      const auto plan = plan_iterations(Budget{10.0, 1e-5}, fastmh_template(eps, delta), acc);
      const double spent =
          fastmh_composed_epsilon(repeat_iterations(fastmh_template(eps, delta), iterations), 1e-4);
      std::printf(
          "%s eps=%.2f symKL=%.4f minibatch=%.4f full=%.4f free=%.4f meanB=%.1f accept=%.3f "
          "nu1=%.3f nu2=%.1f | %zu iters: eps_total(delta 1e-4)=%.1f | (10,1e-5) allows %llu\n",
          full ? "full-batch" : "minibatch ", eps, mean.kl, mean.minibatch, mean.full, mean.free,
          mean.batch, mean.accept, cal.minibatch_multiplier, cal.fullbatch_multiplier, iterations,
          spent, static_cast<unsigned long long>(plan.iterations));
      kls.push_back(mean.kl);
    }
    // Monotone within noise for the minibatch variant: the KL at ε = 0.5 is below that at 0.05.
    // The full-batch variant's noise ν₂Δ₂ ≤ 0.3 barely affects it: its KL is flat within the
    // noise of one chain (measured 0.46, 0.36, 0.37, 0.46), so it is printed, not asserted.
    if (!full) {
      EXPECT_LT(kls.back(), kls.front());
    }
  }
}

struct MixtureData {
  GaussianMixtureModel model;
  Dataset data;
  explicit MixtureData(std::size_t n) : model(params()) {
    Vec truth(2);
    truth << 0.0, 1.0;
    Rng rng = make_rng(73, 0, Stream::data);
    data = model.simulate(truth, n, rng);
  }
  static GaussianMixtureModel::Params params() {
    GaussianMixtureModel::Params p;
    p.temperature = 0.05;
    return p;
  }
};

// The job setup (run layer: test_samplers does not link it, so the test lives here).
TEST(DpFastMhSetup, JobSetup) {
  const MixtureData mc(500);
  nlohmann::json p = {
      {"proposal_sd", 0.06}, {"epsilon", 0.05}, {"delta", 1e-9}, {"lambda", 10}, {"max_batch", 60}};
  const PrivateSamplerSetup s = setup_dp_fast_mh("dp-fast-mh", p, mc.model, 500);
  ASSERT_EQ(s.per_iteration.size(), 1u);
  EXPECT_EQ(s.per_iteration[0].epsilon, 0.05);
  EXPECT_EQ(s.per_iteration[0].delta, 1e-9);
  EventLog log;
  auto kernel = s.make_kernel(std::make_unique<PrivateData>(mc.model, mc.data, test_noise_rng(1, 0),
                                                            log, fastmh_test_allowance(10)));
  EXPECT_EQ(kernel->name(), "dp-fast-mh");
  EXPECT_FALSE(dp_fast_mh_config("dp-fast-mh", p, mc.model, 500).free_branch);
  EXPECT_TRUE(dp_fast_mh_config("dp-fast-mh-full", p, mc.model, 500).full_batch);
  auto bad = p;
  bad["max_batch"] = 0;
  EXPECT_THROW(setup_dp_fast_mh("dp-fast-mh", bad, mc.model, 500), ConfigError);
  bad = p;
  bad["lambda"] = 0;
  EXPECT_THROW(setup_dp_fast_mh("dp-fast-mh", bad, mc.model, 500), ConfigError);
  bad = p;
  bad.erase("epsilon");
  EXPECT_THROW(setup_dp_fast_mh("dp-fast-mh", bad, mc.model, 500), UsageError);
  bad = p;
  bad["free_branch"] = "yes";
  EXPECT_THROW(setup_dp_fast_mh("dp-fast-mh", bad, mc.model, 500), UsageError);
}

}  // namespace
}  // namespace dpmcmc
