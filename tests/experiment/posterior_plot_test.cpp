// The exact posterior's regions and the figure of `dpmcmc plot` (experiment/posterior_plot.hpp):
//  - on a Gaussian posterior the region levels are the closed-form log density on the ellipses
//    holding 50 / 90 / 99 % of the mass (Mahalanobis radius² = −2 log(1 − m));
//  - exact draws land in each region as often as its mass says, and draws of a twice-wider
//    distribution as often as the χ²₂ law says;
//  - the box encloses every set with its margin; the script traces the levels and names every
//    data file it reads.
#include "experiment/posterior_plot.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <numbers>
#include <sstream>

#include "../data/temp_dir.hpp"
#include "../models/gauss_2d_case.hpp"
#include "core/error.hpp"
#include "core/rng.hpp"

namespace dpmcmc {
namespace {

// The 2-d Gaussian case of the grid reference's tests, with likelihood correlation 0.6.
test::GaussCase gauss_case() {
  return test::gauss_case(0.6);
}
using test::box_around;

TEST(PosteriorPlot, RegionLevelsAreTheGaussianDensityOnItsEllipses) {
  // log p on the ellipse holding mass m is log p(mean) + log(1 − m): r²/2 ~ Exp(1) for r² the
  // Mahalanobis radius. The level is an empirical quantile of 40 000 exact draws; its sd is
  // √(m / ((1 − m) N)) in log units (0.005, 0.015, 0.05): tolerance 4 sds.
  const auto g = gauss_case();
  Rng rng = make_rng(3, 0, Stream::exact);
  const int n = 40000;
  const Mat exact = g.model.sample_posterior(g.data, n, rng);
  const std::vector<double> masses = {0.5, 0.9, 0.99};
  const auto levels = region_levels(log_densities(g.model, g.data, exact), masses);
  const double peak = log_densities(g.model, g.data, g.exact.mean.transpose())[0];
  for (std::size_t k = 0; k < masses.size(); ++k) {
    const double sd = std::sqrt(masses[k] / ((1.0 - masses[k]) * n));
    EXPECT_NEAR(levels[k] - peak, std::log(1.0 - masses[k]), 4.0 * sd) << masses[k];
  }
  EXPECT_THROW(region_levels(std::vector<double>(99, 0.0), masses), ConfigError);
}

TEST(PosteriorPlot, DrawsFallInEachRegionAsOftenAsItsMassSays) {
  // Fresh exact draws land in each region with probability m (binomial, 4 sds); draws twice as
  // wide around the same mean land in the ellipse of radius² q when their own radius² is below
  // q/4, with probability 1 − (1 − m)^{1/4} (r² ~ χ²₂): 0.159, 0.438, 0.684.
  const auto g = gauss_case();
  Rng rng = make_rng(3, 0, Stream::exact);
  const std::vector<double> masses = {0.5, 0.9, 0.99};
  const auto levels = region_levels(
      log_densities(g.model, g.data, g.model.sample_posterior(g.data, 40000, rng)), masses);
  const int n = 20000;
  const Mat draws = g.model.sample_posterior(g.data, n, rng);
  const auto fractions = region_fractions(log_densities(g.model, g.data, draws), levels);
  Mat wide = draws;
  for (Eigen::Index r = 0; r < wide.rows(); ++r)
    wide.row(r) = g.exact.mean.transpose() + 2.0 * (draws.row(r) - g.exact.mean.transpose());
  const auto wide_fractions = region_fractions(log_densities(g.model, g.data, wide), levels);
  for (std::size_t k = 0; k < masses.size(); ++k) {
    const double m = masses[k];
    EXPECT_NEAR(fractions[k], m, 4.0 * std::sqrt(m * (1.0 - m) / n) + 0.005) << m;
    EXPECT_NEAR(wide_fractions[k], 1.0 - std::pow(1.0 - m, 0.25), 0.02) << m;
  }
}

TEST(PosteriorPlot, TheBoxEnclosesEverySetWithItsMargin) {
  const Mat a = (Mat(2, 2) << 0.0, 1.0, 2.0, 3.0).finished();
  const Mat b = (Mat(2, 2) << -1.0, 2.0, 0.5, std::nan("")).finished();
  const Box2d box = enclosing_box({a, b}, 0.1);
  EXPECT_DOUBLE_EQ(box.lo1, -1.0 - 0.3);
  EXPECT_DOUBLE_EQ(box.hi1, 2.0 + 0.3);
  EXPECT_DOUBLE_EQ(box.lo2, 1.0 - 0.2);
  EXPECT_DOUBLE_EQ(box.hi2, 3.0 + 0.2);
  EXPECT_THROW(enclosing_box({Mat(0, 2)}, 0.1), ConfigError);
}

TEST(PosteriorPlot, TheScriptTracesTheLevelsAndReadsItsFiles) {
  const auto g = gauss_case();
  const GridPosterior grid(g.model, g.data, box_around(g.exact), 40);
  // Levels of log p; the script draws them as cell probabilities exp(L − lse).
  const double lse = grid.log_normaliser() - std::log(grid.width1() * grid.width2());
  const std::vector<double> levels = {lse + std::log(3e-3), lse + std::log(1e-3),
                                      lse + std::log(1e-4)};
  PosteriorFigure figure;
  figure.title = "gauss";
  figure.names = {"mu.1", "mu.2"};
  figure.panels.push_back({"run a", Mat::Zero(3, 2), {0.5, 0.9, 0.99}});
  figure.panels.push_back({"run b", Mat::Ones(2, 2), {0.1, 0.2, 0.3}, 1});
  figure.starts = Mat::Zero(4, 2);
  testing::TempDir dir;
  // Two exact posteriors (runs on different data): panel b is drawn against the second.
  const Figure f =
      write_posterior_figure(figure, {{&grid, levels}, {&grid, levels}}, dir.path(), "post");
  std::ifstream in(f.script);
  std::stringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  const auto at = s.find("levels discrete ");
  ASSERT_NE(at, std::string::npos) << s;
  std::istringstream list(s.substr(at + 16));
  double a = 0, b = 0, c = 0;
  char comma = 0;
  list >> a >> comma >> b >> comma >> c;
  EXPECT_NEAR(a, 3e-3, 1e-12);
  EXPECT_NEAR(b, 1e-3, 1e-12);
  EXPECT_NEAR(c, 1e-4, 1e-12);
  for (const char* file :
       {"post-density-1.dat", "post-density-2.dat", "post-contours-1.dat", "post-contours-2.dat",
        "post-panel-1.dat", "post-panel-2.dat", "post-starts.dat", "post.svg", "post.png"})
    EXPECT_NE(s.find(file), std::string::npos) << file;
  for (const char* file :
       {"post-density-1.dat", "post-density-2.dat", "post-panel-1.dat", "post-starts.dat"})
    EXPECT_TRUE(std::filesystem::exists(dir.path() / file)) << file;
  // Each panel's plot line reads its own posterior's contours.
  const auto panel_b = s.find("'run b'");
  ASSERT_NE(panel_b, std::string::npos);
  const std::string b_plot = s.substr(panel_b, s.find("unset multiplot", panel_b) - panel_b);
  EXPECT_NE(b_plot.find("post-contours-2.dat"), std::string::npos) << b_plot;
  EXPECT_EQ(b_plot.find("post-contours-1.dat"), std::string::npos) << b_plot;
  EXPECT_NE(s.find("50 / 90 / 99 % in the regions"), std::string::npos);
  EXPECT_NE(s.find("(10 / 20 / 30 % in the regions)"), std::string::npos) << s;
}

}  // namespace
}  // namespace dpmcmc
