#include "samplers/tunamh.hpp"

#include <gtest/gtest.h>

#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/poisson.hpp>
#include <cmath>
#include <functional>
#include <limits>
#include <numbers>
#include <vector>

#include "chain_moments.hpp"
#include "core/error.hpp"
#include "core/poisson_variate.hpp"
#include "diagnostics/mcse.hpp"
#include "models/gaussian.hpp"
#include "models/gaussian_mixture.hpp"
#include "models/grid_posterior.hpp"

namespace dpmcmc {
namespace {

using testing::ChainMoments;
using testing::run_kernel;

// ---------------------------------------------------------------------------------------------
// Poisson variates against Boost's pmf.

// Pearson's χ² of n draws against the Poisson(μ) pmf, on the cells with expected count ≥ 5 and
// the two tails merged into one cell each (so every cell has expected count ≥ 5 and the χ²
// approximation holds). Returns (statistic, degrees of freedom).
std::pair<double, double> poisson_chi2(const std::vector<std::uint64_t>& draws, double mu) {
  const boost::math::poisson_distribution<double> pois(mu);
  const double n = static_cast<double>(draws.size());
  // Cells [lo, hi] where n·pmf ≥ 5; below lo and above hi are the tail cells.
  const auto mode = static_cast<std::uint64_t>(std::floor(mu));
  std::uint64_t lo = mode, hi = mode;
  while (lo > 0 && n * boost::math::pdf(pois, static_cast<double>(lo - 1)) >= 5) --lo;
  while (n * boost::math::pdf(pois, static_cast<double>(hi + 1)) >= 5) ++hi;
  std::vector<double> count(hi - lo + 3, 0.0);  // [0] below lo, [k − lo + 1], [last] above hi
  for (auto k : draws) {
    if (k < lo) {
      count.front() += 1;
    } else if (k > hi) {
      count.back() += 1;
    } else {
      count[k - lo + 1] += 1;
    }
  }
  std::vector<double> expect(count.size());
  expect.front() = lo > 0 ? n * boost::math::cdf(pois, static_cast<double>(lo - 1)) : 0.0;
  expect.back() = n * boost::math::cdf(boost::math::complement(pois, static_cast<double>(hi)));
  for (std::uint64_t k = lo; k <= hi; ++k) {
    expect[k - lo + 1] = n * boost::math::pdf(pois, static_cast<double>(k));
  }
  double chi2 = 0.0, cells = 0.0;
  for (std::size_t c = 0; c < count.size(); ++c) {
    if (expect[c] < 1e-9) {
      EXPECT_EQ(count[c], 0.0);  // an impossible cell must stay empty
      continue;
    }
    chi2 += (count[c] - expect[c]) * (count[c] - expect[c]) / expect[c];
    cells += 1;
  }
  return {chi2, cells - 1};
}

// Means straddling the switch between inversion (μ < 10) and PTRS (μ ≥ 10), and far into PTRS.
// 10⁵ draws each. The χ² statistic must stay below its 1 − 10⁻⁴ quantile (a false alarm rate of
// 10⁻⁴ per mean at a fixed seed); the sample mean and variance within 5 standard errors
// (SE(mean) = √(μ/n), SE(var) ≈ μ √(2/n) + the 4th-cumulant term: Var(s²) ≈ (μ + 2μ²)/n).
TEST(PoissonVariate, MatchesBoostPmf) {
  Rng rng = make_rng(71, 0);
  for (double mu : {0.3, 4.5, 9.999, 10.0, 37.2, 1000.0, 2.5e6}) {
    const std::size_t n = 100000;
    std::vector<std::uint64_t> draws(n);
    double sum = 0.0, sum2 = 0.0;
    for (auto& k : draws) {
      k = poisson_variate(rng, mu);
      const double x = static_cast<double>(k);
      sum += x;
      sum2 += x * x;
    }
    const double mean = sum / n, var = sum2 / n - mean * mean;
    EXPECT_NEAR(mean, mu, 5 * std::sqrt(mu / n)) << "mu " << mu;
    EXPECT_NEAR(var, mu, 5 * std::sqrt((mu + 2 * mu * mu) / n)) << "mu " << mu;
    const auto [chi2, dof] = poisson_chi2(draws, mu);
    const boost::math::chi_squared_distribution<double> ref(dof);
    EXPECT_LT(chi2, boost::math::quantile(ref, 1 - 1e-4)) << "mu " << mu << " dof " << dof;
  }
}

TEST(PoissonVariate, EdgeCases) {
  Rng rng = make_rng(72, 0);
  EXPECT_EQ(poisson_variate(rng, 0.0), 0u);
  EXPECT_THROW(poisson_variate(rng, -1.0), ConfigError);
  EXPECT_THROW(poisson_variate(rng, std::numeric_limits<double>::quiet_NaN()), ConfigError);
  EXPECT_THROW(poisson_variate(rng, std::numeric_limits<double>::infinity()), ConfigError);
}

// ---------------------------------------------------------------------------------------------
// TunaMH.

Vec theta2(double a, double b) {
  Vec t(2);
  t << a, b;
  return t;
}

// The test setting: [ZhangZhang2023]'s mixture with N = 2000 rows and T = 0.05, so N·T = 100 as in
// [ZhangZhang2023] (N = 50 000, temperature 500) and in the DP Barker setting (T = 100/N).
struct MixtureCase {
  GaussianMixtureModel model;
  Dataset data;
};

MixtureCase mixture_case() {
  GaussianMixtureModel::Params p;
  p.temperature = 0.05;
  GaussianMixtureModel model(p);
  Rng rng = make_rng(73, 0, Stream::data);
  Dataset data = model.simulate(theta2(0.0, 1.0), 2000, rng);
  return {std::move(model), std::move(data)};
}

// E[f(θ)] under the grid reference by the midpoint rule (error O(h²)·|f''|: below 1e-4 for the
// quadratic functions used here at 200 cells per axis).
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

// TunaMH targets the tempered posterior: expectations of test functions under the chain against
// the grid reference (200² cells over a box holding all but 1e-6 of the mass). The posterior is
// bimodal (modes near (0, 1) and (1, −1), exchanged by the likelihood's symmetry
// (θ1, θ2) → (θ1 + θ2, −θ2)); the chain crosses between them many times in 10⁵ iterations, so the
// ESS-based MCSE is meaningful. The global moments are dominated by the distance between the
// modes, which hardly depends on the likelihood's weight, so the test also checks the moments
// *within* the upper mode, f = 1{θ2 > 0}(θ_j − a_j)² with a the grid's conditional mean there,
// which scale with the inverse effective sample size. Band: 5 MCSE (the MCSE is itself
// estimated, ±20%) plus 2e-4 for the grid's O(h²) error. Power, measured at this seed: a kernel
// with the artanh sum halved moves the upper-mode variance of θ1 by 3.3 MCSE and the global
// moments by < 2 MCSE, so such a subtle error is NOT caught here at 5 MCSE (gross ones are:
// dropping the correction samples the prior, θ1 variance ≈ 10 against 0.21).
TEST(TunaMh, TargetsTheMixturePosterior) {
  const MixtureCase mc = mixture_case();
  const GridPosterior grid(mc.model, mc.data, {-1.5, 2.5, -3.0, 3.0}, 200);
  ASSERT_LT(grid.edge_mass(), 1e-6);
  TunaMhConfig c;
  c.scale = Vec::Constant(1, 0.15);
  c.lambda = 10;
  auto kernel = make_tunamh(mc.model, mc.data, c);
  const ChainMoments m = run_kernel(*kernel, theta2(0.0, 1.0), 1000, 100000, 74);

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
      {"cov", [&](double a, double b) { return (a - mean(0)) * (b - mean(1)); }},
      {"P(theta2 > 0)", [](double, double b) { return b > 0 ? 1.0 : 0.0; }},
      {"upper-mode var theta1",
       [&](double a, double b) { return b > 0 ? (a - a1) * (a - a1) : 0; }},
      {"upper-mode var theta2", [&](double, double b) { return b > 0 ? (b - a2) * (b - a2) : 0; }},
  };
  for (const Check& ch : checks) {
    Vec f(m.draws.rows());
    for (Eigen::Index r = 0; r < f.size(); ++r) f(r) = ch.f(m.draws(r, 0), m.draws(r, 1));
    const double want = grid_expect(grid, ch.f);
    EXPECT_NEAR(f.mean(), want, 5 * mcse_mean(f) + 2e-4) << ch.what;
  }
  // Both modes are visited.
  EXPECT_GT(upper, 0.2);
  EXPECT_LT(upper, 0.8);
  EXPECT_GT(m.acceptance, 0.2);
}

// Batch sizes. Given (θ, θ′), B ~ Poisson(λ + C M) with M = ‖θ′ − θ‖ = s‖z‖ (isotropic random
// walk), so E[B] = λ + C s E‖z‖ = λ + C s √(π/2) in d = 2 (the mean of a χ with 2 degrees of
// freedom): the bound of [ZhangZhang2023] Section 3.1, E[B] = λ + C M, averaged over proposals. The
// proposals are i.i.d., so batch_mean__ (= λ + C M) is an i.i.d. sequence with sd C s √(2 − π/2),
// except on the rare proposals outside the prior's box, where no batch is drawn (they only lower
// it). Checks: (1) mean batch_mean__ ≤ λ + C s √(π/2) + 5 SE and within 5 SE of it (the box
// rejections are < 0.1% here, below 1 SE); (2) mean B equals mean batch_mean__ within 5 SE of the
// Poisson noise √(mean/n) (B given the mean is Poisson: a wrong variate fails this); (3) the
// minibatch keeps at most what it draws.
TEST(TunaMh, BatchSizeMatchesTheoremBound) {
  const MixtureCase mc = mixture_case();
  TunaMhConfig c;
  c.scale = Vec::Constant(1, 0.15);
  c.lambda = 10;
  auto kernel = make_tunamh(mc.model, mc.data, c);
  const double big_c = dynamic_cast<const TunaMhKernel&>(*kernel).total_bound();
  const ChainMoments m = run_kernel(*kernel, theta2(0.0, 1.0), 1000, 50000, 75);
  const double n = static_cast<double>(m.extras.rows());
  const double bound = c.lambda + big_c * 0.15 * std::sqrt(std::numbers::pi / 2);
  const double se_mean = big_c * 0.15 * std::sqrt(2 - std::numbers::pi / 2) / std::sqrt(n);
  const double batch = m.extras.col(0).mean(), batch_mean = m.extras.col(2).mean();
  EXPECT_LE(batch_mean, bound + 5 * se_mean);
  EXPECT_NEAR(batch_mean, bound, 5 * se_mean);
  EXPECT_NEAR(batch, batch_mean, 5 * std::sqrt(batch_mean / n));
  EXPECT_TRUE((m.extras.col(1).array() <= m.extras.col(0).array()).all());
  // C = T Σ c_i with the model's c_i = √2(|x_i| + 6)/σx².
  double want_c = 0.0;
  for (Eigen::Index i = 0; i < mc.data.x.rows(); ++i) {
    want_c += 0.05 * std::numbers::sqrt2 * (std::abs(mc.data.x(i, 0)) + 6.0) / 2.0;
  }
  EXPECT_NEAR(big_c, want_c, 1e-9 * want_c);
}

// Proposals outside the prior's box are rejected without drawing a batch, and the chain never
// leaves the box (a start at the corner with large steps proposes outside half the time).
TEST(TunaMh, NeverLeavesThePriorSupport) {
  const MixtureCase mc = mixture_case();
  TunaMhConfig c;
  c.scale = Vec::Constant(1, 0.5);
  auto kernel = make_tunamh(mc.model, mc.data, c);
  const ChainMoments m = run_kernel(*kernel, theta2(2.9, 2.9), 0, 2000, 76);
  EXPECT_LE(m.draws.cwiseAbs().maxCoeff(), 3.0);
  EXPECT_GT((m.extras.col(0).array() == 0).count(), 0);
}

TEST(TunaMh, RejectsBadConfiguration) {
  const MixtureCase mc = mixture_case();
  TunaMhConfig c;
  c.lambda = 0.0;
  EXPECT_THROW(make_tunamh(mc.model, mc.data, c), ConfigError);
  c.lambda = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(make_tunamh(mc.model, mc.data, c), ConfigError);
  c = {};
  c.scale = Vec::Constant(1, -0.1);
  EXPECT_THROW(make_tunamh(mc.model, mc.data, c), ConfigError);
  c.scale = Vec::Constant(3, 0.1);  // neither 1 nor dim
  EXPECT_THROW(make_tunamh(mc.model, mc.data, c), ConfigError);
  // A model without a ratio bound.
  const GaussianModel gauss(Vec::Zero(2), Mat::Identity(2, 2), Mat::Identity(2, 2));
  try {
    make_tunamh(gauss, mc.data, {});
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("ratio bound"), std::string::npos) << e.what();
  }
  // A row outside the model's data range: DataError naming the row.
  Dataset bad = mc.data;
  bad.x(17, 0) = 9.0;
  try {
    make_tunamh(mc.model, bad, {});
    FAIL() << "expected a DataError";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("row 18"), std::string::npos) << e.what();
  }
  // A start outside the prior's box, or of the wrong size.
  auto kernel = make_tunamh(mc.model, mc.data, {});
  EXPECT_THROW(kernel->init(theta2(3.5, 0.0)), ConfigError);
  EXPECT_THROW(kernel->init(Vec::Zero(3)), ConfigError);
  EXPECT_EQ(kernel->name(), "tunamh");
  EXPECT_EQ(kernel->extra_columns().front(), "batch_size__");
}

}  // namespace
}  // namespace dpmcmc
