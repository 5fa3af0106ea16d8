// The report's figures, drawn by gnuplot (io/gnuplot.hpp) from the aggregated results: for each
// figure a data file per curve and one script that renders the same multiplot to PNG and SVG.
//   accuracy    median metric with its interquartile band vs ε, one curve per sampler, one
//               panel per model; non-private baselines as dashed horizontal lines
//   clipping    median log-likelihood(-ratio) and gradient clip fractions vs ε
//   sweep       (specs with a sweep) median metric with its interquartile band vs the swept
//               value (log scale when positive), one curve per swept sampler (and ε), one panel
//               per model; swept groups are left out of accuracy and clipping
//   sweep-clipped  the same metric vs the median clipped fraction of log-likelihood ratios
//               ([Raisa2021] Figure 6.2, bottom row)
//   sym-kl, sweep-sym-kl  the accuracy and sweep figures for the sym_kl column (lower is better),
//               drawn when some rows have it
//   accounting  iterations allowed vs ε (log scale), one curve per accountant, one panel per
//               (model, sampler template)
// A figure without data (e.g. no clip columns) is not drawn.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "experiment/results_summary.hpp"

namespace dpmcmc {

struct Figure {
  std::string name;   // file stem: accuracy, clipping, accounting
  std::string title;  // one line for the page
  std::filesystem::path script, png, svg;
};

// A gnuplot script that renders `body` (the plot commands) once to NAME.png (cairo) and once to
// NAME.svg, width × height pixels; its first line says that `by` wrote it and how to rerun it.
std::string two_format_script(const std::string& by, const std::string& name,
                              const std::string& title, std::size_t width, std::size_t height,
                              const std::string& body);

// Writes DIR/NAME.gp and its .dat files for every figure with data; when `render`, also runs
// gnuplot (require_gnuplot first) to make DIR/NAME.png and DIR/NAME.svg.
std::vector<Figure> write_report_plots(const ResultsSummary& summary,
                                       const std::filesystem::path& dir, bool render);

}  // namespace dpmcmc
