#include "experiment/posterior_plot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "core/error.hpp"
#include "data/atomic_file.hpp"
#include "io/gnuplot.hpp"
#include "models/posterior.hpp"

namespace dpmcmc {
namespace {

// Colour-blind-safe (Okabe and Ito), as the report's figures.
const std::vector<std::string> kPanelColours = {"#0072B2", "#D55E00", "#009E73",
                                                "#CC79A7", "#E69F00", "#56B4E9"};

std::string rows_text(const Mat& points) {
  std::string out;
  for (Eigen::Index r = 0; r < points.rows(); ++r)
    out += fmt::format("{} {}\n", points(r, 0), points(r, 1));
  return out;
}

// The grid as gnuplot's splot reads a matrix of points: one block per θ1 cell, blank-line
// separated, cell centres and probabilities.
std::string grid_text(const GridPosterior& grid) {
  const Box2d& b = grid.box();
  const Mat& p = grid.probabilities();
  std::string out;
  for (Eigen::Index i = 0; i < p.rows(); ++i) {
    const double x = b.lo1 + (static_cast<double>(i) + 0.5) * grid.width1();
    for (Eigen::Index j = 0; j < p.cols(); ++j)
      out += fmt::format("{} {} {}\n", x, b.lo2 + (static_cast<double>(j) + 0.5) * grid.width2(),
                         p(i, j));
    out += "\n";
  }
  return out;
}

}  // namespace

std::vector<double> log_densities(const Model& model, const Dataset& data, const Mat& draws) {
  const Posterior posterior(model, data);
  std::vector<double> out(static_cast<std::size_t>(draws.rows()));
  for (Eigen::Index r = 0; r < draws.rows(); ++r)
    out[static_cast<std::size_t>(r)] = posterior.log_density(draws.row(r).transpose());
  return out;
}

std::vector<double> region_levels(std::vector<double> exact_log_density,
                                  const std::vector<double>& masses) {
  if (exact_log_density.size() < 100)
    throw ConfigError(
        fmt::format("plot: {} exact draws are too few to place the regions (100 "
                    "at least)",
                    exact_log_density.size()));
  std::sort(exact_log_density.begin(), exact_log_density.end());
  const auto n = static_cast<double>(exact_log_density.size());
  std::vector<double> levels;
  for (const double m : masses) {
    // The largest level with at least m·n of the draws at or above it: index n − ⌈m·n⌉ of the
    // ascending order (the 1e-9 keeps 0.9 · 10000 from rounding up to 9001 draws).
    const double keep = std::ceil(m * n - 1e-9);
    const auto below = static_cast<std::size_t>(std::max(0.0, n - keep));
    levels.push_back(exact_log_density[std::min(below, exact_log_density.size() - 1)]);
  }
  return levels;
}

std::vector<double> region_fractions(const std::vector<double>& log_density,
                                     const std::vector<double>& levels) {
  std::vector<double> inside(levels.size(), 0.0);
  for (const double lp : log_density)
    for (std::size_t k = 0; k < levels.size(); ++k) inside[k] += lp >= levels[k] ? 1.0 : 0.0;
  for (double& f : inside) f /= std::max<double>(1.0, static_cast<double>(log_density.size()));
  return inside;
}

Box2d enclosing_box(const std::vector<Mat>& sets, double margin) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  Box2d box{inf, -inf, inf, -inf};
  for (const Mat& s : sets) {
    for (Eigen::Index r = 0; r < s.rows(); ++r) {
      if (!std::isfinite(s(r, 0)) || !std::isfinite(s(r, 1))) continue;
      box.lo1 = std::min(box.lo1, s(r, 0));
      box.hi1 = std::max(box.hi1, s(r, 0));
      box.lo2 = std::min(box.lo2, s(r, 1));
      box.hi2 = std::max(box.hi2, s(r, 1));
    }
  }
  if (!(box.lo1 <= box.hi1))
    throw ConfigError("plot: no finite point to size the plot by; give --box");
  // A degenerate extent (one point) still gets a box.
  const double w1 = std::max(box.hi1 - box.lo1, 1e-3 * std::max(1.0, std::abs(box.lo1)));
  const double w2 = std::max(box.hi2 - box.lo2, 1e-3 * std::max(1.0, std::abs(box.lo2)));
  return {box.lo1 - margin * w1, box.hi1 + margin * w1, box.lo2 - margin * w2,
          box.hi2 + margin * w2};
}

Figure write_posterior_figure(const PosteriorFigure& figure,
                              const std::vector<ExactContours>& exact,
                              const std::filesystem::path& dir, const std::string& name) {
  if (exact.empty()) throw SoftwareError("write_posterior_figure: no exact posterior to draw");
  if (figure.starts.rows() > 0)
    write_file_atomic(dir / (name + "-starts.dat"), rows_text(figure.starts));
  // gnuplot traces the contours of each grid into a table once; the panels draw those tables.
  std::string body;
  std::vector<std::string> contour_files;
  for (std::size_t r = 0; r < exact.size(); ++r) {
    const GridPosterior& grid = *exact[r].grid;
    const std::string suffix = exact.size() == 1 ? std::string() : fmt::format("-{}", r + 1);
    const std::string density = name + "-density" + suffix + ".dat";
    contour_files.push_back(name + "-contours" + suffix + ".dat");
    write_file_atomic(dir / density, grid_text(grid));
    // The grid holds cell probabilities exp(log p − lse), lse = log_normaliser − log(h1 h2).
    const double lse = grid.log_normaliser() - std::log(grid.width1() * grid.width2());
    std::string level_list;
    for (std::size_t k = 0; k < exact[r].levels.size(); ++k)
      level_list += fmt::format("{}{}", k ? "," : "", std::exp(exact[r].levels[k] - lse));
    body += fmt::format(
        "set contour base\nunset surface\nset view map\nset cntrparam levels discrete {}\n"
        "set table {}\nsplot {} using 1:2:3 with lines\nunset table\nunset contour\n",
        level_list, gnuplot_quote(contour_files.back()), gnuplot_quote(density));
  }
  const std::size_t panels = std::max<std::size_t>(figure.panels.size(), 1);
  const std::size_t cols = std::min<std::size_t>(panels, 3);
  const std::size_t rows = (panels + cols - 1) / cols;
  const Box2d& b = figure.view;
  body += fmt::format(
      "set multiplot layout {},{} title {} font ',9'\nset xrange [{}:{}]\nset yrange [{}:{}]\n"
      "set xlabel {}\nset ylabel {}\nset key below horizontal font ',8'\n",
      rows, cols, gnuplot_quote(figure.title), b.lo1, b.hi1, b.lo2, b.hi2,
      gnuplot_quote(figure.names[0]), gnuplot_quote(figure.names[1]));
  const auto exact_plot = [&](std::size_t r) {
    return fmt::format(
        "{} using 1:2 with lines lc rgb '#000000' lw 1.5 title 'exact: 50 / 90 / 99 % regions'",
        gnuplot_quote(contour_files.at(r)));
  };
  const std::string starts =
      figure.starts.rows() > 0
          ? fmt::format(
                ", \\\n     {} using 1:2 with points pt 7 ps 0.6 lc rgb '#000000' "
                "title 'starting points'",
                gnuplot_quote(name + "-starts.dat"))
          : std::string();
  if (figure.panels.empty()) {
    body += fmt::format("set title ''\nplot {}{}\n", exact_plot(0), starts);
  }
  for (std::size_t k = 0; k < figure.panels.size(); ++k) {
    const PosteriorPanel& p = figure.panels[k];
    const std::string file = fmt::format("{}-panel-{}.dat", name, k + 1);
    write_file_atomic(dir / file, rows_text(p.draws));
    std::string in_regions;
    for (std::size_t m = 0; m < p.fractions.size() && m < kRegionMasses.size(); ++m)
      in_regions += fmt::format("{}{:.0f}", m ? " / " : "", 100.0 * p.fractions[m]);
    body += fmt::format(
        "set title {}\nplot {} using 1:2 with points pt 7 ps 0.25 lc rgb '{}' title {}, \\\n"
        "     {}{}\n",
        gnuplot_quote(p.label), gnuplot_quote(file),
        "#60" + kPanelColours[k % kPanelColours.size()].substr(1),  // translucent
        gnuplot_quote(fmt::format("draws ({} % in the regions)", in_regions)),
        exact_plot(p.reference), starts);
  }
  body += "unset multiplot\n";
  Figure f{name, figure.title, dir / (name + ".gp"), dir / (name + ".png"), dir / (name + ".svg")};
  write_file_atomic(f.script, two_format_script("dpmcmc plot", name, figure.title, 460 * cols,
                                                380 * rows + 40, body));
  return f;
}

}  // namespace dpmcmc
