// Draws of a two-parameter posterior against its exact density (`dpmcmc plot`): the contours of
// the highest-density regions holding 50 %, 90 % and 99 % of the exact posterior's mass, with
// each run's draws scattered over them, one panel per run, and the chains' starting points when
// asked. The papers' figures of this kind: [RaisaKoskelaHonkela2021] Figure 2 (densities of the
// best, median and worst run), [Raisa2021short] Figures 5.1 (the 2-d posteriors with the starting
// points) and 6.1 (their contours), [ZhangZhang2023] Figure 2 (the mixture after 10⁴ steps).
//
// The region of mass m is {θ : log p(θ) ≥ L_m}, p the unnormalised posterior; L_m is the (1 − m)
// quantile of log p over exact posterior draws (Θ ~ p puts mass m above it), so no grid limits
// its resolution: a run's draw is in the region when its own log p is at least L_m. Each panel
// gets that fraction: exact draws put 50 %, 90 % and 99 % there; a run that over-represents the
// tails puts less in the 50 % region, one that misses a mode or an arm less in the 99 % region.
// Only the drawing uses a grid (models/grid_posterior.hpp), whose contours gnuplot traces.
#pragma once

#include <array>
#include <filesystem>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "data/dataset.hpp"
#include "diagnostics/histogram_kl.hpp"
#include "experiment/report_plots.hpp"
#include "models/grid_posterior.hpp"
#include "models/model.hpp"

namespace dpmcmc {

// The masses whose highest-density regions are drawn and counted.
inline constexpr std::array<double, 3> kRegionMasses = {0.5, 0.9, 0.99};

// The log densities of draws (rows × 2) under the posterior (unnormalised).
std::vector<double> log_densities(const Model& model, const Dataset& data, const Mat& draws);

// For each mass m, L_m: the (1 − m) quantile of log p over exact draws (their log densities).
// ConfigError for fewer than 100 draws.
std::vector<double> region_levels(std::vector<double> exact_log_density,
                                  const std::vector<double>& masses);

// The fraction of draws (their log densities) at or above each level.
std::vector<double> region_fractions(const std::vector<double>& log_density,
                                     const std::vector<double>& levels);

// The box that holds every row of every set, widened by `margin` times its width on each side.
// ConfigError when the sets hold no finite row.
Box2d enclosing_box(const std::vector<Mat>& sets, double margin);

struct PosteriorPanel {
  std::string label;
  Mat draws;                      // rows × 2, thinned to what is drawn
  std::vector<double> fractions;  // region_fractions of the panel's draws (all of them)
  std::size_t reference = 0;      // the exact posterior (ExactContours) it is drawn against
};

// One exact posterior: its grid (for the drawing) and region levels (log p). Runs on different
// data (an experiment's repeats redraw the data) each have their own.
struct ExactContours {
  const GridPosterior* grid = nullptr;
  std::vector<double> levels;
};

struct PosteriorFigure {
  std::string title;
  std::array<std::string, 2> names;    // the two parameters
  std::vector<PosteriorPanel> panels;  // none: the contours alone (and the starts)
  Mat starts;                          // rows × 2 starting points, on every panel; may be empty
  Box2d view;                          // the axes' ranges (may be wider than the grid's box)
};

// Writes DIR/NAME.gp and its data files (NAME-density[-R].dat per exact posterior,
// NAME-panel-K.dat, NAME-starts.dat); the script renders NAME.png and NAME.svg, each panel over
// the contours of its exact posterior (a panel-less figure over the first). SoftwareError without
// an exact posterior; OutputError when a file cannot be written.
Figure write_posterior_figure(const PosteriorFigure& figure,
                              const std::vector<ExactContours>& exact,
                              const std::filesystem::path& dir, const std::string& name);

}  // namespace dpmcmc
