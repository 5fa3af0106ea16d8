// The committed full-profile results (experiments/results/NAME-full/results.csv, which
// docs/experiments.md quotes) must stay reproducible by the current code: a few cheap cells of
// each spec are run again here and must give their committed rows exactly, every column but
// wall_seconds. These are regression values, not independent ones: they catch a change of the
// arithmetic or of the random streams (e.g. in the clipped sums, the batch draws, the planner)
// that would silently make the committed tables unreproducible. A deliberate change of results
// must rerun the affected profiles and commit their new rows.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "run/experiment_runner.hpp"
#include "run/experiment_spec.hpp"
#include "run/results_csv.hpp"

namespace dpmcmc {
namespace {

const std::filesystem::path kSource = DPMCMC_SOURCE_DIR;

void expect_cells_reproduce(const std::string& name, const std::vector<std::string>& cells) {
  const auto spec = load_experiment_spec(kSource / "experiments" / (name + ".json"), "full");
  const auto committed =
      read_results(kSource / "experiments/results" / (name + "-full") / "results.csv");
  std::map<std::string, const ResultRow*> by_key;
  for (const auto& r : committed.rows) by_key[r.cell_key()] = &r;

  const auto dir = std::filesystem::temp_directory_path() / ("dpmcmc-committed-" + name);
  std::filesystem::remove_all(dir);
  ExperimentOptions o;
  o.out_dir = dir;
  o.threads = 1;
  o.cell_patterns = cells;
  const ExperimentOutcome out = run_experiment(spec, o);
  ASSERT_EQ(out.ran, cells.size()) << name;
  const auto again = read_results(dir / "results.csv");
  ASSERT_EQ(again.rows.size(), cells.size()) << name;
  for (const auto& row : again.rows) {
    const auto it = by_key.find(row.cell_key());
    ASSERT_NE(it, by_key.end()) << row.cell_key() << " is not in the committed results";
    for (const auto& [column, value] : row.cells) {
      if (column == "wall_seconds") continue;
      EXPECT_EQ(value, it->second->text(column)) << row.cell_key() << ", column " << column;
    }
  }
  std::filesystem::remove_all(dir);
}

// Full-data releases and their planners (DP penalty, OCU+GWMH, DP HMC), the minibatch penalty
// (numerical PLD plan, batch ratio moments) and DP Barker.
TEST(CommittedResults, AlgorithmComparisonCellsReproduce) {
  expect_cells_reproduce(
      "algorithms",
      {"sample/banana-flat-2d/dp-penalty/1/1", "sample/banana-flat-2d/dp-penalty-gwmh/1/1",
       "sample/banana-flat-2d/dp-hmc/1/1", "sample/banana-flat-2d/dp-penalty-minibatch/1/1",
       "sample/banana-flat-2d/dp-barker/1/1"});
}

// Poisson-subsampled gradient releases (DP-SGLD) with 4 chains sharing one budget.
TEST(CommittedResults, DpHmcPaperCellsReproduce) {
  expect_cells_reproduce("dphmc", {"sample/gauss-10d/dp-sgld/2/1"});
}

// The non-private clipping rule of RWMH and HMC.
TEST(CommittedResults, ClippingStudyCellsReproduce) {
  expect_cells_reproduce("clipping", {"sample/banana-flat-2d/rwmh/clip=0.5/NA/1",
                                      "sample/banana-flat-2d/hmc/clip=0.5/NA/1"});
}

// DP-Fast MH's (ε, δ)-certified releases and the mixture's grid posterior. The full-batch cell
// was computed when dp-fast-mh-full still read the preset's K = 225 for a calibration it never
// uses; it now calibrates with K = 1, and its draws, spend and metrics must not change.
TEST(CommittedResults, FastMhCellsReproduce) {
  expect_cells_reproduce("fastmh", {"sample/mixture-fastmh-2d/fastmh-e05/5/1",
                                    "sample/mixture-fastmh-2d/fastmh-full-e005/5/1"});
}

}  // namespace
}  // namespace dpmcmc
