// Bayesian logistic regression: log-likelihood against the textbook formula (including logits of
// ±800, where a naive evaluation overflows, and −40, where it loses all relative accuracy),
// gradients against finite differences, the fused ratio against two evaluations, the
// Assumption-1 bound of [ZhangZhang2023] on random pairs (and its tightness), refusal of bad rows
// and parameters, the simulator's design, the predictive functions, the Newton MAP, and, when the
// data are installed, the non-private MAP accuracy on Fashion-MNIST T-shirt vs shirt.
#include "models/logistic_regression.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <numbers>
#include <string>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "data/fashion_mnist.hpp"
#include "model_test_util.hpp"
#include "models/logistic_predictive.hpp"
#include "models/posterior.hpp"

namespace dpmcmc {
namespace {

LogisticRegressionModel make(int d, double s = 2.0, double r = 1.0, double t = 1.0) {
  return LogisticRegressionModel({d, s, r, t});
}

// Rows (x, y) with the given logits z_k = x_kᵀθ: x_k = (z_k / ‖θ‖²) θ.
Mat rows_with_logits(const Vec& theta, const std::vector<double>& z, const std::vector<int>& y) {
  Mat rows(static_cast<Eigen::Index>(z.size()), theta.size() + 1);
  for (std::size_t k = 0; k < z.size(); ++k) {
    const auto i = static_cast<Eigen::Index>(k);
    rows.row(i).head(theta.size()) = (z[k] / theta.squaredNorm()) * theta.transpose();
    rows(i, theta.size()) = y[k];
  }
  return rows;
}

// The textbook form y log σ(z) + (1 − y) log(1 − σ(z)) in long double (valid for moderate z).
double direct(double z, int y) {
  const long double s = 1.0L / (1.0L + std::exp(-static_cast<long double>(z)));
  return static_cast<double>(y == 1 ? std::log(s) : std::log1p(-s));
}

TEST(LogisticRegression, LogLikMatchesDirectFormula) {
  const auto model = make(3);
  const Vec theta = Vec::LinSpaced(3, -1.0, 2.0);
  const std::vector<double> z = {-7.5, -1.0, -0.1, 0.0, 0.3, 2.0, 9.0};
  for (int y : {0, 1}) {
    const Mat rows = rows_with_logits(theta, z, std::vector<int>(z.size(), y));
    Vec out(rows.rows());
    model.log_lik_rows(theta, rows, out);
    for (std::size_t k = 0; k < z.size(); ++k) {
      // Long double reference: agreement to ~1e-15 relative; 1e-13 leaves margin.
      EXPECT_NEAR(out(static_cast<Eigen::Index>(k)), direct(z[k], y),
                  1e-13 * (1.0 + std::abs(direct(z[k], y))))
          << "z = " << z[k] << ", y = " << y;
    }
  }
}

TEST(LogisticRegression, ExtremeLogitsStayFiniteAndAccurate) {
  const auto model = make(2, 1e3, 1e4);
  const Vec theta = (Vec(2) << 3.0, 4.0).finished();
  // z = ±800: e^{800} overflows a double, so log(1 + e^z) evaluated naively is inf.
  const Mat rows = rows_with_logits(theta, {800, 800, -800, -800, -40, -40}, {1, 0, 1, 0, 1, 0});
  Vec out(6);
  model.log_lik_rows(theta, rows, out);
  ASSERT_TRUE(out.allFinite()) << out.transpose();
  // Closed forms: ℓ = yz − softplus(z), softplus(800) = 800 + log1p(e^{−800}) = 800 in double,
  // softplus(−800) = e^{−800} = 0 in double, softplus(−40) = log1p(e^{−40}) ≈ e^{−40}.
  EXPECT_NEAR(out(0), 0.0, 1e-12);
  EXPECT_NEAR(out(1), -800.0, 1e-12);
  EXPECT_NEAR(out(2), -800.0, 1e-12);
  EXPECT_NEAR(out(3), 0.0, 1e-300);
  EXPECT_NEAR(out(4), -40.0, 1e-12);
  // −log1p(e^{−40}) = −(e^{−40} − e^{−80}/2 + …): full relative accuracy, where the naive
  // log(1 + e^{−40}) returns 0.
  EXPECT_NEAR(out(5) / -std::exp(-40.0), 1.0, 1e-15);
  Mat grad(6, 2);
  model.grad_log_lik_rows(theta, rows, grad);
  ASSERT_TRUE(grad.allFinite());
  // (y − σ(z)) x: σ(800) = 1 and σ(−800) = 0 in double.
  EXPECT_NEAR(grad(0, 0), 0.0, 1e-12);
  EXPECT_NEAR(grad(1, 0), -rows(1, 0), 1e-12);
  EXPECT_NEAR(grad(2, 1), rows(2, 1), 1e-12);
  EXPECT_NEAR(grad(3, 1), 0.0, 1e-12);
  Vec ratio(6);
  model.log_lik_ratio_rows(theta, -theta, rows, ratio);  // logits flip sign
  ASSERT_TRUE(ratio.allFinite());
  EXPECT_NEAR(ratio(0), -800.0, 1e-9);  // ℓ(−800; y=1) − ℓ(800; y=1)
  EXPECT_NEAR(ratio(1), 800.0, 1e-9);
}

// Central differences with h = 1e-6: ℓ''' is bounded by 0.1·‖x‖³ ≤ 0.1 (rows in the unit ball),
// so truncation ≤ 2e-14, and rounding ≈ 1e-16·|ℓ|/h ≤ 1e-9 for |ℓ| ≤ 10; 1e-7·(1 + |g|) flags any
// wrong term, sign or factor.
TEST(LogisticRegression, GradientsMatchFiniteDifferences) {
  const auto model = make(4, 1.5, 1.0, 0.4);
  Rng rng = make_rng(21, 0, Stream::data);
  const Vec theta0 = (Vec(4) << 2.0, -1.0, 0.5, 3.0).finished();
  const Dataset data = model.simulate(theta0, 25, rng);
  for (const Vec& theta : {theta0, Vec(Vec::LinSpaced(4, -3.0, 3.0))}) {
    Mat grads(25, 4);
    model.grad_log_lik_rows(theta, data.x, grads);
    for (Eigen::Index i = 0; i < 25; ++i) {
      const Mat row = data.x.row(i);
      const auto f = [&](const Vec& t) {
        Vec out(1);
        model.log_lik_rows(t, row, out);
        return out(0);
      };
      const Vec fd = test::central_difference(f, theta, 1e-6);
      for (Eigen::Index j = 0; j < 4; ++j) {
        EXPECT_NEAR(grads(i, j), fd(j), 1e-7 * (1.0 + std::abs(fd(j)))) << i << "," << j;
      }
    }
    Vec gp(4);
    model.grad_log_prior(theta, gp);
    const Vec fdp =
        test::central_difference([&](const Vec& t) { return model.log_prior(t); }, theta, 1e-6);
    EXPECT_LT((gp - fdp).cwiseAbs().maxCoeff(), 1e-7 * (1.0 + fdp.cwiseAbs().maxCoeff()));
    // The tempered posterior (T = 0.4) in blocks of 7 rows, h = 1e-5 for its larger |f|.
    const Posterior post(model, data, 7);
    Vec g;
    post.log_density_gradient(theta, g);
    const Vec fd =
        test::central_difference([&](const Vec& t) { return post.log_density(t); }, theta, 1e-5);
    EXPECT_LT((g - fd).cwiseAbs().maxCoeff(), 1e-6 * (1.0 + fd.cwiseAbs().maxCoeff()));
  }
}

TEST(LogisticRegression, PriorIsTheNormalisedGaussian) {
  const auto model = make(3, 2.0);
  const Vec theta = (Vec(3) << 1.0, -2.0, 0.5).finished();
  // Σ_j log N(θ_j; 0, 4) written out.
  double expected = 0.0;
  for (int j = 0; j < 3; ++j) {
    expected += -0.5 * std::log(2.0 * std::numbers::pi * 4.0) - theta(j) * theta(j) / 8.0;
  }
  EXPECT_NEAR(model.log_prior(theta), expected, 1e-13);
}

TEST(LogisticRegression, FusedRatioEqualsDifferenceOnStridedBlocks) {
  const auto model = make(5);
  Rng rng = make_rng(22, 0, Stream::data);
  const Vec a = Vec::LinSpaced(5, -2.0, 2.0), b = Vec::LinSpaced(5, 1.0, -0.5);
  const Dataset data = model.simulate(a, 300, rng);
  const RowBlock view = data.block(37, 200);
  Vec fused(200), la(200), lb(200);
  model.log_lik_ratio_rows(a, b, view, fused);
  model.log_lik_rows(a, view, la);
  model.log_lik_rows(b, view, lb);
  // Both are differences of O(1) terms: rounding ~1e-15.
  EXPECT_LT((fused - (lb - la)).cwiseAbs().maxCoeff(), 1e-12);
}

// Assumption 1 of [ZhangZhang2023] (see the header's derivation): |Δ log p| ≤ ‖x‖·‖θ′ − θ‖ on
// random parameters of several scales (up to logits of ~±100) and random rows in the unit ball.
TEST(LogisticRegression, RatioBoundHoldsOnRandomPairs) {
  const int d = 6;
  const auto model = make(d);
  Rng rng = make_rng(23, 0, Stream::data);
  double worst = 0.0;  // largest |ratio| / bound seen
  for (int trial = 0; trial < 200; ++trial) {
    const double scale = std::pow(10.0, -1.0 + 3.0 * rng.uniform());  // 0.1 … 100
    Vec t(d), tp(d);
    for (int j = 0; j < d; ++j) {
      t(j) = scale * rng.normal();
      tp(j) = t(j) + scale * rng.normal() * rng.uniform();
    }
    const Dataset data = model.simulate(t, 50, rng);
    Vec ratio(50), c(50);
    model.log_lik_ratio_rows(t, tp, data.x, ratio);
    model.row_bounds(data.x, c);
    const double m = model.bound_distance(t, tp);
    EXPECT_DOUBLE_EQ(m, model.bound_distance(tp, t));
    for (Eigen::Index i = 0; i < 50; ++i) {
      EXPECT_DOUBLE_EQ(c(i), data.x.row(i).head(d).norm());
      // 1e-12 absolute: the rounding of the ratio of terms up to ~100.
      ASSERT_LE(std::abs(ratio(i)), c(i) * m + 1e-12) << "trial " << trial << " row " << i;
      if (c(i) * m > 0) worst = std::max(worst, std::abs(ratio(i)) / (c(i) * m));
    }
  }
  EXPECT_LE(worst, 1.0);
  EXPECT_EQ(model.bound_distance(Vec::Ones(d), Vec::Ones(d)), 0.0);
}

// The bound is tight: with x parallel to θ′ − θ, y = 1 and both logits ≪ 0, ℓ(z) = z −
// softplus(z) ≈ z, so |Δℓ| ≈ |Δz| = ‖x‖‖θ′ − θ‖. A looser c_i (e.g. 2‖x‖) would be valid but
// would waste privacy budget; this checks the constant is 1, not more.
TEST(LogisticRegression, RatioBoundIsTight) {
  const auto model = make(2);
  const Vec theta = (Vec(2) << -60.0, 0.0).finished();
  const Vec theta_prime = (Vec(2) << -50.0, 0.0).finished();
  Mat row(1, 3);
  row << 0.9, 0.0, 1.0;  // z = −54, z′ = −45
  Vec ratio(1), c(1);
  model.log_lik_ratio_rows(theta, theta_prime, row, ratio);
  model.row_bounds(row, c);
  const double bound = c(0) * model.bound_distance(theta, theta_prime);
  EXPECT_NEAR(bound, 9.0, 1e-12);
  EXPECT_GT(ratio(0) / bound, 0.999999);
  EXPECT_LE(ratio(0), bound);
}

TEST(LogisticRegression, BadRowsAreRefused) {
  const auto model = make(2, 1.0, 1.0);
  Mat rows(3, 3);
  rows << 0.1, 0.2, 1.0,  //
      0.6, 0.6, 0.0,      // norm 0.85
      0.8, 0.7, 1.0;      // norm 1.063 > R = 1
  Vec c(3);
  try {
    model.row_bounds(rows, c);
    ADD_FAILURE() << "row above the norm bound accepted";
  } catch (const DataError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("row 3 (1-based"), std::string::npos) << msg;
    EXPECT_NE(msg.find("R = 1"), std::string::npos) << msg;
  }
  rows(2, 0) = 0.1;
  model.row_bounds(rows, c);  // now fine
  rows(1, 2) = 0.5;           // not a label
  Vec out(3);
  for (const auto& call : std::vector<std::function<void()>>{
           [&] { model.row_bounds(rows, c); },
           [&] { model.log_lik_rows(Vec::Zero(2), rows, out); },
       }) {
    try {
      call();
      ADD_FAILURE() << "label 0.5 accepted";
    } catch (const DataError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("row 2 (1-based"), std::string::npos) << msg;
      EXPECT_NE(msg.find("expected 0 or 1"), std::string::npos) << msg;
    }
  }
  rows(1, 2) = 2.0;
  Mat g(3, 2);
  EXPECT_THROW(model.grad_log_lik_rows(Vec::Zero(2), rows, g), DataError);
  rows(1, 2) = std::nan("");
  EXPECT_THROW(model.log_lik_ratio_rows(Vec::Zero(2), Vec::Ones(2), rows, out), DataError);
  // Wrong width: the label column missing.
  EXPECT_THROW(model.log_lik_rows(Vec::Zero(2), Mat::Zero(3, 2), out), DataError);
  EXPECT_THROW(model.log_lik_rows(Vec::Zero(3), rows, out), UsageError);
}

TEST(LogisticRegression, BadParametersAreRefused) {
  EXPECT_THROW(make(0), ConfigError);
  EXPECT_THROW(make(2, 0.0), ConfigError);
  EXPECT_THROW(make(2, INFINITY), ConfigError);
  EXPECT_THROW(make(2, 1.0, -1.0), ConfigError);
  EXPECT_THROW(make(2, 1.0, 1.0, 0.0), ConfigError);
  EXPECT_THROW(make(2, 1.0, 1.0, 1.5), ConfigError);
  EXPECT_EQ(make(2).data_columns(), (std::vector<std::string>{"x.1", "x.2", "y"}));
}

// The simulator: rows uniform in the ball of radius R, so E‖x‖² = R² d/(d + 2) and every row
// within R; labels with the model's probabilities.
TEST(LogisticRegression, SimulatedDesignIsUniformInTheBall) {
  const int d = 5, n = 20000;
  const double R = 2.0;
  const auto model = make(d, 1.0, R);
  const Vec theta = Vec::LinSpaced(d, -1.0, 1.5);
  Rng rng = make_rng(24, 0, Stream::data);
  const Dataset data = model.simulate(theta, n, rng);
  const Vec sq = data.x.leftCols(d).rowwise().squaredNorm();
  EXPECT_LE(sq.maxCoeff(), R * R);
  // ‖x‖²/R² = U^{2/d} has mean d/(d+2) = 0.714 and variance d/(d+4) − (d/(d+2))² = 0.0454;
  // sd of the mean over n = 20000 is 0.0015: 0.008 is > 5 sd.
  EXPECT_NEAR(sq.mean() / (R * R), 5.0 / 7.0, 0.008);
  // Mean of y against the mean of σ(xᵀθ) on the same rows: the difference has sd
  // ≤ 0.5/√n = 0.0035; 0.018 is 5 sd.
  const Vec p = model.predictive_probabilities(theta.transpose(), data.x);
  EXPECT_NEAR(data.x.col(d).mean(), p.mean(), 0.018);
  // Mean direction is isotropic: |mean of x_j| has sd ≈ R/√(d+2)/√n ≈ 0.0053; 0.03 > 5 sd.
  EXPECT_LT(data.x.leftCols(d).colwise().mean().cwiseAbs().maxCoeff(), 0.03);
}

TEST(LogisticRegression, PredictiveAveragesDrawsAndCountsCorrectRows) {
  const auto model = make(2);
  Mat test(4, 3);
  test << 1.0, 0.0, 1.0,  //
      -1.0, 0.0, 0.0,     //
      0.0, 1.0, 1.0,      //
      0.0, -1.0, 1.0;
  Mat draws(2, 2);
  draws << 2.0, 1.0,  //
      0.0, -3.0;
  const Vec p = model.predictive_probabilities(draws, test);
  const auto sig = [](double z) { return 1.0 / (1.0 + std::exp(-z)); };
  EXPECT_NEAR(p(0), 0.5 * (sig(2.0) + sig(0.0)), 1e-15);
  EXPECT_NEAR(p(1), 0.5 * (sig(-2.0) + sig(0.0)), 1e-15);
  EXPECT_NEAR(p(2), 0.5 * (sig(1.0) + sig(-3.0)), 1e-15);  // 0.4 < ½: predicted 0, wrong
  EXPECT_NEAR(p(3), 0.5 * (sig(-1.0) + sig(3.0)), 1e-15);  // 0.6 > ½: predicted 1, right
  Dataset data{test, model.data_columns()};
  EXPECT_DOUBLE_EQ(model.predictive_accuracy(draws, data), 0.75);
  // More draws than one chunk (256): equal to a plain loop over draws.
  Rng rng = make_rng(25, 0, Stream::data);
  Mat many(600, 2);
  for (Eigen::Index s = 0; s < 600; ++s) many.row(s) << rng.normal(), rng.normal();
  const Vec pm = model.predictive_probabilities(many, test);
  for (Eigen::Index i = 0; i < 4; ++i) {
    double sum = 0.0;
    for (Eigen::Index s = 0; s < 600; ++s) sum += sig(test.row(i).head(2).dot(many.row(s)));
    EXPECT_NEAR(pm(i), sum / 600.0, 1e-14);
  }
  EXPECT_THROW(model.predictive_probabilities(Mat::Zero(3, 5), test), UsageError);
}

// The MAP of simulated data recovers the true θ within its asymptotic sd: the Fisher
// information per row is about E[σ(1−σ)] E[x xᵀ] ≈ 0.2 · R²/(d + 2) I = 0.04 I for d = 3,
// R = 1, so with n = 20000 the sd is ≈ 1/√800 = 0.035; 0.2 is over 5 sd. The gradient of the
// log posterior at the MAP is 0 (checked through Posterior, an independent code path).
TEST(LogisticRegression, NewtonMapRecoversTheTruth) {
  const auto model = make(3, 10.0);
  const Vec truth = (Vec(3) << 1.5, -2.0, 0.5).finished();
  Rng rng = make_rng(26, 0, Stream::data);
  const Dataset data = model.simulate(truth, 20000, rng);
  const LogisticMap map = logistic_map(model, data);
  EXPECT_LT((map.theta - truth).cwiseAbs().maxCoeff(), 0.2) << map.theta.transpose();
  EXPECT_LT(map.iterations, 20);
  const Posterior post(model, data);
  Vec g;
  EXPECT_NEAR(post.log_density_gradient(map.theta, g), map.log_density, 1e-8);
  // At the optimum ‖g‖ ≈ √(decrement · λ_max(H)) ≤ √(1e-10 · 1e3): 1e-3 is a loose cap.
  EXPECT_LT(g.norm(), 1e-3);
}

// Fashion-MNIST T-shirt/top vs Shirt, PCA-50 scaled to ‖x‖ ≤ 1: the non-private MAP's test
// accuracy, the baseline of private runs. Deterministic (no randomness); 0.80 is a regression
// guard (chance is 0.5; linear models on this pair reach ~0.85).
TEST(LogisticRegressionReal, FashionMnistMapAccuracy) {
  const std::filesystem::path dir{kFashionMnistDefaultDir};
  if (!std::filesystem::exists(dir / "train-images-idx3-ubyte.gz")) {
    GTEST_SKIP() << "Fashion-MNIST not installed in " << dir;
  }
  const PcaFeatures f = load_fashion_mnist();
  for (double s : {10.0, 100.0}) {
    const LogisticRegressionModel model({50, s, 1.0, 1.0});
    const auto start = std::chrono::steady_clock::now();
    const LogisticMap map = logistic_map(model, f.train);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const Mat draw = map.theta.transpose();
    const double test_acc = model.predictive_accuracy(draw, f.test);
    const double train_acc = model.predictive_accuracy(draw, f.train);
    std::printf(
        "prior sd %g: MAP in %d Newton steps (%.2f s), |theta| = %.1f, train acc %.4f, test acc "
        "%.4f\n",
        s, map.iterations, seconds, map.theta.norm(), train_acc, test_acc);
    EXPECT_GT(test_acc, 0.80);
  }
}

}  // namespace
}  // namespace dpmcmc
