// PCA against a known answer: rows drawn from N(μ, Q D Qᵀ) with a diagonal D and an orthogonal Q
// built from a fixed seed; the recovered components must be the columns of Q (up to the sign
// convention), the variances the sample variances along them, and the components orthonormal.
#include "data/pca.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"
#include "core/rng.hpp"

namespace dpmcmc {
namespace {

// A random orthogonal matrix: Q of the QR factorisation of a Gaussian matrix (fixed seed).
Mat orthogonal(int p, Rng& rng) {
  Mat g(p, p);
  for (int i = 0; i < p; ++i)
    for (int j = 0; j < p; ++j) g(i, j) = rng.normal();
  return Eigen::HouseholderQR<Mat>(g).householderQ() * Mat::Identity(p, p);
}

struct Synthetic {
  Mat x;
  Mat q;   // true components (columns), in decreasing variance order
  Vec sd;  // true standard deviations along them
  Vec mu;
};

Synthetic make_data(int n, int p, std::uint64_t seed) {
  Rng rng = make_rng(seed, 0, Stream::data);
  Synthetic s;
  s.q = orthogonal(p, rng);
  s.sd = Vec::LinSpaced(p, 3.0, 0.3);  // well-separated variances 9, …, 0.09
  s.mu = Vec::LinSpaced(p, -2.0, 5.0);
  Mat z(n, p);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < p; ++j) z(i, j) = rng.normal() * s.sd(j);
  s.x = z * s.q.transpose();
  s.x.rowwise() += s.mu.transpose();
  return s;
}

TEST(Pca, RecoversRotatedDiagonalCovariance) {
  const int n = 20000, p = 6, k = 4;
  const Synthetic s = make_data(n, p, 11);
  const Pca pca = fit_pca(s.x, k);
  ASSERT_EQ(pca.components.rows(), p);
  ASSERT_EQ(pca.components.cols(), k);
  // Orthonormal to rounding.
  EXPECT_LT((pca.components.transpose() * pca.components - Mat::Identity(k, k)).norm(), 1e-12);
  // The mean: sd of each coordinate of x̄ is ≤ 3/√n = 0.021; 0.1 is about 5 sd.
  EXPECT_LT((pca.mean - s.mu).cwiseAbs().maxCoeff(), 0.1);
  for (int j = 0; j < k; ++j) {
    // Variances: the sample variance of N(0, σ²) has relative sd √(2/n) = 1%; allow 5%.
    EXPECT_NEAR(pca.variances(j), s.sd(j) * s.sd(j), 0.05 * s.sd(j) * s.sd(j)) << j;
    // Components up to sign: |cos angle| to the true one. Neighbouring variances differ by ~1.5
    // (gap ≫ sampling error of S, ~ σ_i σ_j/√n ≈ 0.06), so the angle error is ~0.06/1.5 ≈ 0.04;
    // |cos| > 0.99 allows an angle of 0.14 rad.
    const double cosine = std::abs(pca.components.col(j).dot(s.q.col(j)));
    EXPECT_GT(cosine, 0.99) << j;
    // Sign convention: the largest-|loading| entry is positive.
    Eigen::Index at = 0;
    pca.components.col(j).cwiseAbs().maxCoeff(&at);
    EXPECT_GT(pca.components(at, j), 0.0);
  }
  // Decreasing variances.
  for (int j = 1; j < k; ++j) EXPECT_GE(pca.variances(j - 1), pca.variances(j));
}

TEST(Pca, TransformMatchesProjectionAndHasSampleVariances) {
  const Synthetic s = make_data(5000, 5, 12);
  const Pca pca = fit_pca(s.x, 3);
  const Mat z = pca.transform(s.x);
  // Second method for the projection: row by row.
  for (int i : {0, 17, 4999}) {
    const Vec zi = pca.components.transpose() * (s.x.row(i).transpose() - pca.mean);
    EXPECT_LT((z.row(i).transpose() - zi).norm(), 1e-10);
  }
  // Scores are centred, uncorrelated, with variances equal to the eigenvalues (exact identities
  // of PCA on the fitting data, up to rounding).
  const Mat cov = (z.transpose() * z) / static_cast<double>(z.rows() - 1);
  EXPECT_LT(z.colwise().mean().cwiseAbs().maxCoeff(), 1e-10);
  EXPECT_LT((cov - Mat(pca.variances.asDiagonal())).cwiseAbs().maxCoeff(), 1e-9);
}

TEST(Pca, ExactSmallCase) {
  // Points (±a, 0) and (0, ±b) with a > b: covariance diag(a²/2, b²/2)·4/3 (n − 1 = 3); first
  // component e1, second e2, signs positive by the convention.
  Mat x(4, 2);
  x << 2, 0, -2, 0, 0, 1, 0, -1;
  const Pca pca = fit_pca(x, 2);
  EXPECT_NEAR(pca.variances(0), 8.0 / 3.0, 1e-12);
  EXPECT_NEAR(pca.variances(1), 2.0 / 3.0, 1e-12);
  EXPECT_NEAR(pca.components(0, 0), 1.0, 1e-12);
  EXPECT_NEAR(pca.components(1, 1), 1.0, 1e-12);
}

TEST(Pca, BadArgumentsAreRefused) {
  Mat x = Mat::Ones(5, 3);
  EXPECT_THROW(fit_pca(x, 0), ConfigError);
  EXPECT_THROW(fit_pca(x, 4), ConfigError);
  EXPECT_THROW(fit_pca(x.topRows(1), 1), DataError);
  x(2, 1) = std::nan("");
  EXPECT_THROW(fit_pca(x, 1), DataError);
  const Pca pca = fit_pca(Mat::Random(5, 3), 2);
  EXPECT_THROW(pca.transform(Mat::Ones(2, 4)), DataError);
}

}  // namespace
}  // namespace dpmcmc
