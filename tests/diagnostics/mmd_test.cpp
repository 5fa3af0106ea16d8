#include "diagnostics/mmd.hpp"

#include <gtest/gtest.h>

#include <boost/math/quadrature/sinh_sinh.hpp>
#include <cmath>
#include <limits>
#include <numbers>

#include "core/error.hpp"

namespace dpmcmc {
namespace {

// Closed form. For x ~ N(a, s² I_d), y ~ N(b, s² I_d) independent, x − y ~ N(a − b, 2s² I_d),
// and for z ~ N(μ, τ²) in one dimension the Gaussian integral gives
//   E exp(−z²/(2h²)) = h/√(h² + τ²) · exp(−μ²/(2(h² + τ²))),
// so per coordinate with τ² = 2s² and a product over the d independent coordinates:
//   E k(x, y) = (h²/(h² + 2s²))^{d/2} exp(−‖a − b‖²/(2(h² + 2s²))).
// MMD² = E k(x,x') + E k(y,y') − 2 E k(x,y) = 2 c (1 − exp(−‖m‖²/(2(h² + 2s²)))),
// c = (h²/(h² + 2s²))^{d/2}, for a mean shift m.
double expected_kernel(double shift2, double s, double h, int d) {
  const double v = h * h + 2.0 * s * s;
  return std::pow(h * h / v, 0.5 * d) * std::exp(-shift2 / (2.0 * v));
}

double closed_form_mmd2(double shift, double s, double h, int d) {
  return 2.0 * expected_kernel(0.0, s, h, d) - 2.0 * expected_kernel(shift * shift, s, h, d);
}

Mat gaussian_sample(Rng& rng, int n, int d, double shift, double s) {
  Mat x(n, d);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < d; ++j) x(i, j) = s * rng.normal() + (j == 0 ? shift : 0.0);
  }
  return x;
}

// The 1-d Gaussian integral above, checked by quadrature (an independent method).
TEST(Mmd, ClosedFormKernelExpectationMatchesQuadrature) {
  boost::math::quadrature::sinh_sinh<double> integrator;
  for (double mu : {0.0, 0.7, 2.0}) {
    for (double tau : {0.5, 1.4}) {
      for (double h : {0.3, 1.0, 2.5}) {
        auto f = [&](double z) {
          const double u = (z - mu) / tau;
          return std::exp(-0.5 * u * u) / (tau * std::sqrt(2.0 * std::numbers::pi)) *
                 std::exp(-z * z / (2.0 * h * h));
        };
        const double numeric = integrator.integrate(f);
        const double v = h * h + tau * tau;
        const double closed = h / std::sqrt(v) * std::exp(-mu * mu / (2.0 * v));
        EXPECT_NEAR(numeric, closed, 1e-12) << mu << " " << tau << " " << h;
      }
    }
  }
}

// The unbiased estimator against the closed form, averaged over R independent repeats: the
// mean must be within 4 standard errors (sample sd / √R) of the population value. With
// n = m = 2000 and R = 8 the standard error is 3–6% of MMD² for these cases (asserted below to
// be under 10%), so an error in the kernel's scale, a missing factor or a wrong dimension
// exponent fails. (The n(n−1) normalisation is pinned by SameDistributionIsUnbiased.)
TEST(Mmd, UnbiasedEstimateMatchesClosedForm) {
  struct Case {
    double shift, s, h;
    int d;
  };
  for (const Case c : {Case{0.5, 1.0, 1.0, 1}, Case{1.0, 1.0, 1.0, 1}, Case{0.8, 1.5, 2.0, 3}}) {
    const int repeats = 8, n = 2000;
    double sum = 0.0, sum2 = 0.0;
    for (int r = 0; r < repeats; ++r) {
      Rng rng = make_rng(600 + static_cast<std::uint64_t>(r), 0);
      const Mat x = gaussian_sample(rng, n, c.d, 0.0, c.s);
      const Mat y = gaussian_sample(rng, n, c.d, c.shift, c.s);
      const double v = mmd2_unbiased(x, y, c.h);
      sum += v;
      sum2 += v * v;
    }
    const double mean = sum / repeats;
    const double se = std::sqrt((sum2 / repeats - mean * mean) * repeats / (repeats - 1) / repeats);
    const double truth = closed_form_mmd2(c.shift, c.s, c.h, c.d);
    EXPECT_NEAR(mean, truth, 4.0 * se) << "shift " << c.shift << " d " << c.d;
    EXPECT_LT(se, 0.1 * truth);  // the comparison above has teeth
  }
}

// Same distribution: the unbiased estimate averages to 0 (it is often negative). Its standard
// error over 50 repeats of n = m = 500 must also be small enough that the biased V-statistic,
// whose mean is (1 − E k(x,x'))(1/n + 1/m) = 0.0017 here, would fail the same test.
TEST(Mmd, SameDistributionIsUnbiased) {
  const int repeats = 50, n = 500;
  double sum = 0.0, sum2 = 0.0;
  int negative = 0;
  for (int r = 0; r < repeats; ++r) {
    Rng rng = make_rng(700 + static_cast<std::uint64_t>(r), 0);
    const Mat x = gaussian_sample(rng, n, 1, 0.0, 1.0);
    const Mat y = gaussian_sample(rng, n, 1, 0.0, 1.0);
    const double v = mmd2_unbiased(x, y, 1.0);
    sum += v;
    sum2 += v * v;
    negative += v < 0.0;
  }
  const double mean = sum / repeats;
  const double se = std::sqrt((sum2 / repeats - mean * mean) / (repeats - 1));
  EXPECT_NEAR(mean, 0.0, 4.0 * se);
  const double v_statistic_bias = (1.0 - expected_kernel(0.0, 1.0, 1.0, 1)) * (2.0 / n);
  EXPECT_LT(4.0 * se, v_statistic_bias);
  EXPECT_GT(negative, 0);  // negative estimates happen, hence the thesis' sqrt(|·|)
}

// Larger shifts give larger MMD, with the same underlying noise (same seed).
TEST(Mmd, GrowsWithMeanShift) {
  double previous = -std::numeric_limits<double>::infinity();
  for (double shift : {0.0, 0.25, 0.5, 1.0, 2.0}) {
    Rng rng = make_rng(800, 0);
    const Mat x = gaussian_sample(rng, 1000, 2, 0.0, 1.0);
    const Mat y = gaussian_sample(rng, 1000, 2, shift, 1.0);
    const double v = mmd2_unbiased(x, y, 1.0);
    EXPECT_GT(v, previous) << "shift " << shift;
    previous = v;
  }
}

// For x, y ~ N(0, I_2), ‖x − y‖² / 2 ~ χ²₂, whose median is 2 ln 2, so the median paired
// distance is √(4 ln 2). With 20001 pairs the sample median has sd ≈ 1/(2 f(median) √s) ≈
// 0.0085 (f the density of ‖x − y‖ at its median, 0.416): 0.035 is 4 sd.
TEST(Mmd, MedianHeuristicMatchesClosedForm) {
  Rng rng = make_rng(900, 0);
  const Mat x = gaussian_sample(rng, 5000, 2, 0.0, 1.0);
  const Mat y = gaussian_sample(rng, 3000, 2, 0.0, 1.0);
  Rng pick = make_rng(901, 0);
  EXPECT_NEAR(median_heuristic_bandwidth(x, y, 20001, pick), std::sqrt(4.0 * std::log(2.0)), 0.035);
}

TEST(Mmd, ReportsThesisStyleRootOfAbsoluteValue) {
  Rng rng = make_rng(910, 0);
  const Mat x = gaussian_sample(rng, 300, 2, 0.0, 1.0);
  const Mat y = gaussian_sample(rng, 200, 2, 0.0, 1.0);
  Rng a = make_rng(911, 0), b = make_rng(911, 0);
  const MmdResult r = mmd(x, y, a);  // thesis default: 50 paired resamples
  EXPECT_EQ(r.bandwidth, median_heuristic_bandwidth(x, y, 50, b));
  EXPECT_EQ(r.mmd2, mmd2_unbiased(x, y, r.bandwidth));
  EXPECT_EQ(r.mmd, std::sqrt(std::abs(r.mmd2)));
  const MmdResult fixed = mmd(x, y, a, MmdOptions{.bandwidth_subsample = 50, .bandwidth = 0.7});
  EXPECT_EQ(fixed.bandwidth, 0.7);
}

// A direct double loop over all pairs (an independent implementation of the same formula) on a
// small sample, to pin the blocked matrix-product evaluation, including blocks that straddle
// the 256-row block size.
TEST(Mmd, BlockedEvaluationMatchesDirectLoops) {
  Rng rng = make_rng(920, 0);
  const Mat x = gaussian_sample(rng, 300, 3, 0.0, 1.0);
  const Mat y = gaussian_sample(rng, 270, 3, 0.4, 1.2);
  const double h = 0.9;
  auto k = [&](const Eigen::RowVectorXd& a, const Eigen::RowVectorXd& b) {
    return std::exp(-(a - b).squaredNorm() / (2.0 * h * h));
  };
  double kxx = 0, kyy = 0, kxy = 0;
  for (int i = 0; i < x.rows(); ++i)
    for (int j = 0; j < x.rows(); ++j)
      if (i != j) kxx += k(x.row(i), x.row(j));
  for (int i = 0; i < y.rows(); ++i)
    for (int j = 0; j < y.rows(); ++j)
      if (i != j) kyy += k(y.row(i), y.row(j));
  for (int i = 0; i < x.rows(); ++i)
    for (int j = 0; j < y.rows(); ++j) kxy += k(x.row(i), y.row(j));
  const double n = 300, m = 270;
  const double direct = kxx / (n * (n - 1)) + kyy / (m * (m - 1)) - 2 * kxy / (n * m);
  EXPECT_NEAR(mmd2_unbiased(x, y, h), direct, 1e-12);
}

TEST(Mmd, BadInput) {
  Rng rng = make_rng(930, 0);
  const Mat x = Mat::Random(10, 2), y3 = Mat::Random(10, 3);
  EXPECT_THROW(mmd2_unbiased(x, y3, 1.0), DataError);
  EXPECT_THROW(mmd2_unbiased(x, Mat::Random(1, 2), 1.0), DataError);
  EXPECT_THROW(mmd2_unbiased(x, x, 0.0), UsageError);
  EXPECT_THROW(mmd2_unbiased(x, x, -1.0), UsageError);
  Mat bad = x;
  bad(2, 1) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(mmd2_unbiased(bad, x, 1.0), DataError);
  EXPECT_THROW(mmd(x, x, rng, MmdOptions{.bandwidth_subsample = 0}), UsageError);
  EXPECT_THROW(mmd(x, x, rng, MmdOptions{.bandwidth_subsample = 50, .bandwidth = -2.0}),
               UsageError);
  const Mat same = Mat::Ones(5, 2);
  EXPECT_THROW(median_heuristic_bandwidth(same, same, 50, rng), DataError);
}

}  // namespace
}  // namespace dpmcmc
