// `sample --accuracy auto|on|off` (issue #28): the exact reference is computed only when asked or
// cheap. The mixture preset's grid reference at n = 50 000 costs 5.5e8 likelihood row
// evaluations (seconds), far more than the sampling it would evaluate: auto skips it and says
// why; at n = 2000 (2.2e7) auto computes it; on always does; off never.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

namespace dpmcmc::test {
namespace {

constexpr const char* kMixture =
    "sample --model mixture-fastmh-2d --sampler rwmh --iter 50 --warmup 50 --chains 1 --seed 1 "
    "--quiet";

TEST(CliAccuracyOption, AutoSkipsACostlyReferenceAndSaysWhy) {
  const auto dir = scratch_dir("accuracy-auto");
  const auto r = run_cli(std::string(kMixture) + " --out " + (dir / "run").string(), dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("accuracy not computed: the exact reference costs 5.51e+08"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("MMD to"), std::string::npos) << r.out;
  const auto report = nlohmann::json::parse(slurp(dir / "run" / "report.json"));
  EXPECT_TRUE(report.dump().find("--accuracy on computes it") != std::string::npos);
}

TEST(CliAccuracyOption, AutoComputesACheapReferenceAndOnForcesIt) {
  const auto dir = scratch_dir("accuracy-on");
  const auto small =
      run_cli(std::string(kMixture) + " --n 2000 --out " + (dir / "small").string(), dir);
  ASSERT_EQ(small.exit_code, 0) << small.err;
  EXPECT_NE(small.out.find("MMD to 1000 exact posterior draws"), std::string::npos) << small.out;
  const auto on = run_cli(
      std::string(kMixture) + " --n 2000 --accuracy on --out " + (dir / "on").string(), dir);
  ASSERT_EQ(on.exit_code, 0) << on.err;
  EXPECT_NE(on.out.find("MMD to"), std::string::npos) << on.out;
}

TEST(CliAccuracyOption, OffNeverComputesAndABadValueIsAUsageError) {
  const auto dir = scratch_dir("accuracy-off");
  const auto off = run_cli(
      "sample --model banana-flat-2d --sampler rwmh --iter 50 --warmup 50 --chains 1 --seed 1 "
      "--quiet --accuracy off --out " +
          (dir / "off").string(),
      dir);
  ASSERT_EQ(off.exit_code, 0) << off.err;
  EXPECT_NE(off.out.find("accuracy not computed: --accuracy off"), std::string::npos) << off.out;
  EXPECT_EQ(off.out.find("MMD to"), std::string::npos) << off.out;
  const auto bad = run_cli("sample --model banana-flat-2d --sampler rwmh --accuracy maybe", dir);
  EXPECT_EQ(bad.exit_code, 64) << bad.err;
  EXPECT_NE(bad.err.find("--accuracy"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace dpmcmc::test
