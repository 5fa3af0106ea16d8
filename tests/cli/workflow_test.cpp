// The command line end to end: simulate data, sample it, summarise the draws; config files.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

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
  for (const std::string cmd :
       {"--help", "sample --help", "simulate --help", "summary --help", "models --help"}) {
    const auto r = run_cli(cmd, dir);
    EXPECT_EQ(r.exit_code, 0) << cmd;
    EXPECT_NE(r.out.find("--"), std::string::npos) << cmd;
  }
}

}  // namespace
}  // namespace dpmcmc::test
