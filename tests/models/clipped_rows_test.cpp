// The per-row clipping shared by the private releases and the non-private clipping rule
// (models/clipped_rows.hpp), against the circle model's closed forms written out here:
//   log p(r_i | θ) = −a(‖θ‖² − r_i²)²,  ∇_θ log p(r_i | θ) = −4a(‖θ‖² − r_i²)·θ.
#include "models/clipped_rows.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "../error_message.hpp"
#include "core/error.hpp"
#include "models/circle.hpp"

namespace dpmcmc {
namespace {

using test::message_of;

constexpr double kA = 0.05;

Vec vec2(double a, double b) {
  Vec v(2);
  v << a, b;
  return v;
}

// 10 000 rows (more than two blocks of kClipBlockRows) spread over r ∈ [0, 4).
Dataset radii() {
  Dataset d;
  d.columns = {"r"};
  d.x.resize(10000, 1);
  for (Eigen::Index i = 0; i < d.x.rows(); ++i) d.x(i, 0) = 4.0 * static_cast<double>(i) / 1e4;
  return d;
}

double row_log_lik(const Vec& theta, double r) {
  const double u = theta.squaredNorm() - r * r;
  return -kA * u * u;
}

TEST(ClippedRows, LlrSumOverSeveralBlocksMatchesRowByRow) {
  const CircleModel model(kA);
  const Dataset d = radii();
  const Vec t = vec2(0.5, 1.0), tp = vec2(0.7, 1.1);
  const double bound = 0.2;
  double want = 0.0;
  std::size_t want_clipped = 0;
  for (Eigen::Index i = 0; i < d.x.rows(); ++i) {
    const double r = row_log_lik(tp, d.x(i, 0)) - row_log_lik(t, d.x(i, 0));
    want_clipped += std::abs(r) > bound;
    want += std::clamp(r, -bound, bound);
  }
  // Some but not all rows clipped, so both branches of the clip are exercised.
  ASSERT_GT(want_clipped, 1000u);
  ASSERT_LT(want_clipped, 9000u);
  Vec scratch;
  const ClippedLlr c = clipped_llr_sum(model, d, t, tp, bound, scratch);
  EXPECT_EQ(c.rows, 10000u);
  EXPECT_EQ(c.clipped, want_clipped);
  // Summation order differs (blocks and the fused ratio): rounding only, ≪ 1e-10 relative.
  EXPECT_NEAR(c.sum, want, 1e-10 * std::abs(want));
}

TEST(ClippedRows, GradientsAreScaledToTheBoundRowByRow) {
  const CircleModel model(kA);
  const Dataset d = radii();
  const Vec t = vec2(0.5, 1.0);
  const double bound = 0.3;
  Vec want = Vec::Zero(2);
  std::size_t want_clipped = 0;
  for (Eigen::Index i = 0; i < d.x.rows(); ++i) {
    const double r = d.x(i, 0);
    const Vec g = -4.0 * kA * (t.squaredNorm() - r * r) * t;
    const double norm = g.norm();
    want_clipped += norm > bound;
    want += norm > bound ? Vec(g * (bound / norm)) : g;
  }
  ASSERT_GT(want_clipped, 1000u);
  ASSERT_LT(want_clipped, 9000u);
  Mat g(d.x.rows(), 2);
  Vec norms(d.x.rows());
  Vec sum = Vec::Zero(2);
  std::size_t clipped = 0;
  add_clipped_grads(model, t, d.block(0, d.rows()), bound, g, norms, sum, clipped);
  EXPECT_EQ(clipped, want_clipped);
  EXPECT_NEAR(sum(0), want(0), 1e-10 * std::abs(want(0)));
  EXPECT_NEAR(sum(1), want(1), 1e-10 * std::abs(want(1)));
}

// A row impossible under θ′ or θ has ratio −∞ or +∞: clipped to ∓bound and counted, not NaN.
class ImpossibleRows final : public CircleModel {
 public:
  ImpossibleRows() : CircleModel(kA) {}
  void log_lik_ratio_rows(const Vec& t, const Vec& tp, const RowBlock& rows,
                          Eigen::Ref<Vec> out) const override {
    CircleModel::log_lik_ratio_rows(t, tp, rows, out);
    out(0) = -std::numeric_limits<double>::infinity();
    out(1) = std::numeric_limits<double>::infinity();
    out(2) = -std::numeric_limits<double>::infinity();
  }
};

TEST(ClippedRows, InfiniteRatiosAreClippedLikeLargeOnes) {
  const ImpossibleRows model;
  const CircleModel plain(kA);
  Dataset d;
  d.columns = {"r"};
  d.x.resize(5, 1);
  d.x << 1.0, 1.5, 2.0, 2.5, 3.0;
  const Vec t = vec2(0.5, 1.0), tp = vec2(0.51, 1.0);  // finite ratios far below the bound
  const double bound = 10.0;
  Vec scratch;
  const ClippedLlr base = clipped_llr_sum(plain, d, t, tp, bound, scratch);
  ASSERT_EQ(base.clipped, 0u);
  Vec r(5);
  plain.log_lik_ratio_rows(t, tp, d.block(0, 5), r);
  const ClippedLlr c = clipped_llr_sum(model, d, t, tp, bound, scratch);
  EXPECT_EQ(c.clipped, 3u);
  // Rows 0–2 become −bound, +bound, −bound; rows 3 and 4 keep their finite ratios.
  EXPECT_NEAR(c.sum, -bound + r(3) + r(4), 1e-12);
}

// A broken model: NaN ratios and infinite gradients.
class BrokenCircle final : public CircleModel {
 public:
  BrokenCircle() : CircleModel(kA) {}
  std::string name() const override { return "broken"; }
  void log_lik_ratio_rows(const Vec&, const Vec&, const RowBlock&,
                          Eigen::Ref<Vec> out) const override {
    out.setConstant(std::numeric_limits<double>::quiet_NaN());
  }
  void grad_log_lik_rows(const Vec&, const RowBlock&, Eigen::Ref<Mat> out) const override {
    out.setConstant(std::numeric_limits<double>::infinity());
  }
};

// A broken model (or a row the model cannot evaluate) must not stop a run or skip a release on
// one private row: NaN ratios count as 0 and non-finite gradients as the zero vector, each counted
// with the clipped rows. Were they thrown or summed, this test would fail.
TEST(ClippedRows, NonFiniteRowsAreMappedIntoTheClipRange) {
  const BrokenCircle model;
  const Dataset d = radii();
  Vec scratch;
  const ClippedLlr llr = clipped_llr_sum(model, d, vec2(0, 1), vec2(1, 0), 1.0, scratch);
  EXPECT_EQ(llr.sum, 0.0);
  EXPECT_EQ(llr.clipped, static_cast<std::size_t>(d.rows()));
  EXPECT_EQ(llr.rows, static_cast<std::size_t>(d.rows()));

  Mat g(10, 2);
  Vec norms(10), sum = Vec::Zero(2);
  std::size_t clipped = 0;
  add_clipped_grads(model, vec2(0, 1), d.block(0, 10), 1.0, g, norms, sum, clipped);
  EXPECT_EQ(sum, Vec::Zero(2));
  EXPECT_EQ(clipped, 10u);
}

// One broken row among good ones: the good rows' clipped sum is unchanged.
class OneNanRow final : public CircleModel {
 public:
  OneNanRow() : CircleModel(kA) {}
  void log_lik_ratio_rows(const Vec& t, const Vec& tp, const RowBlock& rows,
                          Eigen::Ref<Vec> out) const override {
    CircleModel::log_lik_ratio_rows(t, tp, rows, out);
    out[0] = std::numeric_limits<double>::quiet_NaN();
  }
  void grad_log_lik_rows(const Vec& t, const RowBlock& rows, Eigen::Ref<Mat> out) const override {
    CircleModel::grad_log_lik_rows(t, rows, out);
    out(0, 1) = std::numeric_limits<double>::infinity();
  }
};

TEST(ClippedRows, OneNonFiniteRowContributesZero) {
  const CircleModel plain(kA);
  const OneNanRow broken;
  const Dataset d = radii();
  const auto n = static_cast<Eigen::Index>(d.rows());
  const Vec t = vec2(0.3, 0.9), tp = vec2(0.5, 0.7);
  // One block each, so that row 0 of the block is row 0 of the data.
  Vec r(n);
  ClippedLlr all, rest, mapped;
  add_clipped_llr(plain, t, tp, d.block(0, d.rows()), 10.0, r, all);
  add_clipped_llr(plain, t, tp, d.block(1, d.rows() - 1), 10.0, r.head(n - 1), rest);
  add_clipped_llr(broken, t, tp, d.block(0, d.rows()), 10.0, r, mapped);
  EXPECT_NEAR(mapped.sum, rest.sum, 1e-12 * std::abs(rest.sum));
  EXPECT_EQ(mapped.clipped, rest.clipped + 1);

  Mat g(n, 2);
  Vec norms(n), bad = Vec::Zero(2), tail = Vec::Zero(2);
  std::size_t c2 = 0, c3 = 0;
  add_clipped_grads(broken, t, d.block(0, d.rows()), 10.0, g, norms, bad, c2);
  add_clipped_grads(plain, t, d.block(1, d.rows() - 1), 10.0, g.topRows(n - 1), norms.head(n - 1),
                    tail, c3);
  EXPECT_TRUE(bad.allFinite());
  EXPECT_NEAR((bad - tail).norm(), 0.0, 1e-12 * tail.norm());
  EXPECT_EQ(c2, c3 + 1);
}

}  // namespace
}  // namespace dpmcmc
