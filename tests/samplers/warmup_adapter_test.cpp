#include "samplers/warmup_adapter.hpp"

#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>

#include <cmath>
#include <vector>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "samplers/dual_averaging.hpp"
#include "samplers/tuning.hpp"
#include "samplers/warmup_schedule.hpp"

namespace dpmcmc {
namespace {

// Stan's default warmup of 1000: windows 75–99, 100–149, 150–249, 250–449, 450–949 (the last
// stretched, since a window of 800 would not fit before the final 50).
TEST(WarmupSchedule, StanWindowsForOneThousand) {
  const WarmupSchedule s = warmup_schedule(1000);
  EXPECT_EQ(s.init_buffer, 75u);
  EXPECT_EQ(s.term_buffer, 50u);
  EXPECT_EQ(s.window_ends, (std::vector<std::size_t>{100, 150, 250, 450, 950}));
  EXPECT_FALSE(s.in_window(74));
  EXPECT_TRUE(s.in_window(75));
  EXPECT_TRUE(s.in_window(949));
  EXPECT_FALSE(s.in_window(950));
  EXPECT_TRUE(s.ends_window(99));
  EXPECT_FALSE(s.ends_window(100));
  EXPECT_TRUE(s.ends_window(949));
}

// Too short for 75 + 25 + 50: buffers of 15% and 10%, one window for the rest; below 20, none.
TEST(WarmupSchedule, ShortWarmups) {
  const WarmupSchedule s = warmup_schedule(100);
  EXPECT_EQ(s.init_buffer, 15u);
  EXPECT_EQ(s.term_buffer, 10u);
  EXPECT_EQ(s.window_ends, (std::vector<std::size_t>{90}));
  EXPECT_TRUE(warmup_schedule(19).window_ends.empty());
  EXPECT_FALSE(warmup_schedule(19).in_window(10));
  EXPECT_TRUE(warmup_schedule(0).window_ends.empty());
  // 150 = 75 + 25 + 50 exactly: one window 75–99.
  EXPECT_EQ(warmup_schedule(150).window_ends, (std::vector<std::size_t>{100}));
  // 180: the first window keeps its 25 iterations (Stan stretches from the second window on),
  // the second is stretched to the end of the slow phase, 130.
  EXPECT_EQ(warmup_schedule(180).window_ends, (std::vector<std::size_t>{100, 130}));
}

// The first three iterates of Hoffman and Gelman's Algorithm 5 (δ = 0.8, ε0 = 1, α = 1, 0, 0.5),
// computed by hand from the recursion (independent script, double precision).
TEST(DualAveraging, FirstIteratesMatchTheRecursion) {
  DualAveraging da(0.8, 1.0);
  const double expected_step[] = {14.385510095776777, 2.431167344342142, 0.908791937992737};
  const double expected_bar[] = {14.385510095776777, 4.998338543542695, 2.3661137637942535};
  const double alphas[] = {1.0, 0.0, 0.5};
  for (int t = 0; t < 3; ++t) {
    EXPECT_NEAR(da.update(alphas[t]), expected_step[t], 1e-12 * expected_step[t]) << t;
    EXPECT_NEAR(da.averaged_step(), expected_bar[t], 1e-12 * expected_bar[t]) << t;
  }
}

// With a deterministic acceptance α(ε) = exp(−ε) the iterates converge to the root of
// α(ε) = δ, ε* = −log δ: the last one within 2% after 5000 updates, the average within 3% (it
// forgets the early, far-off iterates only polynomially: their weight decays like t^−κ).
TEST(DualAveraging, ConvergesToTheTargetAcceptance) {
  for (const double target : {0.234, 0.65, 0.8}) {
    DualAveraging da(target, 5.0);
    double step = da.step();
    for (int t = 0; t < 5000; ++t) step = da.update(std::exp(-step));
    EXPECT_NEAR(step, -std::log(target), 0.02 * -std::log(target)) << target;
    EXPECT_NEAR(da.averaged_step(), -std::log(target), 0.03 * -std::log(target)) << target;
  }
}

TEST(DualAveraging, RefusesBadSettingsAndTreatsNanAsReject) {
  EXPECT_THROW(DualAveraging(1.0, 1.0), ConfigError);
  EXPECT_THROW(DualAveraging(0.8, 0.0), ConfigError);
  DualAveraging a(0.8, 1.0), b(0.8, 1.0);
  EXPECT_EQ(a.update(std::nan("")), b.update(0.0));
  EXPECT_EQ(a.update(2.0), b.update(1.0));  // clamped to [0, 1]
}

TEST(WindowVariance, MatchesTheTwoPassVariance) {
  Rng rng = make_rng(3, 0);
  Mat x(50, 3);
  for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = 10.0 + rng.normal();
  WindowVariance w(3);
  for (Eigen::Index i = 0; i < x.rows(); ++i) w.add(x.row(i).transpose());
  const Mat centred = x.rowwise() - x.colwise().mean();
  const Vec expected = centred.array().square().colwise().sum() / 49.0;
  EXPECT_TRUE(w.variance().isApprox(expected, 1e-12));
}

// A chain whose positions are N(0, diag(v)) draws: after a Stan warmup of 1000 the metric is the
// regularised variance of the last window (500 draws), within its sampling error (5 sd of a
// variance estimate from 500 draws, ≈ 32%), and the step is the dual-averaging average.
TEST(WarmupAdapter, MetricEstimatesTheVarianceOfTheLastWindow) {
  const Vec v = (Vec(3) << 0.01, 1.0, 100.0).finished();
  WarmupAdapter adapter({0.8, true}, {1.0, Vec::Ones(3)}, 1000);
  Rng rng = make_rng(5, 0);
  for (std::size_t i = 0; i < 1000; ++i) {
    Vec x(3);
    for (int j = 0; j < 3; ++j) x[j] = std::sqrt(v[j]) * rng.normal();
    adapter.observe(i, 0.8, x);
  }
  EXPECT_EQ(adapter.metric_updates(), 5);
  for (int j = 0; j < 3; ++j) EXPECT_NEAR(adapter.tuning().metric[j], v[j], 0.32 * v[j]) << j;
  // Accepting exactly at the target leaves H̄ = 0: ε stays at μ = log(10 ε_restart) and so
  // does its average; the restart after the last window is ε·max √(m_old/m_new).
  EXPECT_GT(adapter.tuning().step, 0.0);
}

// The metric update at the end of the second window (iteration 150 of 1000) from that window
// alone, shrunk with Stan's weight n/(n + 5) towards 10⁻³ times the metric before; or, with
// pool_windows (the private random walks), from both windows, shrunk with the weight k/(k + 5) of
// the k moves towards the metric before. Compared with the two-pass variance of those draws. The
// windows have sd 1 and 3, so the estimates differ by far. Component 2 never moves (a walk
// whose proposals in that direction were all rejected): pooled, it keeps its metric.
TEST(WarmupAdapter, PooledWindowsEstimateFromEveryDrawSinceTheFirstWindow) {
  Rng rng = make_rng(12, 0);
  std::vector<double> x(150);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = (i < 100 ? 1.0 : 3.0) * rng.normal();
  const auto two_pass = [&](std::size_t from, std::size_t to) {
    double mean = 0.0, ss = 0.0;
    for (std::size_t i = from; i < to; ++i) mean += x[i];
    mean /= double(to - from);
    for (std::size_t i = from; i < to; ++i) ss += (x[i] - mean) * (x[i] - mean);
    return ss / double(to - from - 1);
  };
  const auto stan = [](double var, double n, double before) {
    return n / (n + 5.0) * var + 1e-3 * (5.0 / (n + 5.0)) * before;
  };
  const auto by_moves = [](double var, double k, double before) {
    return k / (k + 5.0) * var + 5.0 / (k + 5.0) * before;
  };
  for (const bool pool : {false, true}) {
    AdaptationTarget target(0.3, true, true);
    target.pool_windows = pool;
    WarmupAdapter adapter(target, Tuning(1.0, (Vec(2) << 1.0, 0.7).finished()), 1000);
    Vec first;
    for (std::size_t i = 0; i < x.size(); ++i) {
      adapter.observe(i, 0.3, (Vec(2) << x[i], 2.0).finished());
      if (i == 99) first = adapter.tuning().metric;
    }
    ASSERT_EQ(adapter.metric_updates(), 2);
    const Vec last = adapter.tuning().metric;
    if (pool) {  // 25 draws, 24 moves; then 75 draws, 74 moves
      EXPECT_NEAR(first[0], by_moves(two_pass(75, 100), 24.0, 1.0), 1e-12);
      const double expected = by_moves(two_pass(75, 150), 74.0, first[0]);
      EXPECT_NEAR(last[0], expected, 1e-12 * expected);
      EXPECT_EQ(first[1], 0.7);
      EXPECT_EQ(last[1], 0.7);
    } else {
      EXPECT_NEAR(first[0], stan(two_pass(75, 100), 25.0, 1.0), 1e-12);
      const double expected = stan(two_pass(100, 150), 50.0, first[0]);
      EXPECT_NEAR(last[0], expected, 1e-12 * expected);
      EXPECT_NEAR(last[1], stan(0.0, 50.0, stan(0.0, 25.0, 0.7)), 1e-15);
    }
  }
}

// Without favour_long_steps (random walks, DP HMC) dual averaging centres on ε0 itself: the
// first iterate is log ε1 = log ε0 − (1/γ)(δ − α1)/(1 + t0), here ε0 = 0.1, δ = 0.45, α1 = 1.
TEST(WarmupAdapter, StepCentredOnTheConfiguredStepWithoutFavouringLongSteps) {
  AdaptationTarget target(0.45, false);
  target.favour_long_steps = false;
  WarmupAdapter adapter(target, Tuning(0.1, Vec::Ones(1)), 1000);
  const double expected = 0.1 * std::exp(20.0 * 0.55 / 11.0);  // e^1 · ε0
  EXPECT_NEAR(adapter.observe(0, 1.0, Vec::Zero(1)).step, expected, 1e-12 * expected);
  AdaptationTarget stan(0.45, false);
  WarmupAdapter favoured(stan, Tuning(0.1, Vec::Ones(1)), 1000);
  EXPECT_NEAR(favoured.observe(0, 1.0, Vec::Zero(1)).step, 10.0 * expected, 1e-11 * expected);
}

// Without metric adaptation only the step moves; replaying the same inputs gives the same
// tuning bit for bit (what the leak scan relies on).
TEST(WarmupAdapter, StepOnlyAndReplay) {
  const Tuning initial{0.5, Vec::Constant(2, 2.0)};
  WarmupAdapter adapter({0.44, false}, initial, 200);
  Rng rng = make_rng(6, 0);
  Vec accept(200);
  Mat draws(200, 2);
  for (std::size_t i = 0; i < 200; ++i) {
    accept[static_cast<Eigen::Index>(i)] = rng.uniform();
    draws.row(static_cast<Eigen::Index>(i)) << rng.normal(), rng.normal();
    adapter.observe(i, accept[static_cast<Eigen::Index>(i)],
                    draws.row(static_cast<Eigen::Index>(i)).transpose());
  }
  EXPECT_EQ(adapter.metric_updates(), 0);
  EXPECT_EQ(adapter.tuning().metric, initial.metric);
  const Tuning replayed = replay_adaptation({0.44, false}, initial, 200, accept, draws);
  EXPECT_EQ(replayed.step, adapter.tuning().step);
  EXPECT_THROW(replay_adaptation({0.44, false}, initial, 199, accept, draws), DataError);
}

// A saved adapter restored into a fresh one continues identically.
// Saved mid-window and loaded into a fresh adapter, the run goes on bit for bit, for Stan's
// windows and for a private walk's pooled ones, whose draws repeat after a rejection (the saved
// moves and last draw matter: a missing one would count a move that was not made).
TEST(WarmupAdapter, StateRoundTrip) {
  for (const bool pool : {false, true}) {
    const Tuning initial{1.0, Vec::Ones(2)};
    AdaptationTarget target(0.8, true, pool);
    target.pool_windows = pool;
    WarmupAdapter a(target, initial, 300), b(target, initial, 300);
    Rng rng = make_rng(7, 0);
    std::vector<Vec> xs;
    std::vector<double> alphas;
    Vec x = Vec::Zero(2);
    for (int i = 0; i < 300; ++i) {
      if (rng.uniform() < 0.5) x = (Vec(2) << rng.normal(), 3 * rng.normal()).finished();
      xs.push_back(x);
      alphas.push_back(rng.uniform());
    }
    for (std::size_t i = 0; i < 120; ++i) a.observe(i, alphas[i], xs[i]);
    b.load_state(nlohmann::json::parse(a.save_state().dump()));
    for (std::size_t i = 120; i < 300; ++i) {
      a.observe(i, alphas[i], xs[i]);
      b.observe(i, alphas[i], xs[i]);
    }
    EXPECT_EQ(a.tuning().step, b.tuning().step) << pool;
    EXPECT_EQ(a.tuning().metric, b.tuning().metric) << pool;
    nlohmann::json bad = a.save_state();
    bad["updates"] = 99;
    EXPECT_THROW(b.load_state(bad), DataError);
    bad = a.save_state();
    bad["window"]["moves"][0] = -1.0;
    EXPECT_THROW(b.load_state(bad), DataError);
  }
}

TEST(Tuning, RandomWalkTargets) {
  EXPECT_EQ(random_walk_target_accept(1), 0.44);
  EXPECT_EQ(random_walk_target_accept(5), 0.234);
  EXPECT_EQ(random_walk_target_accept(50), 0.234);
  EXPECT_GT(random_walk_target_accept(2), random_walk_target_accept(3));
  EXPECT_EQ(tuned_scale({2.0, Vec::Constant(2, 4.0)}, 2, "t"), Vec::Constant(2, 4.0));
  EXPECT_THROW(tuned_scale({2.0, Vec::Constant(2, 0.0)}, 2, "t"), SoftwareError);
}

}  // namespace
}  // namespace dpmcmc

namespace dpmcmc {
namespace {

// Correlated draws (ρ = 0.9, sds 1 and 10): the dense metric is their covariance within its
// sampling error (5 sd of a covariance estimate from the last window's 500 iid draws, ≈ 32%),
// and a replay with the same inputs gives it again bit for bit.
TEST(WarmupAdapter, DenseMetricEstimatesTheCovariance) {
  Mat cov(2, 2);
  cov << 1.0, 9.0, 9.0, 100.0;
  const Mat chol = cov.llt().matrixL();
  const AdaptationTarget target(0.8, true, false, true);
  const Tuning initial(1.0, Vec::Ones(2));
  WarmupAdapter adapter(target, initial, 1000, true);
  Rng rng = make_rng(8, 0);
  Vec accept(1000);
  Mat draws(1000, 2);
  for (Eigen::Index i = 0; i < 1000; ++i) {
    const Vec z = (Vec(2) << rng.normal(), rng.normal()).finished();
    draws.row(i) = (chol * z).transpose();
    accept[i] = rng.uniform();
    adapter.observe(static_cast<std::size_t>(i), accept[i], draws.row(i).transpose());
  }
  const Tuning& t = adapter.tuning();
  ASSERT_EQ(t.dense.rows(), 2);
  EXPECT_TRUE(t.dense.isApprox(t.dense.transpose()));
  for (int a = 0; a < 2; ++a) {
    for (int b = 0; b < 2; ++b) {
      EXPECT_NEAR(t.dense(a, b), cov(a, b), 0.32 * std::sqrt(cov(a, a) * cov(b, b))) << a << b;
    }
  }
  EXPECT_EQ(t.metric, t.dense.diagonal());
  const Tuning replayed = replay_adaptation(target, initial, 1000, accept, draws, true);
  EXPECT_EQ(replayed.dense, t.dense);
  EXPECT_EQ(replayed.step, t.step);
  // A kernel without a dense metric refuses one.
  EXPECT_THROW(WarmupAdapter(AdaptationTarget(0.8, true, true, false), initial, 1000, true),
               ConfigError);
}

}  // namespace
}  // namespace dpmcmc

namespace dpmcmc {
namespace {

// The step after the first metric update (the end of iteration 99 of a 1000-iteration warmup):
// the dual-averaging iterate ε times max_j √(m_old,j / m_new,j); with a dense metric and
// m_old = I, ε/√λ_min(Σ_new) (from an ordinary eigensolver, independent of the adapter's
// generalised one); for a random walk, 2.38/√d.
TEST(WarmupAdapter, RestartStepAfterTheFirstMetricUpdate) {
  for (const bool dense : {false, true}) {
    const AdaptationTarget target(0.8, true, false, true);
    WarmupAdapter adapter(target, Tuning(1.0, Vec::Ones(2)), 1000, dense);
    DualAveraging twin(0.8, 1.0);
    Rng rng = make_rng(9, 0);
    Tuning t;
    for (std::size_t i = 0; i < 100; ++i) {
      const double u = rng.uniform();
      const Vec x = (Vec(2) << 0.1 * rng.normal(), 3.0 * rng.normal()).finished();
      twin.update(u);
      t = adapter.observe(i, u, x);
    }
    ASSERT_EQ(adapter.metric_updates(), 1);
    double expected = 0.0;
    if (dense) {
      const Eigen::SelfAdjointEigenSolver<Mat> eig(t.dense);
      expected = twin.step() / std::sqrt(eig.eigenvalues().minCoeff());
    } else {
      expected = twin.step() * t.metric.cwiseInverse().cwiseSqrt().maxCoeff();
    }
    EXPECT_NEAR(t.step, expected, 1e-10 * expected) << dense;
  }
  AdaptationTarget walk(0.3, true, true, false);
  walk.restart_step = random_walk_restart_step(4);
  WarmupAdapter adapter(walk, Tuning(1.0, Vec::Ones(2)), 1000);
  Rng rng = make_rng(10, 0);
  Tuning t;
  for (std::size_t i = 0; i < 100; ++i)
    t = adapter.observe(i, rng.uniform(), (Vec(2) << rng.normal(), rng.normal()).finished());
  EXPECT_EQ(t.step, 2.38 / 2.0);
}

}  // namespace
}  // namespace dpmcmc
