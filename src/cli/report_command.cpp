// `dpmcmc report RESULTS.csv`: aggregate an experiment's results into an HTML page with plots
// (gnuplot), a summary CSV and the plot scripts (experiment/experiment_report.hpp).
#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "experiment/experiment_report.hpp"

namespace dpmcmc::cli {

void add_report_command(CLI::App& app) {
  auto options = std::make_shared<ReportOptions>();
  auto results = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  auto no_plots = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand(
      "report", "Aggregate an experiment's results.csv into an HTML report with plots");
  cmd->add_option("RESULTS", *results, "results.csv written by `dpmcmc experiment`")->required();
  cmd->add_option("--out", *out, "Output directory (default: beside the CSV, in report/)");
  auto floor = std::make_shared<std::string>();
  cmd->add_option("--floor", *floor,
                  "Another results.csv whose mmd_exact column gives each model's exact-vs-exact "
                  "MMD (the black line of the figures) where RESULTS records none, e.g. "
                  "experiments/results/exact-baselines-full/results.csv");
  cmd->add_flag("--no-plots", *no_plots,
                "Do not run gnuplot (the scripts and data are still written)");
  cmd->footer(
      "Output: OUT/report.html (self-contained), OUT/summary.csv (medians and quartiles per "
      "model, sampler and epsilon), OUT/summary.md (Markdown table: median metric per model and "
      "sampler against epsilon), OUT/plots/*.png|svg|gp|dat. Needs gnuplot "
      "(gnuplot-nox) unless --no-plots.");
  cmd->callback([=] {
    options->results = *results;
    options->out_dir = *out;
    options->plots = !*no_plots;
    options->floor = *floor;
    const ReportOutcome r = write_experiment_report(*options);
    fmt::print("dpmcmc report: {} rows, {} sampling groups, {} accounting rows\n", r.summary.rows,
               r.summary.sample.size(), r.summary.account.size());
    for (const auto& line : reading_of(r.summary)) fmt::print("  {}\n", line);
    for (const auto& f : r.figures) {
      fmt::print("figure: {}{}\n", f.script.string(),
                 options->plots ? fmt::format(" -> {}, {}", f.png.filename().string(),
                                              f.svg.filename().string())
                                : std::string(" (not rendered)"));
    }
    fmt::print("page:    {}\nsummary: {}\ntable:   {}\n", r.html.string(), r.summary_csv.string(),
               r.summary_md.string());
  });
}

}  // namespace dpmcmc::cli
