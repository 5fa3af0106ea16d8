// `dpmcmc plot --model PRESET [RUN…]`: the draws of runs of a two-parameter preset against the
// contours of its exact posterior (experiment/posterior_plot.hpp), and how much of each run's
// draws lies in the exact 50 / 90 / 99 % regions.
//
// Only presets: their rows are public (simulated from --data-seed, or a CSV the caller gives),
// so the exact density drawn from them may be published. The exact posterior of private rows is
// not a DP output, and a regression family on a user's data is refused.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/commands.hpp"
#include "cli/preset_rows.hpp"
#include "core/error.hpp"
#include "core/rng.hpp"
#include "data/file_bytes.hpp"
#include "experiment/posterior_plot.hpp"
#include "io/chain_files.hpp"
#include "io/gnuplot.hpp"
#include "io/stan_csv_reader.hpp"
#include "models/presets.hpp"
#include "run/start_points.hpp"

namespace dpmcmc::cli {
namespace {

namespace fs = std::filesystem;

// The chain files of a run (io/chain_files.hpp), read.
std::vector<StanCsv> run_files(const std::string& run) {
  std::vector<StanCsv> files;
  for (const auto& p : run_chain_files(run)) files.push_back(read_stan_csv(p));
  return files;
}

// At most `points` rows, evenly spaced.
Mat thinned(const Mat& draws, std::size_t points) {
  const auto n = static_cast<std::size_t>(draws.rows());
  if (n <= points) return draws;
  Mat out(static_cast<Eigen::Index>(points), draws.cols());
  for (std::size_t k = 0; k < points; ++k)
    out.row(static_cast<Eigen::Index>(k)) = draws.row(static_cast<Eigen::Index>(k * n / points));
  return out;
}

// Where a run's rows came from: a CSV file, or the preset's synthetic data of a seed and size.
struct RowsSource {
  std::string file;
  std::uint64_t seed = 1;
  std::size_t n = 0;
  bool operator==(const RowsSource&) const = default;
};

struct Reference {
  RowsSource rows;
  Dataset data;
  std::vector<Mat> runs;  // the thinned draws drawn against it
  std::unique_ptr<GridPosterior> grid;
  std::vector<double> levels;
};

// The rows of a run directory from its report.json (an experiment's repeats each simulate their
// own): its data seed and rows when they were the preset's synthetic data. `given` (the
// command's --data, --data-seed, --n) otherwise, and always when --data is given. UsageError for
// a run of another model, or one fitted to a file when --data is not given.
RowsSource rows_of_run(const std::string& run, const std::string& preset, const RowsSource& given) {
  std::error_code ec;
  // A run directory, or one chain file of it.
  const fs::path report =
      (fs::is_directory(run, ec) ? fs::path(run) : fs::path(run).parent_path()) / "report.json";
  if (!fs::is_regular_file(report, ec)) return given;
  nlohmann::json r;
  try {
    r = nlohmann::json::parse(read_file_bytes(report));
    const std::string model = r.at("model").at("preset").get<std::string>();
    if (model != preset)
      throw UsageError(
          fmt::format("{}: a run of model '{}', not of --model {}", run, model, preset));
    const std::string source = r.at("data").at("source").get<std::string>();
    const bool from_file = !source.starts_with("simulated");
    const bool private_run = r.contains("privacy") && r["privacy"].value("private", true);
    if (from_file && private_run)
      throw UsageError(fmt::format(
          "{}: a private run on rows from a file; the exact posterior of those rows is not a DP "
          "release, and plot draws it only for public rows (a preset's synthetic data)",
          run));
    if (!given.file.empty()) return given;
    if (from_file)
      throw UsageError(fmt::format("{}: fitted to {}; give that file with --data", run, source));
    return {"", r.at("run").at("data_seed").get<std::uint64_t>(),
            r.at("data").at("rows").get<std::size_t>()};
  } catch (const nlohmann::json::exception& e) {
    throw DataError(fmt::format("{}: not a dpmcmc run report ({})", report.string(), e.what()));
  }
}

}  // namespace

void add_plot_command(CLI::App& app) {
  struct Args {
    std::string model, data, title, out = "out/plot", name = "posterior";
    std::vector<std::string> runs, labels;
    std::vector<double> box;
    std::uint64_t data_seed = 1, seed = 1;
    std::size_t n = 0, cells = 300, points = 2000, region_draws = 20000, starts = 0,
                exact_draws = 10000;
    unsigned threads = 0;
    bool no_plots = false;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "plot", "Draws of a 2-parameter preset against the contours of its exact posterior");
  cmd->add_option("runs", a->runs,
                  "Runs to draw, one panel each: a run directory (its chain-*.csv) or a Stan CSV "
                  "file; none: the exact posterior's contours alone");
  cmd->add_option("--model", a->model, "Model preset with two parameters (see `dpmcmc models`)")
      ->required();
  cmd->add_option("--label", a->labels, "Panel titles, one per run (default: the run as given)");
  cmd->add_option("--data", a->data,
                  "CSV data the posterior is conditioned on (default: the "
                  "preset's synthetic data)");
  cmd->add_option("--data-seed", a->data_seed, "Seed of the preset's synthetic data")
      ->capture_default_str();
  cmd->add_option("--n", a->n, "Rows of synthetic data (default: the preset's)");
  cmd->add_option("--starts", a->starts,
                  "Also draw the starting points of this many chains, by the preset's start "
                  "rule with --seed (as `sample --seed` places them)")
      ->capture_default_str();
  cmd->add_option("--seed", a->seed, "With --starts: the run seed of the starting points")
      ->capture_default_str();
  cmd->add_option("--box", a->box,
                  "Plot and grid box lo1,hi1,lo2,hi2 (default: around exact posterior draws, "
                  "the runs' draws and the starts)")
      ->delimiter(',')
      ->expected(4);
  cmd->add_option("--region-draws", a->region_draws,
                  "Draws per run whose regions are counted at most (evenly thinned: each costs "
                  "a pass over the rows)")
      ->capture_default_str()
      ->check(CLI::Range(static_cast<std::size_t>(100), static_cast<std::size_t>(100000000)));
  cmd->add_option("--exact-draws", a->exact_draws,
                  "Exact posterior draws that place the regions (their log-density quantiles)")
      ->capture_default_str()
      ->check(CLI::Range(static_cast<std::size_t>(100), static_cast<std::size_t>(10000000)));
  cmd->add_option("--cells", a->cells, "Grid cells per axis of the drawn contours")
      ->capture_default_str()
      ->check(CLI::Range(static_cast<std::size_t>(20), static_cast<std::size_t>(2000)));
  cmd->add_option("--points", a->points, "Draws shown per panel at most (evenly thinned)")
      ->capture_default_str()
      ->check(CLI::Range(static_cast<std::size_t>(1), static_cast<std::size_t>(1000000)));
  cmd->add_option("--title", a->title, "Figure title (default: the preset's name)");
  cmd->add_option("--out", a->out, "Output directory")->capture_default_str();
  cmd->add_option("--name", a->name, "File stem of the figure")->capture_default_str();
  cmd->add_option("--threads", a->threads, "Threads for the grid (0: all)")->capture_default_str();
  cmd->add_flag("--no-plots", a->no_plots,
                "Do not run gnuplot (the script and data are still written)");
  cmd->footer(
      "Output: OUT/NAME.gp and its data files, rendered by gnuplot (gnuplot-nox) to NAME.png and "
      "NAME.svg; stdout gives, per run, the fraction of its draws (at most --region-draws, evenly "
      "spaced) inside the exact posterior's "
      "50 / 90 / 99 % highest-density regions (exact draws: 0.50 / 0.90 / 0.99). Presets only: "
      "their rows are public.");
  cmd->callback([a] {
    const Preset& preset = find_preset(a->model);
    const auto model = preset.make_model();
    if (model->dim() != 2)
      throw UsageError(
          fmt::format("--model {}: has {} parameters; plot draws 2-parameter "
                      "posteriors",
                      preset.name, model->dim()));
    if (!a->labels.empty() && a->labels.size() != a->runs.size())
      throw UsageError(fmt::format("--label: {} given for {} runs; give one per run or none",
                                   a->labels.size(), a->runs.size()));
    std::optional<Box2d> box;
    if (!a->box.empty()) {
      box = Box2d{a->box[0], a->box[1], a->box[2], a->box[3]};
      if (!(std::isfinite(box->lo1) && std::isfinite(box->hi1) && std::isfinite(box->lo2) &&
            std::isfinite(box->hi2) && box->lo1 < box->hi1 && box->lo2 < box->hi2))
        throw UsageError(fmt::format("--box {},{},{},{}: expected finite lo1 < hi1 and lo2 < hi2",
                                     box->lo1, box->hi1, box->lo2, box->hi2));
    }
    if (!a->no_plots) require_gnuplot();
    const auto names = model->param_names();

    // The exact posteriors: one per data set the runs were fitted to.
    std::vector<Reference> refs;
    const auto reference_of = [&](const RowsSource& rows) {
      for (std::size_t r = 0; r < refs.size(); ++r)
        if (refs[r].rows == rows) return r;
      refs.push_back({rows, preset_rows(preset, *model, rows.file, rows.seed, rows.n), {}, {}, {}});
      return refs.size() - 1;
    };
    const RowsSource given{a->data, a->data_seed, a->n};
    PosteriorFigure figure;
    figure.title = a->title.empty() ? preset.name : a->title;
    figure.names = {names[0], names[1]};
    std::vector<Mat> all_draws;
    for (std::size_t k = 0; k < a->runs.size(); ++k) {
      const std::size_t r = reference_of(rows_of_run(a->runs[k], preset.name, given));
      const Mat draws = pooled_columns(run_files(a->runs[k]), names);
      if (draws.rows() == 0)
        throw DataError(fmt::format("{}: no sampling draws to plot", a->runs[k]));
      const std::string label = a->labels.empty() ? a->runs[k] : a->labels[k];
      figure.panels.push_back({label, thinned(draws, a->points), {}, r});
      refs[r].runs.push_back(figure.panels.back().draws);
      all_draws.push_back(thinned(draws, a->region_draws));
    }
    if (refs.empty()) reference_of(given);
    std::vector<Mat> extents;
    for (const auto& p : figure.panels) extents.push_back(p.draws);
    if (a->starts > 0) {  // as `sample` places them on the first run's data
      InitConfig init;
      init.centre = preset.start_centre;
      init.spread = preset.start_sd
                        ? *preset.start_sd
                        : start_deviation(preset, *model, refs[0].data, refs[0].rows.seed);
      figure.starts.resize(static_cast<Eigen::Index>(a->starts), 2);
      for (std::size_t c = 0; c < a->starts; ++c)
        figure.starts.row(static_cast<Eigen::Index>(c)) =
            starting_point(init, 2, a->seed, static_cast<int>(c), static_cast<int>(c)).transpose();
      extents.push_back(figure.starts);
    }
    // Each grid covers its exact posterior (its draws, widened), so that its cells resolve the
    // contours however far the runs or the starts stray; the axes cover everything.
    for (auto& ref : refs) {
      std::optional<Mat> exact;
      if (model->has_exact_posterior()) {
        Rng exact_rng = make_rng(ref.rows.seed, 0, Stream::exact);
        exact = model->sample_posterior(ref.data, a->exact_draws, exact_rng);
        extents.push_back(*exact);
      }
      if (!box && !exact && ref.runs.empty())
        throw UsageError(
            fmt::format("--box: preset '{}' has no exact sampler to size the plot "
                        "by and no run was given; give --box lo1,hi1,lo2,hi2",
                        preset.name));
      const Box2d grid_box = box     ? *box
                             : exact ? enclosing_box({*exact}, 0.15)
                                     : enclosing_box(ref.runs, 0.1);
      ref.grid = std::make_unique<GridPosterior>(*model, ref.data, grid_box, a->cells, a->threads);
      if (!exact) {  // the grid's density is then the reference (as for the mixture's accuracy)
        Rng exact_rng = make_rng(ref.rows.seed, 0, Stream::exact);
        exact = ref.grid->sample(a->exact_draws, exact_rng);
      }
      const std::vector<double> masses(kRegionMasses.begin(), kRegionMasses.end());
      ref.levels = region_levels(log_densities(*model, ref.data, *exact), masses);
    }
    figure.view = box ? *box : enclosing_box(extents, 0.05);
    std::vector<ExactContours> contours;
    for (const auto& ref : refs) contours.push_back({ref.grid.get(), ref.levels});
    for (std::size_t k = 0; k < figure.panels.size(); ++k) {
      const Reference& ref = refs[figure.panels[k].reference];
      figure.panels[k].fractions =
          region_fractions(log_densities(*model, ref.data, all_draws[k]), ref.levels);
    }

    fs::create_directories(a->out);
    const Figure f = write_posterior_figure(figure, contours, a->out, a->name);
    if (!a->no_plots) run_gnuplot(f.script);
    fmt::print("plot: {}, {} exact posterior(s) on {}x{} grids\n", preset.name, refs.size(),
               a->cells, a->cells);
    for (const auto& ref : refs) {
      if (ref.grid->edge_mass() > 1e-4)
        fmt::print(
            "  mass {:.2g} on the edge of a grid: its drawn contours may be cut; widen "
            "--box\n",
            ref.grid->edge_mass());
    }
    fmt::print("fraction of draws in the exact 50 / 90 / 99 % regions:\n");
    for (const auto& p : figure.panels)
      fmt::print("  {:<40} {:.3f} / {:.3f} / {:.3f}\n", p.label, p.fractions[0], p.fractions[1],
                 p.fractions[2]);
    fmt::print("figure: {}{}\n", f.script.string(),
               a->no_plots ? std::string(" (not rendered)")
                           : fmt::format(" -> {}, {}", f.png.string(), f.svg.string()));
  });
}

}  // namespace dpmcmc::cli
