// The command line end to end: simulate data, sample it, summarise the draws; config files.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_runner.hpp"

namespace dpmcmc::test {
namespace {

TEST(CliWorkflow, SimulateSampleSummary) {
  const auto dir = scratch_dir("workflow");
  const auto data = dir / "data.csv";
  auto r =
      run_cli("simulate --model banana-tempered-2d --n 2000 --seed 3 --out " + data.string(), dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto out = dir / "run";
  r = run_cli("sample --model banana-tempered-2d --sampler rwmh --data " + data.string() +
                  " --chains 2 --iter 200 --warmup 100 --seed 5 --quiet --out " + out.string(),
              dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("report.json"), std::string::npos) << r.out;
  ASSERT_TRUE(std::filesystem::exists(out / "chain-1.csv"));
  ASSERT_TRUE(std::filesystem::exists(out / "chain-2.csv"));
  EXPECT_FALSE(std::filesystem::exists(out / "chain-1.csv.part"));
  const auto report = nlohmann::json::parse(slurp(out / "report.json"));
  EXPECT_EQ(report["status"], "completed");
  EXPECT_EQ(report["run"]["seed"], 5);
  EXPECT_EQ(report["data"]["rows"], 2000);
  EXPECT_EQ(report["chains"].size(), 2u);
  EXPECT_TRUE(report["accuracy"]["mmd"].is_number());

  r = run_cli(
      "summary --json " + (out / "chain-1.csv").string() + " " + (out / "chain-2.csv").string(),
      dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto summary = nlohmann::json::parse(r.out);
  EXPECT_EQ(summary["chains"], 2);
  EXPECT_EQ(summary["draws_per_chain"], 200);
  // The run's directory stands for its chain files.
  r = run_cli("summary --json " + out.string(), dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out), summary);

  // The same seed reproduces the draws bit for bit, whatever the thread count.
  const auto out2 = dir / "run2";
  r = run_cli("sample --model banana-tempered-2d --sampler rwmh --data " + data.string() +
                  " --chains 2 --iter 200 --warmup 100 --seed 5 --threads 1 --quiet --out " +
                  out2.string(),
              dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto rows = [](const std::string& text) {
    return text.substr(text.find("lp__"), text.find("\n#  Elapsed") - text.find("lp__"));
  };
  EXPECT_EQ(rows(slurp(out / "chain-2.csv")), rows(slurp(out2 / "chain-2.csv")));
}

// `summary` says what `sample` would: a file cut short of its header's num_samples, and chains
// that disagree (R-hat), on stderr/stdout and in --json; it still summarises what it holds.
// A reused --out holds only the new run's chain files: an earlier run's extra chains (and their
// curator columns, and an aborted chain's .part) would otherwise be read with the new ones by
// `summary DIR` and `plot DIR` as one run. Files that are not chain files stay.
TEST(CliWorkflow, ReusedOutKeepsOnlyTheNewRunsChainFiles) {
  namespace fs = std::filesystem;
  const auto dir = scratch_dir("reused-out");
  const auto out = dir / "run";
  const std::string common =
      "sample --model banana-flat-2d --sampler dp-penalty --epsilon 1 "
      "--seed 5 --quiet --out " +
      out.string() + " --noise-key-file " + (dir / "k.key").string();
  auto r = run_cli(common + " --chains 3", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // No key file was at the path: the user is told a new one was made (a mistyped path of an
  // existing key would otherwise go unnoticed); the second run reads it and says nothing.
  EXPECT_NE(r.out.find("noise key: new, saved to " + (dir / "k.key").string()), std::string::npos)
      << r.out;
  const auto curator = dir / "run.curator";
  ASSERT_TRUE(fs::exists(out / "chain-3.csv"));
  const bool curator_columns = fs::exists(curator / "chain-3.csv");
  // A run refused before it starts (a checkpointed private run needs a key file) deletes
  // nothing of the earlier run.
  const std::string without_key = common.substr(0, common.find(" --noise-key-file"));
  r = run_cli(without_key + " --chains 1 --checkpoint-every 10", dir);
  EXPECT_EQ(r.exit_code, 64) << r.err;
  EXPECT_TRUE(fs::exists(out / "chain-3.csv"));
  EXPECT_EQ(fs::exists(curator / "chain-3.csv"), curator_columns);
  std::ofstream(out / "chain-7.csv.part") << "# an aborted chain\n";
  std::ofstream(out / "notes.txt") << "the curator's own notes\n";
  std::ofstream(out / "chain-final.csv") << "not a chain file name of dpmcmc\n";
  r = run_cli(common + " --chains 1", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("noise key: new"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::exists(out / "chain-1.csv"));
  for (const char* stale : {"chain-2.csv", "chain-3.csv", "chain-7.csv.part"}) {
    EXPECT_FALSE(fs::exists(out / stale)) << stale;
    EXPECT_FALSE(fs::exists(curator / stale)) << stale;
  }
  if (curator_columns) {
    EXPECT_TRUE(fs::exists(curator / "chain-1.csv"));
  }
  EXPECT_TRUE(fs::exists(out / "notes.txt"));
  EXPECT_TRUE(fs::exists(out / "chain-final.csv"));
  r = run_cli("summary " + out.string() + "/chain-[0-9]*.csv --json", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out).at("chains").get<int>(), 1) << r.out;
}

TEST(CliWorkflow, SummaryWarnsOfCutFilesAndDisagreeingChains) {
  const auto dir = scratch_dir("summary-warnings");
  const std::string header = "# num_samples = 50\n# thin = 1\nlp__,accept_stat__,x\n";
  std::string a = header, b = header, cut_a, cut_b;
  for (int i = 0; i < 50; ++i) {
    a += "0,1," + std::to_string(0.01 * (i % 7)) + "\n";
    b += "0,1," + std::to_string(10.0 + 0.01 * (i % 5)) + "\n";
    if (i == 19) cut_a = a, cut_b = b;  // the first 20 draws, as `head` would leave them
  }
  std::ofstream(dir / "a.csv") << a;
  std::ofstream(dir / "b.csv") << b;
  std::ofstream(dir / "cut-a.csv") << cut_a;
  std::ofstream(dir / "cut.csv") << cut_b;
  auto r = run_cli("summary " + (dir / "a.csv").string() + " " + (dir / "b.csv").string(), dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("WARNING: x: R-hat"), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find("promises"), std::string::npos) << r.err;
  r = run_cli("summary --json " + (dir / "cut-a.csv").string() + " " + (dir / "cut.csv").string(),
              dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("cut.csv: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("promises 50"), std::string::npos) << r.err;
  const auto json = nlohmann::json::parse(r.out);
  EXPECT_EQ(json["incomplete_files"].size(), 2u);
  EXPECT_FALSE(json["warnings"].empty());
  EXPECT_EQ(json["warnings"][0]["check"], "rhat");
}

TEST(CliWorkflow, PlotPutsNutsDrawsInTheExactRegionsAndRefusesWhatItCannotDraw) {
  // NUTS on 2000 rows of the tempered banana (2 chains × 1000 draws, bulk-ESS of several
  // hundred): its draws must fall in the exact 50 / 90 / 99 % regions about as often as exact
  // draws would; the tolerances are ~4 sds of a fraction at an ESS of 300.
  const auto dir = scratch_dir("plot");
  const auto data = dir / "data.csv";
  auto r =
      run_cli("simulate --model banana-tempered-2d --n 2000 --seed 3 --out " + data.string(), dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto run = dir / "nuts";
  r = run_cli("sample --model banana-tempered-2d --sampler nuts --data " + data.string() +
                  " --chains 2 --seed 5 --quiet --out " + run.string(),
              dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto plot = dir / "plot";
  r = run_cli("plot --model banana-tempered-2d --data " + data.string() + " " + run.string() +
                  " --label NUTS --starts 4 --cells 120 --no-plots --out " + plot.string(),
              dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // A run on the preset's synthetic data (2000 rows of seed 3): plot reads the seed and the rows
  // from the run's report.json.
  const auto synthetic = dir / "nuts-synthetic";
  auto again = run_cli(
      "sample --model banana-tempered-2d --sampler nuts --n 2000 --data-seed 3 "
      "--chains 2 --seed 5 --quiet --out " +
          synthetic.string(),
      dir);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  again = run_cli("plot --model banana-tempered-2d " + synthetic.string() +
                      " --label NUTS --cells 120 --no-plots --out " + (dir / "plot2").string(),
                  dir);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  // Rows of another size or seed would put the exact regions elsewhere (the default n is
  // 100 000): the fractions show that plot took the run's own rows.
  const auto fractions = [](const std::string& out) {
    std::istringstream line(out.substr(out.find("NUTS") + 4));
    std::array<double, 3> f{};
    char slash = 0;
    line >> f[0] >> slash >> f[1] >> slash >> f[2];
    return f;
  };
  for (const auto& f : {fractions(r.out), fractions(again.out)}) {
    EXPECT_NEAR(f[0], 0.5, 0.12) << r.out << again.out;
    EXPECT_NEAR(f[1], 0.9, 0.07) << r.out << again.out;
    EXPECT_NEAR(f[2], 0.99, 0.03) << r.out << again.out;
  }
  ASSERT_EQ(r.exit_code, 0) << r.err;

  for (const char* file :
       {"posterior.gp", "posterior-density.dat", "posterior-panel-1.dat", "posterior-starts.dat"})
    EXPECT_TRUE(std::filesystem::exists(plot / file)) << file;
  const std::string starts = slurp(plot / "posterior-starts.dat");
  EXPECT_EQ(std::count(starts.begin(), starts.end(), '\n'), 4);

  // What it cannot draw: a model of another dimension, labels that do not match the runs, a
  // run that is not there, a run of another model, a run on a file not given.
  r = run_cli("plot --model gauss-30d --no-plots --out " + plot.string(), dir);
  EXPECT_EQ(r.exit_code, 64);
  EXPECT_NE(r.err.find("2-parameter"), std::string::npos) << r.err;
  r = run_cli("plot --model banana-tempered-2d " + run.string() + " --label a --label b --no-plots",
              dir);
  EXPECT_EQ(r.exit_code, 64);
  EXPECT_NE(r.err.find("--label"), std::string::npos) << r.err;
  r = run_cli("plot --model banana-tempered-2d " + (dir / "absent").string() + " --no-plots", dir);
  EXPECT_EQ(r.exit_code, 66) << r.err;
  std::filesystem::create_directories(dir / "empty");
  r = run_cli("plot --model banana-tempered-2d " + (dir / "empty").string() + " --no-plots", dir);
  EXPECT_EQ(r.exit_code, 66) << r.err;
  EXPECT_NE(r.err.find("no chain-*.csv"), std::string::npos) << r.err;
  r = run_cli("plot --model banana-flat-2d " + run.string() + " --no-plots", dir);
  EXPECT_EQ(r.exit_code, 64);
  EXPECT_NE(r.err.find("a run of model 'banana-tempered-2d'"), std::string::npos) << r.err;
  // Fitted to a file: plot needs that file; a private run on a file is refused.
  r = run_cli("plot --model banana-tempered-2d " + run.string() + " --no-plots", dir);
  EXPECT_EQ(r.exit_code, 64);
  EXPECT_NE(r.err.find("give that file with --data"), std::string::npos) << r.err;
  const auto private_run = dir / "private";
  r = run_cli("sample --model banana-tempered-2d --sampler dp-penalty --epsilon 2 --data " +
                  data.string() + " --chains 1 --seed 5 --quiet --out " + private_run.string(),
              dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_cli("plot --model banana-tempered-2d --data " + data.string() + " " +
                  private_run.string() + " --no-plots",
              dir);
  EXPECT_EQ(r.exit_code, 64);
  EXPECT_NE(r.err.find("not a DP release"), std::string::npos) << r.err;
  r = run_cli("plot --model banana-tempered-2d --box 1,0,0,1 --no-plots", dir);
  EXPECT_EQ(r.exit_code, 64);
  EXPECT_NE(r.err.find("--box"), std::string::npos) << r.err;
}

TEST(CliWorkflow, ConfigFileJsonAndTomlWithCommandLineOverride) {
  const auto dir = scratch_dir("config");
  std::ofstream(dir / "c.json")
      << R"({"model": "circle", "sampler": "rwmh", "chains": 1, "iter": 50, "warmup": 10, "n": 500, "seed": 2, "quiet": true})";
  std::ofstream(dir / "c.toml") << "model = \"circle\"\nsampler = \"rwmh\"\nchains = 1\niter = "
                                   "50\nwarmup = 10\nn = 500\nseed = 2\nquiet = true\n";
  for (const std::string cfg : {"c.json", "c.toml"}) {
    const auto out = dir / ("out-" + cfg);
    const auto r = run_cli(
        "sample --config " + (dir / cfg).string() + " --iter 60 --out " + out.string(), dir);
    ASSERT_EQ(r.exit_code, 0) << cfg << ": " << r.err;
    const auto report = nlohmann::json::parse(slurp(out / "report.json"));
    EXPECT_EQ(report["model"]["preset"], "circle") << cfg;
    EXPECT_EQ(report["run"]["chains"], 1) << cfg;
    EXPECT_EQ(report["run"]["samples"], 60) << cfg;  // the command line wins
  }
}

TEST(CliWorkflow, ModelsListsPresetsAsJson) {
  const auto dir = scratch_dir("models");
  const auto r = run_cli("models --json", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto all = nlohmann::json::parse(r.out);
  EXPECT_GE(all.size(), 8u);
  bool found = false;
  for (const auto& p : all) found |= p["name"] == "banana-tempered-2d";
  EXPECT_TRUE(found);
}

TEST(CliWorkflow, HelpExitsZero) {
  const auto dir = scratch_dir("help");
  for (const std::string cmd : {"--help", "sample --help", "simulate --help", "summary --help",
                                "models --help", "plot --help"}) {
    const auto r = run_cli(cmd, dir);
    EXPECT_EQ(r.exit_code, 0) << cmd;
    EXPECT_NE(r.out.find("--"), std::string::npos) << cmd;
  }
}

}  // namespace
}  // namespace dpmcmc::test
