// Symmetric KL of 2-d histograms (diagnostics/histogram_kl.hpp) against values computed
// independently: by hand, from the closed form of two shifted Gaussians, and from the
// chi-square limit of a multinomial sample.
#include "diagnostics/histogram_kl.hpp"

#include <gtest/gtest.h>

#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <limits>
#include <string>

#include "../error_message.hpp"
#include "core/error.hpp"
#include "core/rng.hpp"

namespace dpmcmc {
namespace {

using test::message_of;

Mat normal_draws(Eigen::Index n, double m1, double m2, std::uint64_t seed) {
  Rng rng = make_rng(seed, 0);
  Mat d(n, 2);
  for (Eigen::Index i = 0; i < n; ++i) {
    d(i, 0) = m1 + rng.normal();
    d(i, 1) = m2 + rng.normal();
  }
  return d;
}

// Exact bin probabilities of N((m1, m2), I) on bins × bins bins of `box`, renormalised over the
// box: products of differences of the normal CDF (Boost.Math, independent of the code tested).
Histogram2d exact_normal(const Box2d& box, std::size_t bins, double m1, double m2) {
  const boost::math::normal z;
  const auto axis = [&](double lo, double hi, double m) {
    Vec p(static_cast<Eigen::Index>(bins));
    const double w = (hi - lo) / static_cast<double>(bins);
    for (Eigen::Index i = 0; i < p.size(); ++i) {
      const double a = lo + static_cast<double>(i) * w - m;
      p(i) = boost::math::cdf(z, a + w) - boost::math::cdf(z, a);
    }
    return Vec(p / p.sum());
  };
  Histogram2d h;
  h.box = box;
  h.bins = bins;
  h.prob = axis(box.lo1, box.hi1, m1) * axis(box.lo2, box.hi2, m2).transpose();
  return h;
}

TEST(HistogramKl, IdenticalSamplesGiveZero) {
  const Mat a = normal_draws(500, 0.0, 1.0, 1);
  EXPECT_EQ(symmetric_kl_histogram(a, a), 0.0);
  EXPECT_EQ(symmetric_kl_histogram(a, a, 7), 0.0);
  // The same draws in another order: the same histogram.
  const Mat reversed = a.colwise().reverse();
  EXPECT_EQ(symmetric_kl_histogram(a, reversed), 0.0);
}

TEST(HistogramKl, HandComputedTwoBinExample) {
  // Covering box [0, 1]²; 2 bins per axis, edges 0, 0.5, 1; (1, 1) lies on the upper edge and
  // belongs to the last bin. P: 3 of 4 draws in bin (0, 0), 1 in bin (1, 1); Q: 1 and 3. The two
  // other bins are empty in both, so they are equal after smoothing and contribute nothing.
  // With s = 1e-6, B = 4: p̃ = (0.75 + s)/(1 + 4s), q̃ = (0.25 + s)/(1 + 4s) in bin (0, 0), and the
  // reverse in bin (1, 1), so
  //   J = 2 (p̃ − q̃) log(p̃/q̃) = 2 · 0.5/(1 + 4e-6) · log(0.750001/0.250001)
  //     = 1.0986052275876443   (≈ log 3 = 1.0986122886681098 without smoothing),
  // computed with a calculator (Python's math.log), not with this code.
  Mat p(4, 2), q(4, 2);
  p << 0, 0, 0.2, 0.4, 0.1, 0.1, 1, 1;
  q << 0, 0, 0.9, 0.7, 1, 1, 0.6, 0.5;
  EXPECT_NEAR(symmetric_kl_histogram(p, q, 2), 1.0986052275876443, 1e-13);
  // Unsmoothed, on the same box: exactly log 3.
  const Box2d unit{0, 1, 0, 1};
  EXPECT_NEAR(symmetric_kl(histogram2d(p, unit, 2), histogram2d(q, unit, 2), 0.0), std::log(3.0),
              1e-15);
  // Orientation: θ1 indexes the rows of prob, so (0.9, 0.1) falls in bin (1, 0), not (0, 1).
  Mat p2 = p;
  p2.row(1) << 0.9, 0.1;  // P: (0,0) 2/4, (1,0) 1/4, (1,1) 1/4
  const Histogram2d h = histogram2d(p2, unit, 2);
  EXPECT_DOUBLE_EQ(h.prob(1, 0), 0.25);
  EXPECT_DOUBLE_EQ(h.prob(0, 1), 0.0);
}

TEST(HistogramKl, Symmetric) {
  const Mat a = normal_draws(2000, 0.0, 0.0, 2);
  const Mat b = normal_draws(3000, 0.5, -0.3, 3);
  const double ab = symmetric_kl_histogram(a, b, 30), ba = symmetric_kl_histogram(b, a, 30);
  EXPECT_GT(ab, 0.0);
  // Same bins in the same order; only the rounding of a/c against c/a differs.
  EXPECT_NEAR(ab, ba, 1e-12 * ab);
  const Box2d cb = covering_box(a, b), bc = covering_box(b, a);
  EXPECT_EQ(cb.lo1, bc.lo1);
  EXPECT_EQ(cb.hi2, bc.hi2);
}

TEST(HistogramKl, ShiftedGaussiansApproachClosedForm) {
  // For N(μ, σ² I) and N(μ′, σ² I): KL both ways is ‖Δμ‖²/(2σ²), so J = ‖Δμ‖²/σ²; here σ = 1,
  // Δμ = (0.3, −0.4), J = 0.25. Binning loses information: along each axis the log ratio is
  // linear with slope Δ_k/σ², so within a bin of width h it has variance (Δ_k/σ²)² h²/12, and to
  // second order J_binned = J (1 − h²/(12σ²)) (the product's J is the sum over the axes). Box
  // [−7, 7]² (the mass outside, < 1e-11, is immaterial) with 200 bins: h = 0.07, predicted
  // relative loss 4.08e-4. Tolerance: 5% of that loss (the next term is O(h⁴) ~ 1e-7 relative).
  const Box2d box{-7, 7, -7, 7};
  const std::size_t bins = 200;
  const Histogram2d p = exact_normal(box, bins, 0.0, 0.0), q = exact_normal(box, bins, 0.3, -0.4);
  const double h = 14.0 / bins, loss = h * h / 12.0;
  const double binned = symmetric_kl(p, q, 0.0);
  EXPECT_LT(binned, 0.25);  // data processing inequality
  EXPECT_NEAR(binned, 0.25 * (1.0 - loss), 0.05 * 0.25 * loss);
  // Smoothing mixes both histograms with the uniform one, weight λ = B s/(1 + B s), so by joint
  // convexity of KL the smoothed J is at most (1 − λ) times the plain one.
  const double s = kHistogramKlSmoothing, lambda = (bins * bins * s) / (1.0 + bins * bins * s);
  const double smoothed = symmetric_kl(p, q);
  EXPECT_LE(smoothed, (1.0 - lambda) * binned);
  EXPECT_GT(smoothed, 0.9 * binned);  // measured −7% at B = 4·10⁴ (total pseudo-mass 4%)
}

TEST(HistogramKl, DrawsAgainstExactBinsFollowChiSquare) {
  // n draws from the distribution of the exact histogram: to leading order
  // n·J ≈ n Σ_b (p̂_b − p_b)²/p_b, Pearson's statistic, ~ χ² with B − 1 = 399 degrees of freedom
  // (mean 399, sd √798 ≈ 28). Box [−2, 2]² so that every bin expects ≥ 19 draws (the corner bin
  // holds 1.9e-4 of the mass), where the χ² approximation holds. Threshold: mean ± 5 sd, fixed
  // seed. The draws outside the box are left out and both sides are normalised over it.
  const Box2d box{-2, 2, -2, 2};
  const Histogram2d exact = exact_normal(box, 20, 0.0, 0.0);
  const Mat d = normal_draws(100000, 0.0, 0.0, 4);
  const double inside = (d.array().abs() <= 2.0).rowwise().all().cast<double>().sum();
  const double nj = inside * symmetric_kl_histogram(d, exact);
  EXPECT_GT(nj, 399.0 - 5 * 28.0);
  EXPECT_LT(nj, 399.0 + 5 * 28.0);
  // A sample shifted by 0.5 along θ1 is far away: J ≈ 0.25 before truncation to the box,
  // ≫ the noise level 399/n = 0.004.
  const Mat shifted = normal_draws(100000, 0.5, 0.0, 5);
  EXPECT_GT(symmetric_kl_histogram(shifted, exact), 0.1);
}

TEST(HistogramKl, GivenBoxLeavesOutRowsOutsideIt) {
  Mat a(3, 2), b(3, 2);
  a << 0.1, 0.1, 0.6, 0.6, 5.0, 5.0;  // the last row is outside [0, 1]²
  b << 0.1, 0.1, 0.6, 0.6, 0.7, 0.7;
  // a over the box: ½, ½ in bins (0, 0), (1, 1); b: ⅓, ⅔. Unsmoothed J would be
  // (½ − ⅓) log(3/2) + (½ − ⅔) log(3/4) = (1/6) log 2 = 0.11552453009332421.
  const double j = symmetric_kl_histogram(a, b, Box2d{0, 1, 0, 1}, 2);
  EXPECT_NEAR(j, std::log(2.0) / 6.0, 1e-5);  // s = 1e-6 changes it by O(s)
  EXPECT_THROW(symmetric_kl_histogram(a, b, Box2d{2, 1, 0, 1}, 2), ConfigError);
  EXPECT_THROW(symmetric_kl_histogram(a, b, Box2d{10, 11, 10, 11}, 2), DataError);
}

TEST(HistogramKl, ConstantAxisGetsAUnitWideBox) {
  Mat a(2, 2);
  a << 1.0, 3.0, 1.0, 3.0;
  const Box2d box = covering_box(a, a);
  EXPECT_EQ(box.lo1, 0.5);
  EXPECT_EQ(box.hi1, 1.5);
  EXPECT_EQ(box.lo2, 2.5);
  EXPECT_EQ(symmetric_kl_histogram(a, a), 0.0);
}

TEST(HistogramKl, BadInputIsRefusedWithAClearMessage) {
  const Mat ok = normal_draws(10, 0, 0, 6);
  EXPECT_NE(message_of<DataError>([&] {
              symmetric_kl_histogram(Mat::Zero(10, 3), ok);
            }).find("draws must be n x 2"),
            std::string::npos);
  EXPECT_NE(message_of<DataError>([&] {
              symmetric_kl_histogram(ok, Mat::Zero(1, 2));
            }).find("reference must be n x 2"),
            std::string::npos);
  Mat bad = ok;
  bad(1, 1) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NE(message_of<DataError>([&] { symmetric_kl_histogram(bad, ok); }).find("draws row 2"),
            std::string::npos);
  bad(1, 1) = std::numeric_limits<double>::infinity();
  EXPECT_NE(message_of<DataError>([&] { symmetric_kl_histogram(ok, bad); }).find("reference row 2"),
            std::string::npos);
  for (const int bins : {0, -3, kHistogramKlMaxBins + 1}) {
    EXPECT_NE(message_of<ConfigError>([&] {
                symmetric_kl_histogram(ok, ok, bins);
              }).find("bins per axis must be between 1 and"),
              std::string::npos)
        << bins;
  }
  Histogram2d wrong;
  wrong.bins = 3;
  wrong.prob = Mat::Constant(2, 2, 0.25);
  EXPECT_THROW(symmetric_kl_histogram(ok, wrong), ConfigError);
  const Histogram2d p = exact_normal({-1, 1, -1, 1}, 4, 0, 0);
  EXPECT_THROW(symmetric_kl(p, exact_normal({-1, 1, -1, 1}, 5, 0, 0)), ConfigError);
  EXPECT_THROW(symmetric_kl(p, p, -1e-3), ConfigError);
}

}  // namespace
}  // namespace dpmcmc
