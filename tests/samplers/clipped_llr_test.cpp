// The clipping of the non-private kernels (samplers/clipped_llr.hpp; [Raisa2021] Section 6.2):
// the clipped sum against a direct count, the clip_frac__ column against an
// independent replay of the chain, and the stationary law of the clipped chain against the one
// computed on a grid from the transition density.
#include "samplers/clipped_llr.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "chain_moments.hpp"
#include "core/error.hpp"
#include "diagnostics/ess.hpp"
#include "gaussian_test_model.hpp"
#include "samplers/hmc.hpp"
#include "samplers/rwmh.hpp"

namespace dpmcmc {
namespace {

using testing::GaussianTestModel;

// 1-d: x_i ~ N(θ, 1), prior N(0, 10²), six hand-picked rows with two far from the rest, so that
// clipping at b = 1 changes the target visibly: r_i = Δ(x_i − m) with Δ = θ′ − θ and m the
// midpoint, clipped to ±|Δ|, i.e. each row's pull is capped at 1 (a Huber-like likelihood).
GaussianTestModel model_1d() {
  return GaussianTestModel(Vec::Zero(1), 100.0 * Mat::Identity(1, 1), Mat::Identity(1, 1));
}

Dataset data_1d() {
  Dataset d;
  d.columns = {"x1"};
  d.x.resize(6, 1);
  d.x << -3.0, -1.0, 0.0, 0.5, 2.0, 6.0;
  return d;
}

// r_i written out for this model, independent of Model::log_lik_ratio_rows.
double row_ratio(double x, double theta, double theta_prime) {
  return -0.5 * (x - theta_prime) * (x - theta_prime) + 0.5 * (x - theta) * (x - theta);
}

TEST(ClippedLlr, SumAndCountMatchADirectComputation) {
  const auto model = model_1d();
  const Dataset data = data_1d();
  Vec theta(1), prime(1), scratch;
  theta << 0.3;
  prime << 0.8;
  const double bound = 1.0 * 0.5;  // b‖θ′ − θ‖ with b = 1
  double sum = 0.0;
  std::size_t clipped = 0;
  for (Eigen::Index i = 0; i < 6; ++i) {
    const double r = row_ratio(data.x(i, 0), 0.3, 0.8);
    clipped += std::abs(r) > bound;
    sum += std::max(-bound, std::min(bound, r));
  }
  const ClippedLlr c = clipped_llr_sum(model, data, theta, prime, bound, scratch);
  EXPECT_EQ(c.rows, 6u);
  EXPECT_EQ(c.clipped, clipped);
  EXPECT_GT(clipped, 0u);  // the rows −3, −1 and 6 (|x − 0.55| > 1 → |r| > 0.5)
  EXPECT_NEAR(c.sum, sum, 1e-12);
}

TEST(ClippedLlr, RejectsBadBounds) {
  for (const double b : {0.0, -1.0, std::nan(""), std::numeric_limits<double>::infinity()}) {
    EXPECT_THROW(check_clip_bound(b, "rwmh"), ConfigError) << b;
  }
  const auto model = model_1d();
  const Dataset data = data_1d();
  RwmhConfig c;
  c.clip = -2.0;
  try {
    (void)make_rwmh(model, data, c);
    FAIL() << "no error for a negative clip bound";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("rwmh clip bound"), std::string::npos) << e.what();
  }
  HmcConfig h;
  h.clip = 0.0;
  EXPECT_THROW((void)make_hmc(model, data, h), ConfigError);
}

// Replays the RWMH chain from the same algorithm stream (the kernel draws d normals for the
// proposal, then the Metropolis rule one uniform: rwmh.hpp, accept_rule.hpp) and counts the
// clipped rows of every proposal directly.
TEST(ClippedLlr, RwmhClipFractionMatchesAnIndependentCount) {
  const auto model = model_1d();
  const Dataset data = data_1d();
  RwmhConfig c;
  c.scale = Vec::Constant(1, 0.5);
  c.clip = 1.0;
  auto kernel = make_rwmh(model, data, c);
  ASSERT_EQ(kernel->extra_columns(), std::vector<std::string>{"clip_frac__"});
  Rng rng = make_rng(77, 0);
  Rng replay = make_rng(77, 0);
  kernel->init(Vec::Constant(1, 0.5));
  double theta = 0.5;
  std::vector<double> extras(1);
  double total = 0.0;
  for (int it = 0; it < 300; ++it) {
    const double prime = theta + 0.5 * replay.normal();
    (void)replay.uniform_pos();
    const double bound = std::abs(prime - theta);
    int count = 0;
    for (Eigen::Index i = 0; i < 6; ++i)
      count += std::abs(row_ratio(data.x(i, 0), theta, prime)) > bound;
    kernel->transition(rng, extras);
    ASSERT_DOUBLE_EQ(extras[0], count / 6.0) << "iteration " << it;
    const double now = kernel->position()[0];
    ASSERT_TRUE(now == theta || now == prime) << "iteration " << it;
    theta = now;
    total += extras[0];
  }
  EXPECT_GT(total / 300, 0.1);  // clipping is frequent at b = 1 on these rows
}

// HMC: θ′ is the end of the trajectory, known to the test after an accepted move (the new
// position), so the count is checked on every accepted transition.
TEST(ClippedLlr, HmcClipFractionMatchesAnIndependentCountOnAcceptedMoves) {
  const auto model = model_1d();
  const Dataset data = data_1d();
  HmcConfig c;
  c.step_size = 0.15;
  c.steps = 3;
  c.clip = 1.0;
  auto kernel = make_hmc(model, data, c);
  ASSERT_EQ(kernel->extra_columns().back(), "llr_clip_frac__");
  Rng rng = make_rng(78, 0);
  kernel->init(Vec::Constant(1, 0.5));
  std::vector<double> extras(kernel->extra_columns().size());
  int accepted = 0, clipped_moves = 0;
  for (int it = 0; it < 300; ++it) {
    const double theta = kernel->position()[0];
    const bool moved = kernel->transition(rng, extras).accepted;
    if (!moved) continue;
    const double prime = kernel->position()[0];
    int count = 0;
    for (Eigen::Index i = 0; i < 6; ++i)
      count += std::abs(row_ratio(data.x(i, 0), theta, prime)) > std::abs(prime - theta);
    ASSERT_DOUBLE_EQ(extras.back(), count / 6.0) << "iteration " << it;
    ++accepted;
    clipped_moves += count > 0;
  }
  EXPECT_GT(accepted, 100);
  EXPECT_GT(clipped_moves, 50);
}

// The stationary law of a 1-d chain whose transition has density k(x, y) (y ≠ x) and stays put
// with the remaining probability, on the grid lo, lo + h, …, hi: P_jk = h·k(x_j, x_k) for j ≠ k,
// P_jj = 1 − Σ_k≠j P_jk, and π solves πP = π, Σπ = 1 (LU with one equation replaced by the
// normalisation). Returns the mean and variance of π.
std::pair<double, double> grid_moments(const std::function<double(double, double)>& k, double lo,
                                       double hi, double h) {
  const auto n = static_cast<Eigen::Index>(std::lround((hi - lo) / h)) + 1;
  Mat p = Mat::Zero(n, n);
  for (Eigen::Index j = 0; j < n; ++j) {
    double out = 0.0;
    for (Eigen::Index i = 0; i < n; ++i) {
      if (i == j) continue;
      p(j, i) = h * k(lo + h * static_cast<double>(j), lo + h * static_cast<double>(i));
      out += p(j, i);
    }
    p(j, j) = 1.0 - out;
  }
  Mat a = p.transpose() - Mat::Identity(n, n);
  a.row(n - 1).setOnes();
  Vec rhs = Vec::Zero(n);
  rhs(n - 1) = 1.0;
  const Vec pi = a.partialPivLu().solve(rhs);
  double mean = 0.0, second = 0.0;
  for (Eigen::Index j = 0; j < n; ++j) {
    const double x = lo + h * static_cast<double>(j);
    mean += pi(j) * x;
    second += pi(j) * x * x;
  }
  return {mean, second - mean * mean};
}

double clipped_log_ratio(const Model& model, const Dataset& data, double x, double y, double b) {
  double sum = 0.0;
  for (Eigen::Index i = 0; i < data.x.rows(); ++i) {
    const double bound = b * std::abs(y - x);
    sum += std::max(-bound, std::min(bound, row_ratio(data.x(i, 0), x, y)));
  }
  return model.log_prior(Vec::Constant(1, y)) - model.log_prior(Vec::Constant(1, x)) + sum;
}

// Mean and variance of a 1-d chain against the grid's, with bands of 5 Monte Carlo standard
// errors from the chain's own ESS (ess_basic, split chains) of θ and of (θ − mean)²: the MCSE of
// the variance uses the sd of (θ − m)² over the draws.
void expect_grid_moments(const testing::ChainMoments& m, double mean, double var) {
  const Mat draws = m.draws;
  const Vec centred = (draws.col(0).array() - mean).square().matrix();
  const double ess_mean = ess_basic(draws);
  const double ess_var = ess_basic(centred);
  // The bands assume a long, mixing chain (measured at the seeds below: ESS of θ 1.5·10⁴ for
  // RWMH and 3.1·10³ for one-step HMC; chain and grid means then differ by 0.0025 and 0.019
  // against bands of 0.028 and 0.061). The clipped law (mean 0.30, variance 0.47) is far from the
  // exact posterior (mean 0.75, variance 0.17).
  ASSERT_GT(ess_mean, 2000);
  const double sd_sq = std::sqrt((centred.array() - centred.mean()).square().mean());
  EXPECT_NEAR(m.mean[0], mean, 5 * std::sqrt(var / ess_mean));
  EXPECT_NEAR(m.cov(0, 0), var, 5 * sd_sq / std::sqrt(ess_var));
}

// Clipped RWMH (b = 1, proposal sd 0.5) on the 1-d model: the chain's mean and variance match
// the stationary law of its transition kernel k(x, y) = φ_s(y − x)·min{1, exp(clipped log α)}
// computed on a grid, and that law is far from the unclipped posterior (so the test would fail
// for a kernel that did not clip). Grid [−3, 4.5] (the posterior sd is 0.41 about 0.75: > 9 sds
// each side); h = 0.0075 against h = 0.015 moves the grid mean and variance by < 1e-3 (checked
// below), two orders below the Monte Carlo bands (about 5·0.45/√(2·10⁴) = 0.016).
TEST(ClippedLlr, RwmhTargetsTheStationaryLawOfTheClippedKernel) {
  const auto model = model_1d();
  const Dataset data = data_1d();
  const double s = 0.5, b = 1.0;
  const auto k = [&](double x, double y) {
    const double z = (y - x) / s;
    const double q = std::exp(-0.5 * z * z) / (s * std::sqrt(2.0 * M_PI));
    return q * std::min(1.0, std::exp(clipped_log_ratio(model, data, x, y, b)));
  };
  const auto [mean, var] = grid_moments(k, -3.0, 4.5, 0.0075);
  const auto [mean2, var2] = grid_moments(k, -3.0, 4.5, 0.015);
  EXPECT_NEAR(mean, mean2, 1e-3);
  EXPECT_NEAR(var, var2, 1e-3);
  const double exact_mean = model.posterior_mean(data)[0];
  EXPECT_GT(std::abs(mean - exact_mean), 0.1) << "clipping should move the target here";

  RwmhConfig c;
  c.scale = Vec::Constant(1, s);
  c.clip = b;
  auto kernel = make_rwmh(model, data, c);
  const auto m = testing::run_kernel(*kernel, Vec::Constant(1, 0.5), 1000, 200000, 91);
  expect_grid_moments(m, mean, var);
}

// Clipped HMC with one leapfrog step (η = 0.3, unit mass), whose transition density is known in
// closed form: with g the exact gradient of log π, p = (y − x)/η − η g(x)/2 is the momentum that
// leads from x to y, y ~ N(x + η² g(x)/2, η²), and the accept test adds K(p) − K(p′) with
// p′ = p + η(g(x) + g(y))/2 to the clipped log ratio. Same grid and bands as above.
TEST(ClippedLlr, HmcTargetsTheStationaryLawOfTheClippedKernel) {
  const auto model = model_1d();
  const Dataset data = data_1d();
  const double eta = 0.3, b = 1.0;
  const auto grad = [&](double x) {
    double g = -x / 100.0;
    for (Eigen::Index i = 0; i < data.x.rows(); ++i) g += data.x(i, 0) - x;
    return g;
  };
  const auto k = [&](double x, double y) {
    const double p = (y - x) / eta - 0.5 * eta * grad(x);
    const double p1 = p + 0.5 * eta * (grad(x) + grad(y));
    const double z = (y - x - 0.5 * eta * eta * grad(x)) / eta;
    const double q = std::exp(-0.5 * z * z) / (eta * std::sqrt(2.0 * M_PI));
    const double log_alpha = clipped_log_ratio(model, data, x, y, b) + 0.5 * (p * p - p1 * p1);
    return q * std::min(1.0, std::exp(log_alpha));
  };
  const auto [mean, var] = grid_moments(k, -3.0, 4.5, 0.0075);
  const auto [mean2, var2] = grid_moments(k, -3.0, 4.5, 0.015);
  EXPECT_NEAR(mean, mean2, 1e-3);
  EXPECT_NEAR(var, var2, 1e-3);
  EXPECT_GT(std::abs(mean - model.posterior_mean(data)[0]), 0.1);

  HmcConfig c;
  c.step_size = eta;
  c.steps = 1;
  c.clip = b;
  auto kernel = make_hmc(model, data, c);
  const auto m = testing::run_kernel(*kernel, Vec::Constant(1, 0.5), 1000, 200000, 92);
  expect_grid_moments(m, mean, var);
}

}  // namespace
}  // namespace dpmcmc
