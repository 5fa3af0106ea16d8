#include "models/adaptive_grid.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "models/gaussian.hpp"

namespace dpmcmc {
namespace {

// A 2-d Gaussian posterior (closed form: GaussianModel::posterior_moments) inside a support box
// [−20, 20]² far wider than it. The kept box must hold the mass and be much smaller than the
// support; the fine grid's moments must be those of the closed form.
TEST(AdaptiveGrid, KeepsTheMassAndMatchesTheClosedForm) {
  Mat cov(2, 2);
  cov << 1.0, 0.3, 0.3, 2.0;
  const GaussianModel model(Vec::Zero(2), 100.0 * Mat::Identity(2, 2), cov, 1.0);
  Rng rng = make_rng(31, 0, Stream::data);
  Vec truth(2);
  truth << 1.0, -2.0;
  const Dataset data = model.simulate(truth, 25, rng);
  const auto exact = model.posterior_moments(data);
  const double s1 = std::sqrt(exact.cov(0, 0)), s2 = std::sqrt(exact.cov(1, 1));
  const Box2d support{-20, 20, -20, 20};
  const GridPosterior coarse(model, data, support, 32);
  const Box2d kept = mass_box(coarse, support, 1e-10, 2);
  // A Gaussian cell above 1e-10 lies within ≈ √(2 log(1e10 · cell/σ²)) ≈ 6.5 sd of the mean;
  // the kept box must reach at least 5 sd on every side (mass beyond: < 3e-7), and with the
  // coarse width 1.25 and two cells of margin it cannot exceed 6.5 sd + 3 cells.
  EXPECT_LT(kept.lo1, exact.mean(0) - 5 * s1);
  EXPECT_GT(kept.hi1, exact.mean(0) + 5 * s1);
  EXPECT_LT(kept.lo2, exact.mean(1) - 5 * s2);
  EXPECT_GT(kept.hi2, exact.mean(1) + 5 * s2);
  EXPECT_LT(kept.hi1 - kept.lo1, 2 * (6.5 * s1 + 3 * 1.25));
  EXPECT_LT(kept.hi2 - kept.lo2, 2 * (6.5 * s2 + 3 * 1.25));
  const GridPosterior fine = adaptive_grid_posterior(model, data, support);
  EXPECT_EQ(fine.box().lo1, kept.lo1);
  EXPECT_EQ(fine.cells(), 100u);
  // Moments: the midpoint rule is spectrally accurate for a Gaussian that is negligible at the
  // edges (grid_posterior_test); here the edges cut ≥ 5 sd, so allow 1e-4 sd.
  EXPECT_NEAR(fine.mean()(0), exact.mean(0), 1e-4 * s1);
  EXPECT_NEAR(fine.mean()(1), exact.mean(1), 1e-4 * s2);
  const double h1 = fine.width1();
  EXPECT_NEAR(fine.covariance()(0, 0), exact.cov(0, 0) + h1 * h1 / 12, 1e-3 * exact.cov(0, 0));
}

TEST(AdaptiveGrid, RejectsABadTail) {
  const GaussianModel model(Vec::Zero(2), Mat::Identity(2, 2), Mat::Identity(2, 2), 1.0);
  Rng rng = make_rng(32, 0, Stream::data);
  const Dataset data = model.simulate(Vec::Zero(2), 5, rng);
  const Box2d support{-5, 5, -5, 5};
  const GridPosterior coarse(model, data, support, 8);
  EXPECT_THROW(mass_box(coarse, support, 0.0, 2), ConfigError);
  EXPECT_THROW(mass_box(coarse, support, 1.0, 2), ConfigError);
  // No cell exceeds a tail of 0.9: the whole grid is kept.
  const Box2d all = mass_box(coarse, support, 0.9, 2);
  EXPECT_EQ(all.lo1, -5.0);
  EXPECT_EQ(all.hi2, 5.0);
}

}  // namespace
}  // namespace dpmcmc
