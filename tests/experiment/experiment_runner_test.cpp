// The experiment runner on a tiny spec: the CSV schema, one row per cell, determinism whatever
// the thread count, resume after a deleted row, an interruption or a cut-short write, refusal to
// mix specs, and the accounting kind against the closed-form zCDP count.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "../error_message.hpp"
#include "../results_text.hpp"
#include "core/error.hpp"
#include "experiment/experiment_runner.hpp"
#include "experiment/results_summary.hpp"
#include "experiment/summary_table.hpp"
#include "io/stan_csv_reader.hpp"
#include "test_noise.hpp"

namespace dpmcmc {
namespace {

using nlohmann::json;

std::filesystem::path fresh_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("dpmcmc-exp-test-" + name);
  std::filesystem::remove_all(dir);
  return dir;
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// 2 ε × 2 repeats of dp-penalty plus 2 repeats of a non-private rwmh baseline: 6 cells.
ExperimentSpec tiny_spec(std::uint64_t seed = 7, bool paired_starts = false) {
  json d = {{"name", "tiny"},
            {"models", {"banana-tempered-2d"}},
            {"samplers", {"dp-penalty", "rwmh"}},
            {"epsilons", {2, 4}},
            {"repeats", 2},
            {"chains", 2},
            {"n", 2000},
            {"iterations", {{"warmup", 40}, {"samples", 40}}},
            {"reference_draws", 200},
            {"seed", seed}};
  if (paired_starts) d["paired_starts"] = true;
  d["noise_key_file"] = test_noise_key_file().string();  // reproducible private cells
  return parse_experiment_spec(d, "tiny.json", "full");
}

using test::message_of;
using test::without_wall_seconds;

ExperimentOutcome run(const ExperimentSpec& spec, const std::filesystem::path& dir, int threads,
                      std::size_t* counted = nullptr, const std::atomic<bool>* stop = nullptr,
                      std::atomic<bool>* stop_after_first = nullptr) {
  ExperimentOptions o;
  o.out_dir = dir;
  o.threads = threads;
  o.stop = stop;
  o.on_cell = [=](const ExperimentCell&, const std::vector<ResultRow>&, std::size_t, std::size_t) {
    if (counted) ++*counted;
    if (stop_after_first) *stop_after_first = true;
  };
  return run_experiment(spec, o);
}

TEST(ExperimentRunner, SeedsAreDerivedFromSeedAndKey) {
  EXPECT_EQ(derive_seed(7, "cell:a"), derive_seed(7, "cell:a"));
  EXPECT_NE(derive_seed(7, "cell:a"), derive_seed(7, "cell:b"));
  EXPECT_NE(derive_seed(7, "cell:a"), derive_seed(8, "cell:a"));
  const auto cells = experiment_cells(tiny_spec());
  ASSERT_EQ(cells.size(), 6u);
  std::set<std::uint64_t> seeds;
  for (const auto& c : cells) seeds.insert(c.seed);
  EXPECT_EQ(seeds.size(), 6u);
  EXPECT_EQ(cells[0].key, "sample/banana-tempered-2d/dp-penalty/2/1");
  EXPECT_EQ(cells[4].key, "sample/banana-tempered-2d/rwmh/NA/1");
  // Paired comparison: the same data for every sampler and ε of a repeat.
  EXPECT_EQ(cells[0].data_seed, cells[2].data_seed);
  EXPECT_EQ(cells[0].data_seed, cells[4].data_seed);
  EXPECT_NE(cells[0].data_seed, cells[1].data_seed);
  // A changed hyperparameter changes the hash of that sampler's cells only.
  auto spec2 = tiny_spec();
  spec2.samplers[1].overrides["proposal_sd"] = 0.1;
  EXPECT_EQ(cell_hash(spec2, spec2.samplers[0]), cells[0].spec_hash);
  EXPECT_NE(cell_hash(spec2, spec2.samplers[1]), cells[4].spec_hash);
}

// The runner reads the spec's key file once for every private cell and says so; without one each
// private cell draws a fresh key (whether the draws then differ is tested on `sample` itself).
TEST(ExperimentRunner, PrivateCellsTakeTheSpecsKeyOrAFreshOne) {
  auto spec = tiny_spec();
  spec.epsilons = {2};
  spec.repeats = 1;
  const auto keyed = fresh_dir("keyed");
  EXPECT_EQ(run(spec, keyed, 2).noise_key, "from the curator's key file, not published");
  // The private cell's curator report names the file its key came from (the published one does
  // not: it only says where a key came from, core/noise_key.hpp).
  const ExperimentCell private_cell = experiment_cells(spec).front();
  ASSERT_TRUE(private_cell.epsilon.has_value());
  auto curator = cell_dir(keyed, private_cell);
  curator += ".curator";
  const json report = json::parse(slurp(curator / "report.json"));
  EXPECT_EQ(report.at("noise_key_file"), test_noise_key_file().string());
  const std::string published = slurp(cell_dir(keyed, private_cell) / "report.json");
  EXPECT_EQ(published.find(test_noise_key_file().filename().string()), std::string::npos);
  spec.noise_key_file.reset();
  const auto fresh = run(spec, fresh_dir("fresh"), 2).noise_key;
  EXPECT_NE(fresh.find("fresh for each cell"), std::string::npos) << fresh;
  spec.samplers.erase(spec.samplers.begin());  // rwmh only: no private cell, nothing to say
  EXPECT_EQ(run(spec, fresh_dir("none"), 2).noise_key, "");
}

// "paired_starts": every sampler and ε of a repeat starts its chains from the same points (the
// papers' design), each repeat from its own; without it each cell draws its own. Read back from
// the cells' reports, so the whole path (spec, cell, job, runner) is covered.
TEST(ExperimentRunner, PairedStartsShareTheStartingPointsOfARepeat) {
  auto starts_of = [](const std::filesystem::path& dir, const ExperimentCell& c) {
    const json r = json::parse(slurp(cell_dir(dir, c) / "report.json"));
    std::vector<std::vector<double>> starts;
    for (const auto& ch : r.at("chains")) starts.push_back(ch.at("start"));
    return starts;
  };
  const auto spec = tiny_spec();
  for (const auto& c : experiment_cells(spec)) EXPECT_FALSE(c.start_seed.has_value());
  const auto own_dir = fresh_dir("own-starts");
  run(spec, own_dir, 2);

  const auto paired = tiny_spec(7, true);
  const auto cells = experiment_cells(paired);
  ASSERT_EQ(cells.size(), 6u);
  // Cells 0 and 2 are dp-penalty at ε = 2 and 4 of repeat 1, cell 4 rwmh's repeat 1; 1, 3 and 5
  // the same of repeat 2. Seeds and hashes: paired starts are a setting, the other seeds stay.
  EXPECT_NE(cells[0].spec_hash, experiment_cells(spec)[0].spec_hash);
  EXPECT_EQ(cells[0].seed, experiment_cells(spec)[0].seed);
  const auto dir = fresh_dir("paired-starts");
  run(paired, dir, 2);
  for (std::size_t i : {0u, 1u}) {
    const auto starts = starts_of(dir, cells[i]);
    ASSERT_EQ(starts.size(), 2u);
    EXPECT_NE(starts[0], starts[1]);  // the chains of a cell start apart
    EXPECT_EQ(starts_of(dir, cells[i + 2]), starts);
    EXPECT_EQ(starts_of(dir, cells[i + 4]), starts);
  }
  EXPECT_NE(starts_of(dir, cells[0]), starts_of(dir, cells[1]));
  // Without the key the cells of a repeat start apart.
  EXPECT_NE(starts_of(own_dir, cells[0]), starts_of(own_dir, cells[2]));
  EXPECT_NE(starts_of(own_dir, cells[0]), starts_of(own_dir, cells[4]));
}

// "fixed_data": every repeat samples the same data set (the papers vary only the starting
// points); without it each repeat draws its own. Read from the cells' data seeds and from the
// draws' data: a cell's report names the data seed it simulated from.
TEST(ExperimentRunner, FixedDataGivesEveryRepeatTheSameDataSet) {
  auto d = tiny_spec();
  const auto own = experiment_cells(d);
  ExperimentSpec fixed = tiny_spec();
  fixed.fixed_data = true;
  const auto cells = experiment_cells(fixed);
  ASSERT_EQ(cells.size(), 6u);
  // Cells 0 and 1 are dp-penalty at ε = 2, repeats 1 and 2.
  EXPECT_NE(own[0].data_seed, own[1].data_seed);
  EXPECT_EQ(cells[0].data_seed, cells[1].data_seed);
  EXPECT_EQ(cells[0].data_seed, own[0].data_seed);  // repeat 1's data as without the key
  EXPECT_EQ(cells[0].seed, own[0].seed);            // the run seeds stay
  // Through the spec's JSON: a setting that enters the hash only when true.
  json spec_json = {{"name", "tiny"},
                    {"models", {"banana-tempered-2d"}},
                    {"samplers", {"rwmh"}},
                    {"repeats", 2},
                    {"seed", 7}};
  const auto plain = parse_experiment_spec(spec_json, "tiny.json", "full");
  spec_json["fixed_data"] = true;
  const auto with_key = parse_experiment_spec(spec_json, "tiny.json", "full");
  EXPECT_TRUE(with_key.fixed_data);
  EXPECT_EQ(with_key.resolved.at("fixed_data"), true);
  EXPECT_FALSE(plain.resolved.contains("fixed_data"));
  EXPECT_NE(experiment_cells(with_key)[0].spec_hash, experiment_cells(plain)[0].spec_hash);
  EXPECT_EQ(experiment_cells(with_key)[0].data_seed, experiment_cells(with_key)[1].data_seed);
  spec_json["fixed_data"] = "yes";
  EXPECT_THROW(parse_experiment_spec(spec_json, "tiny.json", "full"), ConfigError);
}

// A label restricted to some models has no cells on the others; the cells it has keep the keys,
// seeds and hashes they have without the restriction (it is a grid coordinate, like ε).
TEST(ExperimentRunner, LabelModelsLeaveOutCells) {
  json d = {{"name", "tiny"},
            {"models", {"banana-tempered-2d", "banana-flat-2d"}},
            {"samplers", {"dp-penalty", "rwmh"}},
            {"epsilons", {2}},
            {"n", 2000},
            {"seed", 7}};
  const auto all = experiment_cells(parse_experiment_spec(d, "tiny.json", "full"));
  ASSERT_EQ(all.size(), 4u);
  d["params"] = {{"rwmh", {{"models", {"banana-flat-2d"}}}}};
  const auto some = experiment_cells(parse_experiment_spec(d, "tiny.json", "full"));
  ASSERT_EQ(some.size(), 3u);
  EXPECT_EQ(some[0].key, all[0].key);  // dp-penalty on the tempered banana
  EXPECT_EQ(some[1].key, all[2].key);  // dp-penalty on the flat banana
  EXPECT_EQ(some[2].key, all[3].key);  // rwmh on the flat banana only
  EXPECT_EQ(some[2].key, "sample/banana-flat-2d/rwmh/NA/1");
  EXPECT_EQ(some[2].seed, all[3].seed);
  EXPECT_EQ(some[2].spec_hash, all[3].spec_hash);
  EXPECT_EQ(some[1].index, 1u);
  EXPECT_EQ(some[2].index, 2u);
}

TEST(ExperimentRunner, SchemaRowsDeterminismAndResume) {
  const auto spec = tiny_spec();
  const auto dir1 = fresh_dir("det1"), dir2 = fresh_dir("det2");
  std::size_t counted = 0;
  const auto out1 = run(spec, dir1, 2, &counted);
  EXPECT_EQ(out1.cells, 6u);
  EXPECT_EQ(out1.ran, 6u);
  EXPECT_EQ(counted, 6u);
  EXPECT_EQ(out1.errors, 0u);
  EXPECT_FALSE(out1.interrupted);
  EXPECT_TRUE(std::filesystem::exists(dir1 / "spec.json"));

  const auto file = read_results(dir1 / "results.csv");
  const std::string text = slurp(dir1 / "results.csv");
  EXPECT_EQ(text.substr(0, text.find('\n') + 1), results_header());
  ASSERT_EQ(file.rows.size(), 6u);
  std::set<std::string> keys;
  for (const auto& r : file.rows) {
    keys.insert(r.cell_key());
    EXPECT_EQ(r.text("status"), "completed") << r.text("message");
    EXPECT_EQ(r.text("n"), "2000");
    EXPECT_EQ(r.text("chains"), "2");
    const double per_chain = *r.number("iterations_per_chain", "x");
    EXPECT_EQ(*r.number("iterations_total", "x"), 2 * per_chain);
    const double acc = *r.number("acceptance_rate", "x");
    EXPECT_GE(acc, 0.0);
    EXPECT_LE(acc, 1.0);
    EXPECT_GT(*r.number("mmd", "x"), 0.0);
    EXPECT_TRUE(r.number("mean_error", "x").has_value());
    EXPECT_TRUE(r.number("cov_error", "x").has_value());
    EXPECT_TRUE(r.number("max_rhat", "x").has_value());
    EXPECT_EQ(r.text("grad_clip_frac"), "NA");  // no gradient releases in either sampler
    EXPECT_EQ(r.text("batch_size"), "NA");      // nor batches: every iteration reads all rows
    if (r.text("sampler") == "dp-penalty") {
      const double eps = *r.number("epsilon", "x");
      EXPECT_DOUBLE_EQ(*r.number("delta", "x"), 0.1 / 2000);
      EXPECT_LE(*r.number("certified_epsilon", "x"), eps + 1e-9);
      EXPECT_GT(*r.number("certified_epsilon", "x"), 0.5 * eps);
      EXPECT_NE(r.text("accountant"), "NA");
      const double clip = *r.number("llr_clip_frac", "x");
      EXPECT_GE(clip, 0.0);
      EXPECT_LE(clip, 1.0);
    } else {
      EXPECT_EQ(r.text("epsilon"), "NA");
      EXPECT_EQ(r.text("certified_epsilon"), "NA");
      EXPECT_EQ(r.text("llr_clip_frac"), "NA");
      EXPECT_EQ(*r.number("iterations_per_chain", "x"), 80.0);
    }
    EXPECT_TRUE(std::filesystem::exists(dir1 / "cells" / r.text("model") / r.text("sampler")));
  }
  EXPECT_EQ(keys.size(), 6u);
  // A larger ε buys more iterations.
  EXPECT_LT(*file.rows[0].number("iterations_total", "x"),
            *file.rows[2].number("iterations_total", "x"));

  // Determinism: one thread gives the same table (rows in grid order, all but wall times).
  run(spec, dir2, 1);
  EXPECT_EQ(without_wall_seconds(slurp(dir1 / "results.csv")),
            without_wall_seconds(slurp(dir2 / "results.csv")));

  // Resume after deleting one row: only that cell is computed, and it comes out the same.
  {
    std::istringstream in(text);
    std::string line, kept;
    for (int i = 0; std::getline(in, line); ++i) {
      if (i != 3) kept += line + "\n";
    }
    std::ofstream(dir2 / "results.csv") << kept;
  }
  counted = 0;
  const auto out3 = run(spec, dir2, 2, &counted);
  EXPECT_EQ(out3.skipped, 5u);
  EXPECT_EQ(out3.ran, 1u);
  EXPECT_EQ(counted, 1u);
  EXPECT_EQ(without_wall_seconds(slurp(dir1 / "results.csv")),
            without_wall_seconds(slurp(dir2 / "results.csv")));

  // Nothing left to do: nothing runs.
  const auto out4 = run(spec, dir2, 2);
  EXPECT_EQ(out4.ran, 0u);
  EXPECT_EQ(out4.skipped, 6u);

  // A row cut short by a crash is dropped and its cell recomputed.
  {
    std::istringstream in(text);
    std::string line, kept, last;
    for (int i = 0; std::getline(in, line); ++i) {
      if (i != 6) kept += line + "\n";
      last = line;
    }
    kept += last.substr(0, last.size() / 2);  // half of the last row, no newline
    std::ofstream(dir2 / "results.csv") << kept;
  }
  const auto out5 = run(spec, dir2, 1);
  EXPECT_TRUE(out5.dropped_partial_row);
  EXPECT_EQ(out5.ran, 1u);
  EXPECT_EQ(without_wall_seconds(slurp(dir1 / "results.csv")),
            without_wall_seconds(slurp(dir2 / "results.csv")));
}

// A minibatch sampler's row records the mean number of rows it evaluated per iteration
// ([ZhangZhang2023]'s "batch size", Figures 1(b) and 3(b)): the mean of its batch_size__ column
// over the kept draws, read back here from the cell's chain file.
TEST(ExperimentRunner, MinibatchCellsRecordTheirMeanBatchSize) {
  const json d = {{"name", "batches"},
                  {"models", {"mixture-fastmh-2d"}},
                  {"samplers", {"tunamh"}},
                  {"repeats", 1},
                  {"chains", 1},
                  {"n", 500},
                  {"iterations", {{"warmup", 30}, {"samples", 30}}},
                  {"reference_draws", 100},
                  {"seed", 3}};
  const auto spec = parse_experiment_spec(d, "batches.json", "full");
  const auto dir = fresh_dir("batches");
  run(spec, dir, 1);
  const auto file = read_results(dir / "results.csv");
  ASSERT_EQ(file.rows.size(), 1u);
  const auto batch = file.rows[0].number("batch_size", "x");
  ASSERT_TRUE(batch.has_value()) << file.rows[0].text("message");
  const auto cells = experiment_cells(spec);
  const StanCsv chain = read_stan_csv(cell_dir(dir, cells[0]) / "chain-1.csv");
  const auto col = chain.column_index("batch_size__");
  ASSERT_TRUE(col.has_value());
  const Vec b = chain.sampling_draws().col(static_cast<Eigen::Index>(*col));
  EXPECT_GT(b.maxCoeff(), 0.0);
  EXPECT_NEAR(*batch, b.mean(), 1e-9 * (1.0 + b.mean()));
}

// rwmh swept over two clip bounds, hmc not swept and with its own iterations: 2 × 2 + 2 cells in
// the order models → samplers → sweep value → repeats.
ExperimentSpec sweep_spec() {
  const json d = {{"name", "sweep"},
                  {"models", {"banana-flat-2d"}},
                  {"samplers", {"rwmh", "hmc"}},
                  {"params", {{"hmc", {{"iterations", {{"warmup", 10}, {"samples", 15}}}}}}},
                  {"sweep", {{"param", "clip"}, {"values", {0.5, 1000}}, {"samplers", {"rwmh"}}}},
                  {"repeats", 2},
                  {"n", 2000},
                  {"iterations", {{"warmup", 40}, {"samples", 40}}},
                  {"reference_draws", 100},
                  {"seed", 9}};
  return parse_experiment_spec(d, "sweep.json", "full");
}

TEST(ExperimentRunner, SweepGridKeysSeedsAndRows) {
  const auto spec = sweep_spec();
  const auto cells = experiment_cells(spec);
  ASSERT_EQ(cells.size(), 6u);
  EXPECT_EQ(cells[0].key, "sample/banana-flat-2d/rwmh/clip=0.5/NA/1");
  EXPECT_EQ(cells[1].key, "sample/banana-flat-2d/rwmh/clip=0.5/NA/2");
  EXPECT_EQ(cells[2].key, "sample/banana-flat-2d/rwmh/clip=1000/NA/1");
  EXPECT_EQ(cells[4].key, "sample/banana-flat-2d/hmc/NA/1");
  EXPECT_EQ(cells[2].sampler.overrides["clip"], 1000.0);
  EXPECT_FALSE(cells[4].sampler.overrides.contains("clip"));
  EXPECT_EQ(cells[0].data_seed, cells[2].data_seed);  // paired across sweep values
  EXPECT_NE(cells[0].seed, cells[2].seed);
  // An unswept label keeps the seed and hash it has in the same spec without a sweep.
  auto nosweep = spec;
  nosweep.sweep.reset();
  nosweep.resolved.erase("sweep");
  const auto plain_cells = experiment_cells(nosweep);
  EXPECT_EQ(plain_cells[2].key, cells[4].key);
  EXPECT_EQ(plain_cells[2].seed, cells[4].seed);
  EXPECT_EQ(plain_cells[2].spec_hash, cells[4].spec_hash);
  EXPECT_NE(plain_cells[0].spec_hash, cells[0].spec_hash);  // the swept parameter is in the hash

  const auto dir = fresh_dir("sweep");
  const auto out = run(spec, dir, 2);
  EXPECT_EQ(out.ran, 6u);
  EXPECT_EQ(out.errors, 0u);
  const auto file = read_results(dir / "results.csv");
  ASSERT_EQ(file.rows.size(), 6u);
  for (std::size_t i = 0; i < 6; ++i) EXPECT_EQ(file.rows[i].cell_key(), cells[i].key);
  for (int i = 0; i < 2; ++i) {
    const auto& small = file.rows[static_cast<std::size_t>(i)];
    const auto& huge = file.rows[static_cast<std::size_t>(i + 2)];
    EXPECT_EQ(small.text("sweep_param"), "clip");
    EXPECT_EQ(*small.number("sweep_value", "x"), 0.5);
    // At b = 0.5 the proposal sd 0.01 clips a share of rows; at b = 1000 none.
    EXPECT_GT(*small.number("llr_clip_frac", "x"), 0.0);
    EXPECT_EQ(*huge.number("llr_clip_frac", "x"), 0.0);
    EXPECT_EQ(*small.number("iterations_per_chain", "x"), 80.0);
  }
  EXPECT_EQ(file.rows[4].text("sweep_param"), "NA");
  EXPECT_EQ(file.rows[4].text("llr_clip_frac"), "NA");
  EXPECT_EQ(*file.rows[4].number("iterations_per_chain", "x"), 25.0);
  EXPECT_TRUE(
      std::filesystem::exists(dir / "cells/banana-flat-2d/rwmh/clip-0.5/non-private/rep-1"));

  // Resume: delete the row of a swept cell; only it runs again.
  const std::string text = slurp(dir / "results.csv");
  {
    std::istringstream in(text);
    std::string line, kept;
    for (int i = 0; std::getline(in, line); ++i) {
      if (i != 3) kept += line + "\n";
    }
    std::ofstream(dir / "results.csv") << kept;
  }
  const auto again = run(spec, dir, 1);
  EXPECT_EQ(again.skipped, 5u);
  EXPECT_EQ(again.ran, 1u);
  EXPECT_EQ(without_wall_seconds(text), without_wall_seconds(slurp(dir / "results.csv")));
}

// A results file written before the sweep columns existed is read (sweep NA), resumed, and
// rewritten with the current header and otherwise the same rows.
TEST(ExperimentRunner, OlderCsvWithoutSweepColumnsIsUpgraded) {
  const auto spec = tiny_spec();
  const auto dir = fresh_dir("upgrade");
  run(spec, dir, 2);
  const std::string current = slurp(dir / "results.csv");
  // Drop the two sweep columns (4th and 5th) from every line.
  std::istringstream in(current);
  std::string line, old;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream ls(line);
    std::string c;
    while (std::getline(ls, c, ',')) cells.push_back(c);
    ASSERT_GT(cells.size(), 5u);
    ASSERT_TRUE(cells[3] == "sweep_param" || cells[3] == "NA") << line;
    cells.erase(cells.begin() + 3, cells.begin() + 5);
    for (std::size_t j = 0; j < cells.size(); ++j) old += (j ? "," : "") + cells[j];
    old += "\n";
  }
  std::ofstream(dir / "results.csv") << old;
  const auto file = read_results(dir / "results.csv");
  EXPECT_EQ(file.rows.front().text("sweep_param"), "NA");
  const auto out = run(spec, dir, 1);
  EXPECT_EQ(out.skipped, 6u);
  EXPECT_EQ(out.ran, 0u);
  EXPECT_EQ(slurp(dir / "results.csv"), current);
}

TEST(ExperimentRunner, InterruptedRunResumes) {
  const auto spec = tiny_spec();
  const auto dir = fresh_dir("interrupt");
  std::atomic<bool> stop{false};
  std::size_t counted = 0;
  const auto out1 = run(spec, dir, 1, &counted, &stop, &stop);
  EXPECT_TRUE(out1.interrupted);
  EXPECT_GE(out1.ran, 1u);
  EXPECT_LT(out1.ran, 6u);
  const auto partial = read_results(dir / "results.csv");
  EXPECT_EQ(partial.rows.size(), out1.ran);

  counted = 0;
  const auto out2 = run(spec, dir, 2, &counted);
  EXPECT_FALSE(out2.interrupted);
  EXPECT_EQ(out2.skipped, out1.ran);
  EXPECT_EQ(out2.ran, 6u - out1.ran);
  EXPECT_EQ(counted, 6u - out1.ran);
  EXPECT_EQ(read_results(dir / "results.csv").rows.size(), 6u);
}

// Fewer repeats than a finished run: the extra repeat's rows are outside the new grid but of the
// same settings; they are counted, named and kept at the end of the file.
TEST(ExperimentRunner, RowsOutsideANarrowedGridAreKeptAndCounted) {
  const auto dir = fresh_dir("outside");
  auto spec = tiny_spec();
  spec.samplers.erase(spec.samplers.begin());  // rwmh only
  spec.epsilons = {2};
  run(spec, dir, 1);
  const std::string before = slurp(dir / "results.csv");
  spec.repeats = 1;
  const ExperimentOutcome out = run(spec, dir, 1);
  EXPECT_EQ(out.ran, 0u);
  EXPECT_TRUE(out.complete);
  EXPECT_EQ(out.outside_grid, 1u);
  EXPECT_EQ(out.outside_example, "sample/banana-tempered-2d/rwmh/NA/2");
  EXPECT_EQ(slurp(dir / "results.csv"), before);  // repeat 2 was already last
}

// A removed sampler's rows match no cell of the new grid: refused, saying so.
TEST(ExperimentRunner, RowsOfARemovedSamplerAreRefusedAsOutsideTheGrid) {
  const auto dir = fresh_dir("removed");
  auto spec = tiny_spec();
  spec.samplers.erase(spec.samplers.begin());  // rwmh only
  spec.epsilons = {2};
  spec.repeats = 1;
  run(spec, dir, 1);
  auto other = tiny_spec();
  other.samplers.pop_back();  // dp-penalty only
  other.epsilons = {2};
  other.repeats = 1;
  const std::string m = message_of<ConfigError>([&] { run(other, dir, 1); });
  EXPECT_NE(m.find("results.csv:2"), std::string::npos) << m;
  EXPECT_NE(m.find("sample/banana-tempered-2d/rwmh/NA/1) is not in the grid"), std::string::npos)
      << m;
}

TEST(ExperimentRunner, RefusesToMixSpecs) {
  const auto dir = fresh_dir("mix");
  auto spec = tiny_spec();
  spec.models = {"banana-tempered-2d"};
  spec.samplers.resize(1);
  spec.epsilons = {2};
  spec.repeats = 1;
  run(spec, dir, 1);
  auto other = tiny_spec(8);  // another seed: every result differs
  other.samplers.resize(1);
  other.epsilons = {2};
  other.repeats = 1;
  const std::string m = message_of<ConfigError>([&] { run(other, dir, 1); });
  EXPECT_NE(m.find("results.csv:2"), std::string::npos) << m;
  EXPECT_NE(m.find("was computed with other settings"), std::string::npos) << m;
}

TEST(ExperimentRunner, AccountKindMatchesClosedFormZcdp) {
  const json d = {{"kind", "account"},
                  {"models", {"banana-flat-2d"}},
                  {"samplers", {"dp-penalty", "dp-hmc"}},
                  {"epsilons", {1, 2}},
                  {"delta", 1e-6},
                  {"accountants", {"zcdp", "pld-gaussian"}}};
  const auto spec = parse_experiment_spec(d, "acc.json", "full");
  const auto dir = fresh_dir("account");
  const auto out = run(spec, dir, 2);
  EXPECT_EQ(out.cells, 4u);
  const auto file = read_results(dir / "results.csv");
  ASSERT_EQ(file.rows.size(), 8u);  // 2 templates × 2 ε × 2 accountants
  // zCDP of the Gaussian mechanism: ρ = 1/(2σ²) per release, ε(δ) = ρk + 2√(ρk log(1/δ)), so the
  // largest k is ⌊ρ_max/ρ⌋ with √ρ_max = √(L + ε) − √L, L = log(1/δ). DP penalty on
  // banana-flat-2d: σ/Δ = τ√n = 0.1·√1e5.
  const double L = std::log(1e6);
  for (const auto& r : file.rows) {
    EXPECT_EQ(r.text("status"), "completed") << r.text("message");
    if (r.text("sampler") != "dp-penalty" || r.text("accountant") != "zcdp") continue;
    const double eps = *r.number("epsilon", "x");
    const double rho_max = std::pow(std::sqrt(L + eps) - std::sqrt(L), 2);
    const double rho = 1.0 / (2.0 * 0.1 * 0.1 * 1e5);
    EXPECT_EQ(*r.number("iterations_total", "x"), std::floor(rho_max / rho)) << eps;
  }
  // The tight accountant allows more iterations than zCDP, for both templates.
  for (std::size_t i = 0; i + 1 < file.rows.size(); i += 2) {
    ASSERT_EQ(file.rows[i].text("accountant"), "zcdp");
    EXPECT_GT(*file.rows[i + 1].number("iterations_total", "x"),
              *file.rows[i].number("iterations_total", "x"));
  }
}

}  // namespace
}  // namespace dpmcmc

namespace dpmcmc {
namespace {

// An audit spec end to end: one row per (sampler, ε, k) with the bound beside the certificate,
// read back by the summary (the reading and the Markdown table), resumed without rerunning.
TEST(ExperimentRunner, AuditCellsWriteTheBoundBesideTheCertificate) {
  const json d = {{"name", "aud"},
                  {"kind", "audit"},
                  {"models", {"banana-flat-2d"}},
                  {"samplers", {"dp-penalty"}},
                  {"epsilons", {1, 2}},
                  {"delta", 1e-5},
                  {"audit",
                   {{"iterations", {1, 2}},
                    {"trials", 400},
                    {"chain_trials", 100},
                    {"pilot_trials", 20},
                    {"rows", 300}}},
                  {"seed", 5},
                  {"noise_key_file", test_noise_key_file().string()}};
  const auto spec = parse_experiment_spec(d, "aud.json", "full");
  const auto dir = fresh_dir("audit-cells");
  const auto out = run(spec, dir, 2);
  EXPECT_EQ(out.ran, 4u);
  EXPECT_EQ(out.errors, 0u);
  const auto file = read_results(dir / "results.csv");
  ASSERT_EQ(file.rows.size(), 4u);
  for (const auto& r : file.rows) {
    EXPECT_EQ(r.text("kind"), "audit");
    EXPECT_EQ(r.text("status"), "completed") << r.text("message");
    EXPECT_EQ(r.text("sweep_param"), "iterations");
    const double eps = *r.number("epsilon", "results.csv");
    const double cert = *r.number("certified_epsilon", "results.csv");
    EXPECT_LE(cert, eps);
    EXPECT_GE(cert, eps * (1.0 - 1e-4));
    EXPECT_LE(*r.number("epsilon_lb", "results.csv"), cert);
    EXPECT_EQ(r.text("message").rfind("consistent: test ", 0), 0u) << r.text("message");
  }
  const auto summary = summarize_results(file, "results.csv");
  ASSERT_EQ(summary.audit.size(), 4u);
  const auto table = summary_markdown(summary);
  EXPECT_NE(table.find("| ε = 1, k = 1 | ε = 2, k = 1 | ε = 1, k = 2 | ε = 2, k = 2 |"),
            std::string::npos)
      << table;
  const auto lines = reading_of(summary);
  EXPECT_NE(std::find(lines.begin(), lines.end(),
                      "4 of 4 audits ran; 4 consistent (ε_lb ≤ ε certified at the spec's "
                      "confidence)."),
            lines.end());
  EXPECT_EQ(run(spec, dir, 2).ran, 0u);  // resumed: every cell done
  // The spec's key file makes the audits reproducible, whatever the thread count.
  const auto again = fresh_dir("audit-cells-again");
  run(spec, again, 1);
  EXPECT_EQ(without_wall_seconds(slurp(again / "results.csv")),
            without_wall_seconds(slurp(dir / "results.csv")));
}

}  // namespace
}  // namespace dpmcmc
