// `dpmcmc experiment` and `dpmcmc report` end to end through the binary (CI smoke test): a tiny
// spec (JSON and TOML), the CSV schema, the plots and the page; bad input and exit codes.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <vector>

#include "../results_text.hpp"
#include "cli_runner.hpp"

namespace dpmcmc::test {
namespace {

const char* kTinySpec = R"({
  "name": "smoke",
  "models": ["banana-tempered-2d"],
  "samplers": ["dp-penalty", "rwmh"],
  "epsilons": [2, 4, 8],
  "repeats": 3,
  "chains": 2,
  "n": 2000,
  "iterations": {"warmup": 30, "samples": 30},
  "reference_draws": 200,
  "seed": 11,
  "noise_key_file": "smoke.key",
  "profiles": {"quick": {"epsilons": [2, 4], "repeats": 2}}
})";

std::size_t count_lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

TEST(CliExperiment, TinySpecEndToEnd) {
  const auto dir = scratch_dir("experiment");
  std::ofstream(dir / "smoke.json") << kTinySpec;
  const auto out = dir / "out";
  auto r = run_cli("experiment " + (dir / "smoke.json").string() +
                       " --profile quick --threads 2 --out " + out.string(),
                   dir);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("6 cells: 0 already done, 6 run now (0 failed)"), std::string::npos)
      << r.out;
  // The spec's key file is created once, before the cells run in parallel, and then only read.
  EXPECT_NE(r.out.find("noise key of the private cells: new, saved to the curator's key file"),
            std::string::npos)
      << r.out;
  EXPECT_TRUE(std::filesystem::exists(dir / "smoke.key"));
  const std::string csv = slurp(out / "results.csv");
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "kind,model,sampler,sweep_param,sweep_value,epsilon,delta,repeat,accountant,bound,n,"
            "chains,seed,data_seed,"
            "iterations_per_chain,iterations_total,acceptance_rate,llr_clip_frac,grad_clip_frac,"
            "batch_size,mmd,mmd_exact,mean_error,cov_error,sym_kl,test_accuracy,max_rhat,"
            "certified_epsilon,epsilon_lb,"
            "hockey_stick_epsilon,wall_seconds,"
            "status,"
            "message,"
            "spec_hash");
  EXPECT_EQ(count_lines(csv), 1u + 2 * 2 + 2);  // header, dp-penalty 2 ε × 2 repeats, rwmh 2
  EXPECT_EQ(csv.find(",error,"), std::string::npos) << csv;

  // Rerun: everything is already there.
  r = run_cli(
      "experiment " + (dir / "smoke.json").string() + " --profile quick --out " + out.string(),
      dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("6 cells: 6 already done, 0 run now"), std::string::npos) << r.out;

  r = run_cli("report " + (out / "results.csv").string(), dir);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  for (const char* f :
       {"report/report.html", "report/summary.csv", "report/plots/accuracy.png",
        "report/plots/accuracy.svg", "report/plots/accuracy.gp", "report/plots/clipping.png"}) {
    ASSERT_TRUE(std::filesystem::exists(out / f)) << f;
    EXPECT_GT(std::filesystem::file_size(out / f), 0u) << f;
  }
  const std::string html = slurp(out / "report/report.html");
  EXPECT_NE(html.find("<h1>Experiment smoke</h1>"), std::string::npos);
  EXPECT_NE(html.find("dp-penalty has the lowest median mmd"), std::string::npos);
}

// --cells runs the matching cells only (here the first repeat, then the rest); the run without
// it resumes, and the final file is the one an unstaged run writes (apart from wall times).
TEST(CliExperiment, StagedCellsResumeToTheSameFile) {
  const auto dir = scratch_dir("experiment-staged");
  std::ofstream(dir / "smoke.json") << kTinySpec;
  const std::string spec = (dir / "smoke.json").string();
  const std::string staged = " --profile quick --out " + (dir / "staged").string();
  auto r = run_cli("experiment " + spec + staged + " --cells 'sample/*/*/*/1'", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("6 cells (3 selected by --cells): 0 already done, 3 run now"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("3 of 6 cells have rows"), std::string::npos) << r.out;
  // Two patterns: the rwmh cell of repeat 2, and one already done.
  r = run_cli(
      "experiment " + spec + staged + " --cells 'sample/*/rwmh/*/2' --cells 'sample/*/rwmh/*/1'",
      dir);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("(2 selected by --cells): 1 already done, 1 run now"), std::string::npos)
      << r.out;
  // A pattern that matches no cell is refused (64), naming it, before anything runs.
  r = run_cli("experiment " + spec + staged + " --cells 'sample/*/rwmh/*/1' --cells 'nothing'",
              dir);
  EXPECT_EQ(r.exit_code, 64) << r.err << r.out;
  EXPECT_NE(r.err.find("pattern 'nothing' matches no cell"), std::string::npos) << r.err;
  r = run_cli("experiment " + spec + staged, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("6 cells: 4 already done, 2 run now"), std::string::npos) << r.out;
  r = run_cli("experiment " + spec + " --profile quick --out " + (dir / "whole").string(), dir);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(without_wall_seconds(slurp(dir / "staged/results.csv")),
            without_wall_seconds(slurp(dir / "whole/results.csv")));
}

// --no-draw-files: the cells keep report.json but write no chain CSVs, and the results are the
// ones of a run that writes them (the metrics come from the draws in memory either way).
TEST(CliExperiment, NoDrawFilesKeepsTheResults) {
  const auto dir = scratch_dir("experiment-no-draws");
  std::ofstream(dir / "smoke.json") << kTinySpec;
  const std::string spec = (dir / "smoke.json").string();
  auto r =
      run_cli("experiment " + spec + " --profile quick --out " + (dir / "files").string(), dir);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  r = run_cli(
      "experiment " + spec + " --profile quick --no-draw-files --out " + (dir / "bare").string(),
      dir);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(without_wall_seconds(slurp(dir / "bare/results.csv")),
            without_wall_seconds(slurp(dir / "files/results.csv")));
  for (const char* cell : {"cells/banana-tempered-2d/dp-penalty/eps-2/rep-1",
                           "cells/banana-tempered-2d/rwmh/non-private/rep-2"}) {
    EXPECT_TRUE(std::filesystem::exists(dir / "files" / cell / "chain-1.csv")) << cell;
    EXPECT_TRUE(std::filesystem::exists(dir / "bare" / cell / "report.json")) << cell;
    EXPECT_FALSE(std::filesystem::exists(dir / "bare" / cell / "chain-1.csv")) << cell;
    EXPECT_FALSE(std::filesystem::exists(dir / "bare" / cell / "chain-2.csv")) << cell;
  }
  const std::string report =
      slurp(dir / "bare/cells/banana-tempered-2d/dp-penalty/eps-2/rep-1/report.json");
  EXPECT_NE(report.find("\"file\": null"), std::string::npos) << report;
}

TEST(CliExperiment, TomlSpecAndAccountKind) {
  const auto dir = scratch_dir("experiment-toml");
  std::ofstream(dir / "acc.toml") << "name = \"acc\"\nkind = \"account\"\n"
                                     "models = [\"banana-flat-2d\", \"circle\"]\n"
                                     "samplers = [\"dp-penalty\", \"strong\"]\n"
                                     "epsilons = [1, 2]\ndelta = \"0.1/n\"\n"
                                     "accountants = [\"zcdp\"]\n"
                                     "[params.strong]\nsampler = \"dp-penalty\"\ntau = 0.2\n"
                                     "models = [\"banana-flat-2d\"]\n";  // a one-element list
  const auto out = dir / "out";
  auto r = run_cli("experiment " + (dir / "acc.toml").string() + " --out " + out.string(), dir);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const std::string csv = slurp(out / "results.csv");
  EXPECT_EQ(count_lines(csv), 1u + 4 + 2);  // dp-penalty on both models, strong on one
  EXPECT_NE(csv.find("account,banana-flat-2d,strong,NA,NA,2,"), std::string::npos) << csv;
  EXPECT_EQ(csv.find("account,circle,strong,"), std::string::npos) << csv;
  r = run_cli("report " + (out / "results.csv").string() + " --out " + (dir / "rep").string(), dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir / "rep/plots/accounting.png"));
}

// The clipping study end to end: `sample --sampler rwmh --clip` writes clip_frac__, a bad bound
// is a config error (78) naming the option, and a swept spec's report has the sweep figures and
// names the best value.
TEST(CliExperiment, ClippedRwmhAndSweptReport) {
  const auto dir = scratch_dir("experiment-clip");
  auto r = run_cli(
      "sample --model banana-flat-2d --sampler rwmh --clip 0.5 --n 2000 --iter 40 "
      "--warmup 20 --chains 1 --seed 1 --quiet --out " +
          (dir / "s").string(),
      dir);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(slurp(dir / "s/chain-1.csv").find("lp__,accept_stat__,clip_frac__,theta.1"),
            std::string::npos);
  r = run_cli(
      "sample --model banana-flat-2d --sampler hmc --clip 0 --n 2000 --iter 10 --warmup 0 "
      "--chains 1 --seed 1 --quiet --out " +
          (dir / "s0").string(),
      dir);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("--clip"), std::string::npos) << r.err;

  // TOML: one-element arrays stay lists (sweep.samplers).
  std::ofstream(dir / "sweep.toml") << "models = [\"banana-flat-2d\"]\nsamplers = [\"rwmh\"]\n"
                                       "n = 2000\nrepeats = 2\nreference_draws = 100\nseed = 4\n"
                                       "[iterations]\nwarmup = 20\nsamples = 40\n"
                                       "[sweep]\nparam = \"clip\"\nvalues = [0.5, 1000]\n"
                                       "samplers = [\"rwmh\"]\n";
  const auto out = dir / "out";
  r = run_cli("experiment " + (dir / "sweep.toml").string() + " --threads 2 --out " + out.string(),
              dir);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("4 cells"), std::string::npos) << r.out;
  r = run_cli("report " + (out / "results.csv").string(), dir);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  for (const char* f : {"report/plots/sweep.png", "report/plots/sweep.svg",
                        "report/plots/sweep-clipped.png", "report/plots/sweep-clipped.svg"}) {
    ASSERT_TRUE(std::filesystem::exists(out / f)) << f;
  }
  // The rows record mmd_exact, so the sweep figure draws the sampler's exact-vs-exact line.
  EXPECT_NE(slurp(out / "report/plots/sweep.gp").find("'sweep-banana-flat-2d-rwmh-exact.dat'"),
            std::string::npos);
  r = run_cli(
      "report " + (out / "results.csv").string() + " --floor " + (dir / "none.csv").string(), dir);
  EXPECT_EQ(r.exit_code, 66) << r.err;
  EXPECT_NE(r.err.find("--floor"), std::string::npos) << r.err;
  r = run_cli(
      "report " + (out / "results.csv").string() + " --floor " + (out / "results.csv").string(),
      dir);
  EXPECT_EQ(r.exit_code, 64) << r.err;  // every MMD model has its own: nothing to take
  EXPECT_NE(r.err.find("--floor"), std::string::npos) << r.err;
  EXPECT_NE(slurp(out / "report/report.html").find("banana-flat-2d, rwmh: best clip = "),
            std::string::npos);
}

TEST(CliExperiment, BadInputExitCodes) {
  const auto dir = scratch_dir("experiment-bad");
  std::ofstream(dir / "bad.json")
      << R"({"models": ["circle"], "samplers": ["rwmh"], "seed": 1, "repeat": 2})";
  auto r =
      run_cli("experiment " + (dir / "bad.json").string() + " --out " + (dir / "o").string(), dir);
  EXPECT_EQ(r.exit_code, 78) << r.err;
  EXPECT_NE(r.err.find("bad.json: key 'repeat'"), std::string::npos) << r.err;

  r = run_cli("experiment " + (dir / "missing.json").string(), dir);
  EXPECT_EQ(r.exit_code, 66) << r.err;

  r = run_cli("experiment " + (dir / "bad.json").string() + " --profile medium", dir);
  EXPECT_EQ(r.exit_code, 64) << r.err;

  std::ofstream(dir / "results.csv") << "kind,model\nsample,circle\n";
  r = run_cli("report " + (dir / "results.csv").string(), dir);
  EXPECT_EQ(r.exit_code, 65) << r.err;
  EXPECT_NE(r.err.find("results.csv:1: missing column"), std::string::npos) << r.err;

  r = run_cli("report " + (dir / "none.csv").string(), dir);
  EXPECT_EQ(r.exit_code, 66) << r.err;
}

}  // namespace
}  // namespace dpmcmc::test
