// The committed full-profile results (experiments/results/NAME-full/results.csv, which the
// README.md beside each quotes) must stay reproducible by the current code: a few cheap cells of
// each spec are run again here and must give their committed rows, every column but
// wall_seconds (non-private cells only: the private ones, see below). These are regression
// values, not independent ones: they catch a change of the
// arithmetic or of the random streams (e.g. in the clipped sums, the batch draws, the planner)
// that would silently make the committed tables unreproducible. A deliberate change of results
// must rerun the affected profiles and commit their new rows.
//
// Numbers are compared to a relative 1e-9, text exactly. The rows were computed on other
// machines, and a metric can differ there in its last bits with the same draws: Eigen chooses
// the blocking of a matrix product (e.g. the sample covariance behind cov_error, a sum over
// every kept draw) from the CPU's cache sizes, which changes the order of the sum. A fresh
// machine gave cov_error 6.636333419063285e-05 against the committed ...288e-05 (a relative
// 5e-16; mmd and mean_error, from the same draws, were equal). A changed random stream or formula
// moves every metric by far more than 1e-9 (other draws give an MMD that differs in its second
// digit), and integer columns (iterations, at most 10^8 here) cannot move by less than one, so the
// comparison still catches what it is for.
#include <gtest/gtest.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiment/experiment_runner.hpp"
#include "experiment/experiment_spec.hpp"
#include "experiment/results_csv.hpp"

namespace dpmcmc {
namespace {

const std::filesystem::path kSource = DPMCMC_SOURCE_DIR;

std::optional<double> as_number(const std::string& text) {
  double x = 0.0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), x);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(x)) {
    return std::nullopt;
  }
  return x;
}

// True when the two cells hold the same text, or finite numbers within a relative 1e-9.
bool same_cell(const std::string& again, const std::string& committed) {
  if (again == committed) return true;
  const auto a = as_number(again);
  const auto c = as_number(committed);
  if (!a || !c) return false;
  return std::abs(*a - *c) <= 1e-9 * std::max(std::abs(*a), std::abs(*c));
}

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
      // Rows committed before the column existed (mmd_exact, batch_size: issue #29) hold NA.
      const bool added_later = column == "mmd_exact" || column == "batch_size";
      if (added_later && it->second->text(column) == "NA") continue;
      EXPECT_PRED2(same_cell, value, it->second->text(column))
          << row.cell_key() << ", column " << column;
    }
  }
  std::filesystem::remove_all(dir);
}

// The comparison itself: last-bit differences pass, anything a changed stream or formula
// would give does not.
TEST(CommittedResults, CellComparisonToleratesOnlyRoundingDifferences) {
  EXPECT_TRUE(same_cell("6.636333419063285e-05", "6.636333419063288e-05"));
  EXPECT_TRUE(same_cell("NA", "NA"));
  EXPECT_TRUE(same_cell("completed", "completed"));
  EXPECT_FALSE(same_cell("0.2603", "0.2604"));
  EXPECT_FALSE(same_cell("6.6363334e-05", "6.6363335e-05"));
  EXPECT_FALSE(same_cell("61473668", "61473669"));
  EXPECT_FALSE(same_cell("NA", "0"));
  EXPECT_FALSE(same_cell("0.5x", "0.5"));
}

// The non-private clipping rule of RWMH and HMC.
TEST(CommittedResults, ClippingStudyCellsReproduce) {
  expect_cells_reproduce("clipping", {"sample/banana-flat-2d/rwmh/clip=0.5/NA/1",
                                      "sample/banana-flat-2d/hmc/clip=0.5/NA/1"});
}

// DP HMC paper's clipping study on the 10-d Gaussian: HMC's gradient comes from the Gaussian's
// sufficient statistics (models/posterior.hpp), and its 90 rows were drawn that way.
TEST(CommittedResults, GaussianClippingStudyHmcCellReproduces) {
  expect_cells_reproduce("dphmc-clipping-gauss", {"sample/gauss-10d/hmc/clip=5/NA/1"});
}

// The reproductions drawn since issue #23 (issue #29) take their noise from the committed key file
// experiments/keys/reproductions.key: their private cells redraw the committed rows exactly.
TEST(CommittedResults, CircleCellsReproduceUnderTheCommittedKey) {
  expect_cells_reproduce("circle",
                         {"sample/circle/dp-penalty/0.5/1", "sample/circle/dp-hmc/0.5/1"});
}

// [ZhangZhang2023]'s mixture, rerun on 2026-11-26 under the committed key: a DP-Fast MH cell (10
// iterations), a DP Barker cell and the non-private TunaMH baseline of repeat 1, which share one
// data set and so one grid reference (about 10 s). Their rows include batch_size.
TEST(CommittedResults, MixtureCellsReproduceUnderTheCommittedKey) {
  expect_cells_reproduce(
      "fastmh", {"sample/mixture-fastmh-2d/fastmh-e05/5/1", "sample/mixture-fastmh-2d/barker/5/1",
                 "sample/mixture-fastmh-2d/tunamh/NA/1"});
}

// Fashion-MNIST's private rows, rerun on 2026-11-28 under the committed key: a DP penalty and a DP
// HMC cell at ε = 1 (76 and 56 iterations on 12 000 rows of 50 features; about 3 s with the data).
TEST(CommittedResults, FashionCellsReproduceUnderTheCommittedKey) {
  expect_cells_reproduce("fashion", {"sample/logistic-fashion-mnist/dp-penalty/1/1",
                                     "sample/logistic-fashion-mnist/dp-hmc/1/1"});
}

// Issue 25's adaptation studies and 29's one-relation labels, drawn under the same key: an adapted
// DP HMC cell (its warmup adapts the step from released values), a hand-tuned DP penalty cell and
// an adapted one of each private walk (plain and guided; the plain hand-tuned repeats 1-10 drew
// fresh keys and cannot rerun), and DP-SGLD with fixed-size batches on the Gaussian. About 3 s.
TEST(CommittedResults, AdaptationAndOneRelationCellsReproduceUnderTheCommittedKey) {
  expect_cells_reproduce("adaptation", {"sample/banana-flat-2d/dp-hmc-adapt/1/1"});
  expect_cells_reproduce(
      "adaptation-targets",
      {"sample/banana-flat-2d/dp-penalty/1/11", "sample/banana-flat-2d/dp-penalty-adapt/1/11",
       "sample/banana-flat-2d/dp-penalty-gwmh-adapt/1/11"});
  expect_cells_reproduce("dphmc", {"sample/gauss-10d/dp-sgld-wor/2/4"});
}

// The thesis' comparison under the papers' repeat design (one data set, paired starts), drawn
// under the committed key: two samplers of repeat 1 and one of repeat 2, which shares repeat 1's
// data and so its reference draws (under a second).
TEST(CommittedResults, PapersDesignCellsReproduceUnderTheCommittedKey) {
  expect_cells_reproduce("algorithms-papers-design", {"sample/banana-flat-2d/dp-penalty/1/1",
                                                      "sample/banana-flat-2d/dp-penalty-gwmh/1/1",
                                                      "sample/banana-flat-2d/dp-penalty-gwmh/1/2"});
}

// The private cells' committed rows were drawn before issue #23, with noise keyed by the public
// seed; the noise now comes from a secret key (core/noise_key.hpp), so they cannot be redrawn bit
// for bit (docs/experiments.md). What must hold instead: under one key file, a private cell
// reproduces exactly, whatever the thread count, and another key gives other noise.
TEST(CommittedResults, PrivateCellsReproduceUnderOneKeyFile) {
  auto spec = load_experiment_spec(kSource / "experiments" / "algorithms.json", "full");
  const auto dir = std::filesystem::temp_directory_path() / "dpmcmc-private-cells";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::vector<std::string> cells = {"sample/banana-flat-2d/dp-penalty/6/1",
                                          "sample/banana-flat-2d/dp-penalty-minibatch/6/1"};
  const auto run = [&](const std::string& name, const std::string& key, int threads) {
    spec.noise_key_file = dir / key;
    ExperimentOptions o;
    o.out_dir = dir / name;
    o.threads = threads;
    o.cell_patterns = cells;
    const ExperimentOutcome out = run_experiment(spec, o);
    EXPECT_EQ(out.ran, cells.size());
    return read_results(dir / name / "results.csv");
  };
  const auto a = run("a", "k1.key", 1), b = run("b", "k1.key", 2), c = run("c", "k2.key", 1);
  ASSERT_EQ(a.rows.size(), cells.size());
  ASSERT_EQ(b.rows.size(), cells.size());
  ASSERT_EQ(c.rows.size(), cells.size());
  // Rows by cell (cells finish in any order on two threads).
  const auto by_key = [](const auto& results) {
    std::map<std::string, const ResultRow*> m;
    for (const auto& r : results.rows) m[r.cell_key()] = &r;
    return m;
  };
  const auto ka = by_key(a), kb = by_key(b), kc = by_key(c);
  bool other_noise = false;  // a chain that never moved has the same draws under any key
  for (const auto& [key, row] : ka) {
    ASSERT_TRUE(kb.count(key) && kc.count(key)) << key;
    for (const auto& [column, value] : row->cells) {
      if (column == "wall_seconds") continue;
      EXPECT_EQ(value, kb.at(key)->text(column)) << key << ", column " << column;
    }
    other_noise = other_noise || row->text("mmd") != kc.at(key)->text("mmd");
  }
  EXPECT_TRUE(other_noise) << "another key gave the same draws in every cell";
  std::filesystem::remove_all(dir);
}

// Every shipped spec loads under each of its profiles, and every committed results directory
// (experiments/results/DIR with a spec.json, whatever DIR is called) belongs to a shipped spec: the
// spec named in its spec.json, under the profile recorded there. Each row is a cell of that grid
// with the cell's spec hash, so a resumed run keeps it (the runner refuses a file whose rows
// another spec computed). Editing a spec in a way that changes its committed cells, or removing a
// spec whose rows are committed, fails here rather than at the next resume.
TEST(CommittedResults, EveryShippedSpecLoadsAndOwnsItsCommittedRows) {
  std::size_t specs = 0, files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kSource / "experiments")) {
    const auto& file = entry.path();
    if (file.extension() != ".json" && file.extension() != ".toml") continue;
    ++specs;
    std::vector<std::string> profiles = {"full"};
    if (file.extension() == ".json") {
      std::ifstream in(file);
      const auto doc = nlohmann::json::parse(in);
      if (doc.contains("profiles")) {
        for (const auto& [name, body] : doc.at("profiles").items()) profiles.push_back(name);
      }
    }
    for (const auto& profile : profiles) {
      EXPECT_NO_THROW(load_experiment_spec(file, profile)) << file << ", profile " << profile;
    }
  }
  for (const auto& entry : std::filesystem::directory_iterator(kSource / "experiments/results")) {
    const auto dir = entry.path();
    if (!std::filesystem::exists(dir / "spec.json")) continue;
    ++files;
    std::ifstream in(dir / "spec.json");
    const auto recorded = nlohmann::json::parse(in);
    const auto name = recorded.at("name").get<std::string>();
    const auto profile = recorded.at("profile").get<std::string>();
    auto spec_file = kSource / "experiments" / (name + ".json");
    if (!std::filesystem::exists(spec_file)) spec_file.replace_extension(".toml");
    ASSERT_TRUE(std::filesystem::exists(spec_file))
        << dir << " holds rows of spec '" << name << "', which experiments/ no longer ships";
    const auto cells = experiment_cells(load_experiment_spec(spec_file, profile));
    std::map<std::string, std::string> hash_of;
    for (const auto& c : cells) hash_of[c.key] = c.spec_hash;
    const auto results = dir / "results.csv";
    ASSERT_TRUE(std::filesystem::exists(results)) << dir << " has a spec.json but no results.csv";
    for (const auto& row : read_results(results).rows) {
      const auto it = hash_of.find(row.cell_key());
      ASSERT_NE(it, hash_of.end()) << results << ":" << row.line << ": " << row.cell_key()
                                   << " is not a cell of " << spec_file << ", profile " << profile;
      EXPECT_EQ(row.text("spec_hash"), it->second)
          << results << ":" << row.line << ": " << row.cell_key();
    }
  }
  EXPECT_GE(specs, 16u);
  EXPECT_GE(files, 16u);  // the 14 NAME-full directories, fastmh-k-sweep and fastmh-penalty-tuning
}

}  // namespace
}  // namespace dpmcmc
