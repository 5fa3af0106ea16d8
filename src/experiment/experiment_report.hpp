// `dpmcmc report`: from an experiment's results CSV to a self-contained HTML page, the figures
// (PNG and SVG, with their gnuplot scripts and data), the aggregated table as CSV and the wide
// table of medians against ε as Markdown (experiment/summary_table.hpp). Every
// number shown is computed from the CSV (experiment/results_summary.hpp); the configuration shown
// is the spec.json the runner wrote beside the CSV, when present.
#pragma once

#include <filesystem>
#include <vector>

#include "experiment/report_plots.hpp"
#include "experiment/results_summary.hpp"

namespace dpmcmc {

struct ReportOptions {
  std::filesystem::path results;  // RESULTS.csv
  std::filesystem::path out_dir;  // empty: the CSV's directory / "report"
  bool plots = true;              // false: no gnuplot, the page has tables only
  // Another results file whose mmd_exact gives the exact-vs-exact line of the models whose rows
  // record none (add_floor_from); empty: none.
  std::filesystem::path floor;
};

struct ReportOutcome {
  std::filesystem::path out_dir, html, summary_csv, summary_md;
  std::vector<Figure> figures;
  ResultsSummary summary;
};

// NoInputError for a missing CSV (RESULTS or floor), DataError for a malformed one (file, line,
// column), UsageError when the floor file has no value for any model, ConfigError
// when gnuplot is needed and missing, OutputError when the output cannot be written.
ReportOutcome write_experiment_report(const ReportOptions& options);

}  // namespace dpmcmc
