// After every run `sample` says whether its chains converged (issue #25): a run whose chains
// disagree prints WARNING lines and lists them in report.json; a converged run prints none.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

namespace dpmcmc::test {
namespace {

TEST(ConvergenceReport, AShortRunOnTheBananaWarnsAndSaysWhatToTry) {
  const auto dir = scratch_dir("convergence-banana");
  const auto r = run_cli(
      "sample --model banana-tempered-2d --sampler hmc --iter 200 --warmup 200 --seed 7 --quiet "
      "--out " +
          (dir / "out").string(),
      dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("WARNING: theta.1: R-hat"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  try: more iterations"), std::string::npos) << r.out;
  const auto report = nlohmann::json::parse(slurp(dir / "out" / "report.json"));
  ASSERT_TRUE(report["warnings"].is_array());
  ASSERT_FALSE(report["warnings"].empty());
  EXPECT_EQ(report["warnings"][0]["check"], "rhat");
  EXPECT_GT(report["warnings"][0]["value"].get<double>(), 1.01);
}

TEST(ConvergenceReport, AConvergedRunWarnsOfNothing) {
  const auto dir = scratch_dir("convergence-gauss");
  const auto r = run_cli(
      "sample --model gauss-box-2d --sampler hmc --seed 7 --quiet --out " + (dir / "out").string(),
      dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("WARNING"), std::string::npos) << r.out;
  const auto report = nlohmann::json::parse(slurp(dir / "out" / "report.json"));
  EXPECT_TRUE(report["warnings"].empty());
}

// Three kept draws per chain: no summary can be made, and the run says so instead of exiting 0
// in silence (a private dp-sgld run whose budget bought 2 kept draws per chain did).
TEST(ConvergenceReport, TooFewDrawsToSummariseIsAWarning) {
  const auto dir = scratch_dir("convergence-few");
  const auto r = run_cli(
      "sample --model gauss-box-2d --sampler rwmh --iter 3 --warmup 3 --seed 7 --quiet --out " +
          (dir / "out").string(),
      dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("3 kept draws per chain, too few to summarise"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("try: more iterations (--iter, --warmup)"), std::string::npos) << r.out;
  const auto report = nlohmann::json::parse(slurp(dir / "out" / "report.json"));
  EXPECT_TRUE(report["summary"].is_null());
  int draws = 0;
  for (const auto& w : report["warnings"]) {
    if (w["check"] != "draws") continue;
    ++draws;
    EXPECT_EQ(w["value"], 3.0);
    EXPECT_EQ(w["advice"], "more iterations (--iter, --warmup)");
  }
  EXPECT_EQ(draws, 1) << report["warnings"].dump();
}

}  // namespace
}  // namespace dpmcmc::test
