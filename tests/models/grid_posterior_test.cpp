#include "models/grid_posterior.hpp"

#include <gtest/gtest.h>

#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "gauss_2d_case.hpp"
#include "model_test_util.hpp"
#include "models/circle.hpp"
#include "models/gaussian.hpp"

namespace dpmcmc {
namespace {

using test::box_around;
using test::gauss_case;
using test::GaussCase;

// The midpoint rule on a smooth density that is negligible at the box edges is spectrally
// accurate (Euler–Maclaurin: every boundary term vanishes; the aliasing error for a Gaussian with
// h = 0.08 sd is ~exp(−2π²/0.08²)), so the cell-centre moments equal the exact ones to rounding.
// covariance() adds the within-cell uniform spread h²/12 to each variance (the moments of what
// sample() draws), and that offset must be exactly there. Tolerance 1e-9 relative: far above
// rounding of a 200² sum, far below any wrong term.
TEST(GridPosterior, MomentsMatchGaussianClosedForm) {
  const GaussCase g = gauss_case(0.8);
  const GridPosterior grid(g.model, g.data, box_around(g.exact), 200);
  const Vec mean = grid.mean();
  const Mat cov = grid.covariance();
  const double s1 = std::sqrt(g.exact.cov(0, 0)), s2 = std::sqrt(g.exact.cov(1, 1));
  EXPECT_NEAR(mean(0), g.exact.mean(0), 1e-9 * s1);
  EXPECT_NEAR(mean(1), g.exact.mean(1), 1e-9 * s2);
  const double h1 = grid.width1(), h2 = grid.width2();
  EXPECT_NEAR(cov(0, 0), g.exact.cov(0, 0) + h1 * h1 / 12, 1e-9 * g.exact.cov(0, 0));
  EXPECT_NEAR(cov(1, 1), g.exact.cov(1, 1) + h2 * h2 / 12, 1e-9 * g.exact.cov(1, 1));
  EXPECT_NEAR(cov(0, 1), g.exact.cov(0, 1), 1e-9 * s1 * s2);
  EXPECT_NEAR(grid.probabilities().sum(), 1.0, 1e-12);
  EXPECT_LT(grid.edge_mass(), 1e-12);
}

// Threads only split the work: the same grid, bit for bit.
TEST(GridPosterior, ThreadsGiveTheSameGrid) {
  const GaussCase g = gauss_case(0.3);
  const GridPosterior one(g.model, g.data, box_around(g.exact), 64, 1);
  const GridPosterior three(g.model, g.data, box_around(g.exact), 64, 3);
  EXPECT_EQ(one.probabilities(), three.probabilities());
}

// A box cutting the posterior in half shows up in edge_mass (about half the mass sits on the cut
// edge's neighbourhood: at least the cells within one cell of the cut, ≫ 1e-3).
TEST(GridPosterior, EdgeMassFlagsATooSmallBox) {
  const GaussCase g = gauss_case(0.3);
  Box2d box = box_around(g.exact);
  box.lo1 = g.exact.mean(0);
  const GridPosterior grid(g.model, g.data, box, 100);
  EXPECT_GT(grid.edge_mass(), 1e-3);
}

// 2·10⁵ independent draws: means within 5 standard errors of the grid's mean, variances within 5
// standard errors (Gaussian: SE(var) = var·√(2/n)), covariance within 5·√((v1 v2 + c²)/n).
TEST(GridPosterior, DrawsReproduceTheMoments) {
  const GaussCase g = gauss_case(0.8);
  const GridPosterior grid(g.model, g.data, box_around(g.exact), 200);
  Rng rng = make_rng(22, 0);
  const double n = 200000;
  const Mat draws = grid.sample(static_cast<std::size_t>(n), rng);
  const Vec m = test::sample_mean(draws);
  const Mat c = test::sample_cov(draws);
  const Vec mean = grid.mean();
  const Mat cov = grid.covariance();
  for (int j = 0; j < 2; ++j) {
    EXPECT_NEAR(m(j), mean(j), 5 * std::sqrt(cov(j, j) / n)) << j;
    EXPECT_NEAR(c(j, j), cov(j, j), 5 * cov(j, j) * std::sqrt(2 / n)) << j;
  }
  EXPECT_NEAR(c(0, 1), cov(0, 1),
              5 * std::sqrt((cov(0, 0) * cov(1, 1) + cov(0, 1) * cov(0, 1)) / n));
  // Every draw lies in the box.
  EXPECT_GE(draws.col(0).minCoeff(), grid.box().lo1);
  EXPECT_LE(draws.col(0).maxCoeff(), grid.box().hi1);
}

// The exact bin masses of an uncorrelated Gaussian posterior (diagonal prior and likelihood
// covariances: the posterior factorises) are products of 1-d normal cdf differences (Boost).
// Bins are 7 per axis over ±3 sd, deliberately not aligned with the 301 cells, so the overlap
// split is exercised. The piecewise-constant density differs from the true one by O(h²) within a
// cell but integrates to the same cell mass up to O(h²·f'') ≈ 1e-4 per bin at h = 0.05 sd;
// tolerance 1e-3.
TEST(GridPosterior, HistogramMatchesNormalBinMasses) {
  Mat cov = Mat::Identity(2, 2), cov0(2, 2);
  cov(1, 1) = 3.0;
  cov0 << 5.0, 0.0, 0.0, 2.0;
  GaussianModel model(Vec::Zero(2), cov0, cov, 1.0);
  Rng rng = make_rng(23, 0, Stream::data);
  const Dataset data = model.simulate(Vec::Ones(2), 25, rng);
  const auto exact = model.posterior_moments(data);
  const GridPosterior grid(model, data, box_around(exact, 7.5), 301);
  const Box2d hbox = box_around(exact, 3.0);
  const Histogram2d h = grid.histogram(hbox, 7);
  const double s1 = std::sqrt(exact.cov(0, 0)), s2 = std::sqrt(exact.cov(1, 1));
  const boost::math::normal_distribution<double> n1(exact.mean(0), s1), n2(exact.mean(1), s2);
  const double inside = (boost::math::cdf(n1, hbox.hi1) - boost::math::cdf(n1, hbox.lo1)) *
                        (boost::math::cdf(n2, hbox.hi2) - boost::math::cdf(n2, hbox.lo2));
  EXPECT_NEAR(h.outside, 1.0 - inside, 1e-3);
  const double w1 = (hbox.hi1 - hbox.lo1) / 7, w2 = (hbox.hi2 - hbox.lo2) / 7;
  for (int i = 0; i < 7; ++i) {
    for (int j = 0; j < 7; ++j) {
      const double a =
          boost::math::cdf(n1, hbox.lo1 + (i + 1) * w1) - boost::math::cdf(n1, hbox.lo1 + i * w1);
      const double b =
          boost::math::cdf(n2, hbox.lo2 + (j + 1) * w2) - boost::math::cdf(n2, hbox.lo2 + j * w2);
      EXPECT_NEAR(h.prob(i, j), a * b / inside, 1e-3) << i << "," << j;
    }
  }
}

// Bins that coincide with the cells give back the cell probabilities exactly.
TEST(GridPosterior, AlignedHistogramIsTheGrid) {
  const GaussCase g = gauss_case(0.5);
  const GridPosterior grid(g.model, g.data, box_around(g.exact), 40);
  const Histogram2d h = grid.histogram(grid.box(), 40);
  EXPECT_LT((h.prob - grid.probabilities()).cwiseAbs().maxCoeff(), 1e-15);
  EXPECT_LT(h.outside, 1e-12);
}

TEST(Histogram2d, CountsDrawsIntoBins) {
  Mat d(5, 2);
  d << 0.1, 0.1,  // bin (0, 0)
      0.9, 0.1,   // bin (1, 0)
      1.0, 1.0,   // the upper edge belongs to the last bin: (1, 1)
      0.6, 0.4,   // (1, 0)
      1.5, 0.5;   // outside
  const Histogram2d h = histogram2d(d, {0, 1, 0, 1}, 2);
  EXPECT_DOUBLE_EQ(h.outside, 0.2);
  EXPECT_DOUBLE_EQ(h.prob(0, 0), 0.25);
  EXPECT_DOUBLE_EQ(h.prob(1, 0), 0.5);
  EXPECT_DOUBLE_EQ(h.prob(1, 1), 0.25);
  EXPECT_DOUBLE_EQ(h.prob(0, 1), 0.0);
  d(0, 0) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(histogram2d(d, {0, 1, 0, 1}, 2), DataError);
  EXPECT_THROW(histogram2d(Mat::Zero(3, 3), {0, 1, 0, 1}, 2), DataError);
  EXPECT_THROW(histogram2d(Mat::Constant(3, 2, 5.0), {0, 1, 0, 1}, 2), DataError);
  EXPECT_THROW(histogram2d(Mat::Zero(3, 2), {0, 0, 0, 1}, 2), ConfigError);
}

Histogram2d hist(std::initializer_list<double> p) {
  Histogram2d h;
  h.box = {0, 1, 0, 1};
  h.bins = 2;
  h.prob.resize(2, 2);
  Eigen::Index k = 0;
  for (double v : p) h.prob.data()[k++] = v;
  return h;
}

// Independent value: KL(p‖q) + KL(q‖p) written as two separate sums.
double two_kls(const Mat& p, const Mat& q) {
  double a = 0, b = 0;
  for (Eigen::Index k = 0; k < p.size(); ++k) {
    a += p.data()[k] * std::log(p.data()[k] / q.data()[k]);
    b += q.data()[k] * std::log(q.data()[k] / p.data()[k]);
  }
  return a + b;
}

TEST(SymmetricKl, ZeroForEqualHistogramsAndKnownForAPair) {
  const Histogram2d p = hist({0.4, 0.1, 0.3, 0.2}), q = hist({0.25, 0.25, 0.25, 0.25});
  EXPECT_EQ(symmetric_kl(p, p, 0.0), 0.0);
  EXPECT_EQ(symmetric_kl(p, p), 0.0);
  EXPECT_NEAR(symmetric_kl(p, q, 0.0), two_kls(p.prob, q.prob), 1e-15);
  EXPECT_GT(symmetric_kl(p, q, 0.0), 0.0);
  EXPECT_DOUBLE_EQ(symmetric_kl(p, q, 0.0), symmetric_kl(q, p, 0.0));
  // Smoothing s: both histograms become (p + s)/(1 + 4s) before the divergence.
  const double s = 0.01;
  const Histogram2d e = hist({0.5, 0.5, 0.0, 0.0});
  Mat ps = (p.prob.array() + s) / (1 + 4 * s), es = (e.prob.array() + s) / (1 + 4 * s);
  EXPECT_NEAR(symmetric_kl(p, e, s), two_kls(ps, es), 1e-14);
  // No smoothing and an empty bin where the other has mass: infinite.
  EXPECT_EQ(symmetric_kl(p, e, 0.0), std::numeric_limits<double>::infinity());
  // Both empty in the same bins: finite.
  EXPECT_EQ(symmetric_kl(e, e, 0.0), 0.0);
  Histogram2d other = p;
  other.bins = 3;
  EXPECT_THROW(symmetric_kl(p, other), ConfigError);
  EXPECT_THROW(symmetric_kl(p, q, -1.0), ConfigError);
}

// The histogram of n draws from the grid against the grid's exact histogram: for a
// multinomial sample, symmetric KL ≈ Pearson's χ²/n, whose mean is (K − 1)/n for K bins with
// mass (≤ B² = 400 here) and sd √(2(K − 1))/n; the bound 2·B²/n is above the mean by more than
// 10 sds. A histogram of draws from a shifted grid (by 0.5 posterior sd) exceeds it by far.
TEST(SymmetricKl, SampledHistogramIsCloseToTheExactOne) {
  const GaussCase g = gauss_case(0.6);
  const GridPosterior grid(g.model, g.data, box_around(g.exact), 200);
  const Box2d hbox = box_around(g.exact, 4.0);
  const Histogram2d exact = grid.histogram(hbox, 20);
  Rng rng = make_rng(24, 0);
  const double n = 100000;
  const Mat draws = grid.sample(static_cast<std::size_t>(n), rng);
  const double bound = 2 * 400 / n;
  EXPECT_LT(symmetric_kl(histogram2d(draws, hbox, 20), exact, 1e-9), bound);
  Mat shifted = draws;
  shifted.col(0).array() += 0.5 * std::sqrt(g.exact.cov(0, 0));
  EXPECT_GT(symmetric_kl(histogram2d(shifted, hbox, 20), exact, 1e-9), 10 * bound);
}

TEST(GridPosterior, RejectsBadInput) {
  const GaussCase g = gauss_case(0.3);
  const Box2d box = box_around(g.exact);
  EXPECT_THROW(GridPosterior(g.model, g.data, {1, 0, 0, 1}, 10), ConfigError);
  EXPECT_THROW(GridPosterior(g.model, g.data, box, 1), ConfigError);
  GaussianModel three(Vec::Zero(3), Mat::Identity(3, 3), Mat::Identity(3, 3));
  EXPECT_THROW(GridPosterior(three, g.data, box, 10), ConfigError);
}

}  // namespace
}  // namespace dpmcmc
