// DP-Fast MH ([ZhangZhang2023] Algorithm 2; samplers/dp_fast_mh.hpp): the target against
// the grid posterior of the mixture (minibatch and full-batch variants), the public batch-size
// law, the recorded events against the plan (with and without "privacy for free"), the draw
// columns, and bad input.
#include "samplers/dp_fast_mh.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <numbers>
#include <vector>

#include "chain_moments.hpp"
#include "core/error.hpp"
#include "diagnostics/mcse.hpp"
#include "gaussian_test_model.hpp"
#include "models/gaussian_mixture.hpp"
#include "models/grid_posterior.hpp"
#include "models/logistic_regression.hpp"
#include "privacy/classical_accountant.hpp"
#include "privacy/fastmh_guarantee.hpp"
#include "privacy/planner.hpp"
#include "test_allowance.hpp"
#include "test_noise.hpp"

namespace dpmcmc {
namespace {

using testing::ChainMoments;
using testing::run_kernel;

Vec theta2(double a, double b) {
  Vec t(2);
  t << a, b;
  return t;
}

// [ZhangZhang2023]'s mixture with N = 2000 rows and T = 0.05 (N·T = 100 as in [ZhangZhang2023]'s
// N = 50 000, T = 1/500).
struct MixtureCase {
  GaussianMixtureModel model;
  Dataset data;
};

MixtureCase mixture_case(std::size_t n = 2000, double temperature = 0.05) {
  GaussianMixtureModel::Params p;
  p.temperature = temperature;
  GaussianMixtureModel model(p);
  Rng rng = make_rng(73, 0, Stream::data);
  Dataset data = model.simulate(theta2(0.0, 1.0), n, rng);
  return {std::move(model), std::move(data)};
}

struct Harness {
  EventLog log;
  std::unique_ptr<PrivateData> data;
  Harness(const Model& model, const Dataset& d, std::uint64_t releases, std::uint64_t seed) {
    data = std::make_unique<PrivateData>(model, d, test_noise_rng(seed, 0), log,
                                         fastmh_test_allowance(releases));
  }
};

double grid_expect(const GridPosterior& grid, const std::function<double(double, double)>& f) {
  const Mat& p = grid.probabilities();
  double e = 0.0;
  for (Eigen::Index i = 0; i < p.rows(); ++i) {
    const double t1 = grid.box().lo1 + (static_cast<double>(i) + 0.5) * grid.width1();
    for (Eigen::Index j = 0; j < p.cols(); ++j) {
      e += p(i, j) * f(t1, grid.box().lo2 + (static_cast<double>(j) + 0.5) * grid.width2());
    }
  }
  return e;
}

// Exactness: DP-Fast MH is a penalty-corrected TunaMH (or MH) kernel, reversible for the tempered
// posterior, so its draws' expectations must match the grid reference within Monte Carlo error
// whatever ε. K is chosen so that P(B ≥ K) is negligible for the minibatch run (the truncation
// bias of docs/dp-fast-mh.md then vanishes); the full-batch run has no truncation. Band: 5 MCSE
// (ESS-based, itself ±20%) + 2e-4 for the grid's O(h²) error; the checks are the global moments,
// P(θ2 > 0) (the mode weights) and the within-mode variances, as in tunamh_test.cpp. Power, seen
// once: a mutation dropping the −σ²/2 penalty correction was NOT detected at these noise levels
// (σ ≈ 0.7–1.4): subtle errors of the correction are beyond this test; the exact per-release
// algebra is checked by the event and batch tests below and by tunamh_test.cpp.
void expect_targets_posterior(bool full_batch, std::uint64_t seed) {
  const MixtureCase mc = mixture_case();
  const GridPosterior grid(mc.model, mc.data, {-1.5, 2.5, -3.0, 3.0}, 200);
  ASSERT_LT(grid.edge_mass(), 1e-6);
  const std::size_t iterations = full_batch ? 40000 : 100000;
  Harness h(mc.model, mc.data, iterations + 1000, seed);
  DpFastMhConfig c;
  c.scale = Vec::Constant(1, full_batch ? 0.12 : 0.08);
  c.lambda = 100;
  // λ + C̄M ≈ 100 + 990·0.1 ≈ 200 on average; B ≥ 600 needs ‖z‖ ≳ 6: P ≈ e^{-18}.
  c.max_batch = 600;
  c.epsilon = full_batch ? 1.0 : 4.0;
  c.delta = full_batch ? 1e-6 : 1e-3;
  c.full_batch = full_batch;
  DpFastMhKernel kernel(mc.model, *h.data, c);
  const ChainMoments m = run_kernel(kernel, theta2(0.0, 1.0), 1000, iterations, seed);

  const double upper = grid_expect(grid, [](double, double b) { return b > 0 ? 1.0 : 0.0; });
  const double a1 = grid_expect(grid, [](double a, double b) { return b > 0 ? a : 0.0; }) / upper;
  const double a2 = grid_expect(grid, [](double, double b) { return b > 0 ? b : 0.0; }) / upper;
  const Vec mean = grid.mean();
  struct Check {
    const char* what;
    std::function<double(double, double)> f;
  };
  const std::vector<Check> checks = {
      {"theta1", [](double a, double) { return a; }},
      {"theta2", [](double, double b) { return b; }},
      {"var theta1", [&](double a, double) { return (a - mean(0)) * (a - mean(0)); }},
      {"var theta2", [&](double, double b) { return (b - mean(1)) * (b - mean(1)); }},
      {"P(theta2 > 0)", [](double, double b) { return b > 0 ? 1.0 : 0.0; }},
      {"upper-mode var theta1",
       [&](double a, double b) { return b > 0 ? (a - a1) * (a - a1) : 0; }},
      {"upper-mode var theta2", [&](double, double b) { return b > 0 ? (b - a2) * (b - a2) : 0; }},
  };
  for (const Check& ch : checks) {
    Vec f(m.draws.rows());
    for (Eigen::Index r = 0; r < f.size(); ++r) f(r) = ch.f(m.draws(r, 0), m.draws(r, 1));
    EXPECT_NEAR(f.mean(), grid_expect(grid, ch.f), 5 * mcse_mean(f) + 2e-4)
        << ch.what << (full_batch ? " (full batch)" : " (minibatch)");
  }
  EXPECT_GT(m.acceptance, 0.05);
  if (!full_batch) {
    // The cap was (almost) never reached.
    EXPECT_LT(m.extras.col(1).mean(), 1e-4);
  } else {
    EXPECT_EQ(m.extras.col(1).minCoeff(), 1.0);
  }
}

TEST(DpFastMh, MinibatchTargetsTheMixturePosterior) {
  expect_targets_posterior(false, 301);
}
TEST(DpFastMh, FullBatchTargetsTheMixturePosterior) {
  expect_targets_posterior(true, 302);
}

// The batch size is public: B ~ Poisson(λ + C̄M) with C̄ = n·T·c̄ (not the private C), so with
// the isotropic walk M = s‖z‖, E[B] = λ + C̄ s √(π/2) (χ₂ mean). Band: 5 standard errors of the
// mean of B over iterations (Var B = E[λ + C̄M] + Var(C̄M) = mean + (C̄s)²(2 − π/2)).
TEST(DpFastMh, BatchSizeUsesThePublicTotalBound) {
  const MixtureCase mc = mixture_case();
  const std::size_t iterations = 20000;
  Harness h(mc.model, mc.data, iterations, 303);
  DpFastMhConfig c;
  c.scale = Vec::Constant(1, 0.05);
  c.lambda = 10;
  c.max_batch = 1000;
  c.epsilon = 1.0;
  c.delta = 1e-6;
  DpFastMhKernel kernel(mc.model, *h.data, c);
  const ChainMoments m = run_kernel(kernel, theta2(0.0, 1.0), 0, iterations, 303);
  const double cbar = 0.05 * std::numbers::sqrt2 * (8 + 3 + 3) / 2;  // T c̄
  const double ctot = 2000 * cbar;
  EXPECT_NEAR(kernel.row_bound(), std::numbers::sqrt2 * 14 / 2, 1e-12);
  const double want = 10 + ctot * 0.05 * std::sqrt(std::numbers::pi / 2);
  const double var = want + std::pow(ctot * 0.05, 2) * (2 - std::numbers::pi / 2);
  const double got = m.extras.col(0).mean();
  EXPECT_NEAR(got, want, 5 * std::sqrt(var / iterations));
  // The private C would give a mean ≈ 40% smaller (c_i ≈ 5.2 on average against c̄ = 9.9).
  EXPECT_EQ(kernel.minibatch_iterations(), iterations);
  EXPECT_EQ(kernel.batch_total(), static_cast<std::uint64_t>(m.extras.col(0).sum()));
  // Real rows evaluated ≈ B·C/C̄ < B.
  EXPECT_LT(kernel.rows_evaluated(), kernel.batch_total());
}

// Float-safe noise: both noisy branches add at least the calibrated noise ν·Δ (the grid's
// σ = s·h covers ν·Δ_eff, Δ_eff ≥ Δ), and not much more (Δ_eff/Δ − 1 ≤ 2⁻³⁰ + (h + 2e)/Δ with
// h ≈ 2⁻⁴⁰ν·Δ and e the summation error: ≤ 1e-8 here); the value + σ²/2 lies on a power-of-two
// grid of about 2⁻⁴⁰·ν·Δ (an integer count of steps, which floating-point noise would not give).
TEST(DpFastMh, NoisyBranchesAddTheCalibratedGridNoise) {
  const MixtureCase mc = mixture_case();
  for (bool full : {false, true}) {
    SCOPED_TRACE(full ? "full batch" : "minibatch");
    Harness h(mc.model, mc.data, 50, 305);
    const FastMhCalibration cal = calibrate_fastmh(0.5, 1e-6, mc.data.rows(), 1000);
    const Vec theta = theta2(0.0, 1.0), theta_p = theta2(0.05, 1.02);
    FastMhRequest req;
    req.theta = &theta;
    req.theta_prime = &theta_p;
    req.distance = 0.05;
    req.row_bound = std::numbers::sqrt2 * 14 / 2;
    req.full_batch_only = full;
    req.calibration = &cal;
    for (int i = 0; i < 50; ++i) {
      const FastMhRelease r = h.data->fastmh_release(req);
      const double nu = full ? cal.fullbatch_multiplier : cal.minibatch_multiplier;
      EXPECT_GE(r.noise_sd, nu * r.sensitivity);
      EXPECT_LE(r.noise_sd, nu * r.sensitivity * (1 + 1e-8));
      const double h_grid = std::ldexp(1.0, std::ilogb(nu * r.sensitivity) - 40);
      const double steps = (r.value + 0.5 * r.noise_sd * r.noise_sd) / h_grid;
      EXPECT_NEAR(steps, std::nearbyint(steps), 1e-3) << r.value;
    }
  }
}

// Recorded = planned: every iteration records one approximate_dp event (ε, δ) (free branch off),
// so the log of k iterations composes to exactly the plan's spend for k.
TEST(DpFastMh, RecordedEqualsPlanned) {
  const MixtureCase mc = mixture_case();
  const auto tpl = fastmh_template(0.2, 1e-8);
  const ClassicalAccountant acc;
  const Budget budget{8.0, 1e-5};
  const IterationPlan plan = plan_iterations(budget, tpl, acc);
  ASSERT_GT(plan.iterations, 50u);
  ASSERT_LT(plan.iterations, 5000u);
  Harness h(mc.model, mc.data, plan.iterations, 304);
  DpFastMhConfig c;
  c.scale = Vec::Constant(1, 0.1);
  c.max_batch = 150;  // some iterations take the full batch
  c.epsilon = 0.2;
  c.delta = 1e-8;
  DpFastMhKernel kernel(mc.model, *h.data, c);
  Rng rng = make_rng(304, 0);
  kernel.init(theta2(0.0, 1.0));
  std::vector<double> extras(kernel.extra_columns().size());
  std::uint64_t steps = 0;
  while (!kernel.exhausted()) {
    kernel.transition(rng, extras);
    ++steps;
    EXPECT_EQ(extras[3], extras[0] == 0 ? 0.0 : 0.2);
  }
  EXPECT_EQ(h.log.releases(), kernel.releases());
  EXPECT_EQ(steps, kernel.iterations());
  EXPECT_GT(kernel.full_batch_iterations(), 0u);
  EXPECT_GT(kernel.minibatch_iterations(), 0u);
  EXPECT_EQ(kernel.free_iterations(), 0u);
  // Proposals outside the box release nothing; none here (posterior far inside), so equality.
  ASSERT_EQ(kernel.releases(), plan.iterations);
  EXPECT_DOUBLE_EQ(acc.compose(h.log.events())->epsilon(budget.delta), plan.epsilon_spent);
  EXPECT_DOUBLE_EQ(fastmh_composed_epsilon(h.log.events(), budget.delta), plan.epsilon_spent);
  for (const auto& e : h.log.events()) {
    EXPECT_EQ(e.mechanism, Mechanism::approximate_dp);
    EXPECT_EQ(e.epsilon, 0.2);
    EXPECT_EQ(e.delta, 1e-8);
  }
}

// With "privacy for free" enabled (and a δ per iteration large enough for it to fire on short
// steps), free iterations record (0, δ_free ≤ δ); recorded ≤ planned.
TEST(DpFastMh, FreeBranchRecordsItsExactDelta) {
  const MixtureCase mc = mixture_case();
  const std::uint64_t k = 3000;
  Harness h(mc.model, mc.data, k, 305);
  DpFastMhConfig c;
  c.scale = Vec::Constant(1, 0.004);  // Δ2 = 2T c̄ M ≈ 0.99·0.005 ≈ 5e-3 → δ_free ≈ 5e-3
  c.full_batch = true;
  c.free_branch = true;
  c.epsilon = 0.5;
  c.delta = 5e-3;
  DpFastMhKernel kernel(mc.model, *h.data, c);
  const ChainMoments m = run_kernel(kernel, theta2(0.0, 1.0), 0, k, 305);
  const double frac = static_cast<double>(kernel.free_iterations()) / k;
  EXPECT_GT(frac, 0.1);
  EXPECT_LT(frac, 0.9);
  for (Eigen::Index r = 0; r < m.extras.rows(); ++r) {
    if (m.extras(r, 2) == 1.0) {
      EXPECT_EQ(m.extras(r, 3), 0.0);
      EXPECT_EQ(m.extras(r, 4), 0.0);
    }
  }
  double free_events = 0;
  for (const auto& e : h.log.events()) {
    if (e.epsilon == 0.0) {
      EXPECT_LE(e.delta, 5e-3);
      EXPECT_GT(e.delta, 0.0);
      free_events += static_cast<double>(e.count);
    } else {
      EXPECT_EQ(e.epsilon, 0.5);
      EXPECT_EQ(e.delta, 5e-3);
    }
  }
  EXPECT_EQ(free_events, static_cast<double>(kernel.free_iterations()));
  const auto planned = repeat_iterations(fastmh_template(0.5, 5e-3), k);
  const double budget_delta = 0.9;
  EXPECT_LE(fastmh_composed_epsilon(h.log.events(), budget_delta),
            fastmh_composed_epsilon(planned, budget_delta));
}

TEST(DpFastMh, OffByDefaultAndNoReleaseOutsideSupport) {
  DpFastMhConfig c;
  EXPECT_FALSE(c.free_branch);
  // Start at the edge of the prior's box with a huge step: most proposals leave it and release
  // nothing.
  const MixtureCase mc = mixture_case(500);
  Harness h(mc.model, mc.data, 1000, 306);
  c.scale = Vec::Constant(1, 50.0);
  c.epsilon = 1;
  c.delta = 1e-6;
  DpFastMhKernel kernel(mc.model, *h.data, c);
  run_kernel(kernel, theta2(0.0, 1.0), 0, 200, 306);
  EXPECT_LT(kernel.releases(), 50u);
  EXPECT_EQ(h.log.releases(), kernel.releases());
}

TEST(DpFastMh, RefusesBadInput) {
  const MixtureCase mc = mixture_case(200);
  const auto make = [&](DpFastMhConfig c) {
    Harness h(mc.model, mc.data, 10, 1);
    DpFastMhKernel k(mc.model, *h.data, c);
  };
  const auto expect_config = [&](DpFastMhConfig c, const char* needle) {
    try {
      make(c);
      FAIL() << "accepted: " << needle;
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  DpFastMhConfig c;
  c.max_batch = 0;
  expect_config(c, "max_batch");
  c = {};
  c.lambda = 0;
  expect_config(c, "lambda");
  c.lambda = -1;
  expect_config(c, "lambda");
  c = {};
  c.epsilon = 0;
  expect_config(c, "epsilon");
  c = {};
  c.delta = 1;
  expect_config(c, "delta");
  c = {};
  c.scale = Vec::Constant(1, -0.1);
  expect_config(c, "scale");
  c = {};
  c.row_bound = -1;
  expect_config(c, "row_bound");

  // A model without a per-row bound.
  const auto g = testing::standard_model();
  Rng rng = make_rng(5, 0, Stream::data);
  const Dataset gd = g.simulate(theta2(0, 0), 50, rng);
  {
    EventLog log;
    PrivateData pd(g, gd, test_noise_rng(1, 0), log, fastmh_test_allowance(1));
    EXPECT_THROW(DpFastMhKernel(g, pd, DpFastMhConfig{}), ConfigError);
  }

  // Rows outside the declared range are refused: a declared c̄ below some rows' c_i.
  {
    Harness h(mc.model, mc.data, 10, 2);
    DpFastMhConfig small;
    small.row_bound = 5.0;  // c(x) = √2(|x| + 6)/2 ≥ 4.24, > 5 for |x| > 1.07
    small.epsilon = 1;
    DpFastMhKernel k(mc.model, *h.data, small);
    k.init(theta2(0, 1));
    Rng r = make_rng(3, 0);
    std::vector<double> ex(6);
    EXPECT_THROW(k.transition(r, ex), DataError);
    EXPECT_EQ(h.log.releases(), 0u);
  }
  // Logistic regression: features beyond the declared norm bound.
  {
    LogisticRegressionModel::Params p;
    p.dim = 2;
    p.norm_bound = 1.0;
    LogisticRegressionModel lr(p);
    Dataset d;
    d.x = Mat(3, 3);
    d.x << 0.1, 0.2, 1, 2.0, 0.0, 0, 0.3, 0.1, 1;  // row 2 has ‖x‖ = 2 > 1
    d.columns = lr.data_columns();
    EventLog log;
    PrivateData pd(lr, d, test_noise_rng(1, 0), log, fastmh_test_allowance(5));
    DpFastMhConfig lc;
    lc.epsilon = 1;
    DpFastMhKernel k(lr, pd, lc);
    EXPECT_EQ(k.row_bound(), 1.0);
    k.init(theta2(0, 0));
    Rng r = make_rng(3, 0);
    std::vector<double> ex(6);
    try {
      k.transition(r, ex);
      FAIL() << "unbounded feature accepted";
    } catch (const DataError& e) {
      EXPECT_NE(std::string(e.what()).find("norm"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace dpmcmc
