// Warmup adaptation through the command line (issue #25): on by default, its tuning in the report
// and in the step column; --adapt false keeps the preset's values; --target-accept is checked.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.hpp"

namespace dpmcmc::test {
namespace {

using nlohmann::json;

// The stepsize__ of the first sampling row of chain 1.
double first_step(const std::filesystem::path& out) {
  std::istringstream in(slurp(out / "chain-1.csv"));
  std::string line, header;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (header.empty()) {
      header = line;
      continue;
    }
    break;
  }
  std::size_t column = 0, at = 0;
  for (std::size_t pos = 0; header.compare(pos, 11, "stepsize__,") != 0; ++column) {
    pos = header.find(',', pos) + 1;
  }
  for (std::size_t c = 0; c < column; ++c) at = line.find(',', at) + 1;
  return std::stod(line.substr(at));
}

TEST(CliAdapt, NutsAdaptsByDefaultAndKeepsThePresetStepWithout) {
  const auto dir = scratch_dir("adapt");
  const std::string base =
      "sample --model gauss-box-2d --sampler nuts --chains 2 --iter 200 --warmup 300 --seed 4 "
      "--quiet --out ";
  auto r = run_cli(base + (dir / "on").string(), dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json on = json::parse(slurp(dir / "on" / "report.json"));
  EXPECT_EQ(on["run"]["adapt"], true);
  EXPECT_TRUE(on["run"]["target_accept"].is_null());
  for (const auto& chain : on["chains"]) {
    ASSERT_TRUE(chain.contains("adaptation")) << chain.dump();
    EXPECT_GT(chain["adaptation"]["step"].get<double>(), 0.0);
    EXPECT_EQ(chain["adaptation"]["metric"].size(), 2u);
  }
  EXPECT_EQ(first_step(dir / "on"), on["chains"][0]["adaptation"]["step"].get<double>());

  r = run_cli(base + (dir / "off").string() + " --adapt false", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json off = json::parse(slurp(dir / "off" / "report.json"));
  EXPECT_EQ(off["run"]["adapt"], false);
  EXPECT_FALSE(off["chains"][0].contains("adaptation"));
  EXPECT_EQ(first_step(dir / "off"), 0.004);  // the preset's hmc step (`dpmcmc models`)

  r = run_cli(base + (dir / "high").string() + " --target-accept 0.95", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json high = json::parse(slurp(dir / "high" / "report.json"));
  EXPECT_EQ(high["run"]["target_accept"], 0.95);
  // A higher target means a smaller step (for one chain not a theorem, but 0.95 against 0.8
  // shrinks the step far more than its run-to-run variation).
  EXPECT_LT(high["chains"][0]["adaptation"]["step"].get<double>(),
            on["chains"][0]["adaptation"]["step"].get<double>());
}

TEST(CliAdapt, TargetAcceptIsChecked) {
  const auto dir = scratch_dir("adapt-bad");
  for (const std::string bad : {"--target-accept 1", "--target-accept 0", "--target-accept 1.5",
                                "--target-accept 0.9 --adapt false"}) {
    const auto r =
        run_cli("sample --seed 1 --n 100 --quiet " + bad + " --out " + dir.string(), dir);
    EXPECT_EQ(r.exit_code, 64) << bad;
    EXPECT_NE(r.err.find("--target-accept"), std::string::npos) << r.err;
  }
  // A sampler that does not adapt refuses a target rather than ignore it (a configuration error,
  // found when its kernel is built).
  const auto tuna = run_cli(
      "sample --model mixture-fastmh-2d --sampler tunamh --n 200 --iter 10 --warmup 10 --seed 1 "
      "--quiet --target-accept 0.9 --out " +
          dir.string(),
      dir);
  EXPECT_EQ(tuna.exit_code, 78);
  EXPECT_NE(tuna.err.find("--target-accept: sampler 'tunamh' does not adapt"), std::string::npos)
      << tuna.err;
  const auto depth =
      run_cli("sample --seed 1 --n 100 --quiet --max-depth 1000 --out " + dir.string(), dir);
  EXPECT_EQ(depth.exit_code, 64);
  EXPECT_NE(depth.err.find("--max-depth: got 1000"), std::string::npos) << depth.err;
  for (const std::string bad : {"--metric full", "--metric dense --adapt false",
                                "--metric dense --sampler dp-penalty --epsilon 1"}) {
    const auto r =
        run_cli("sample --seed 1 --n 100 --quiet " + bad + " --out " + dir.string(), dir);
    EXPECT_EQ(r.exit_code, 64) << bad;
    EXPECT_NE(r.err.find("--metric"), std::string::npos) << r.err;
  }
}

// A preset's recommended options (`dpmcmc models PRESET`, Preset::run_defaults) apply when the
// command line does not give them, and only to an adapted run: banana-tempered-2d recommends
// target 0.95 and 2000 draws for NUTS, banana-tempered-10d also a warmup of 2000, gauss-10d a
// dense metric.
TEST(CliAdapt, PresetRecommendationsApplyUnlessGiven) {
  const auto dir = scratch_dir("adapt-preset");
  const auto run_of = [&](const std::string& args, const std::string& name) {
    const auto r = run_cli(
        "sample --chains 1 --seed 2 --quiet " + args + " --out " + (dir / name).string(), dir);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(slurp(dir / name / "report.json"))["run"];
  };
  const std::string banana = "--model banana-tempered-2d --n 2000 ";
  json run = run_of(banana, "d");
  EXPECT_EQ(run["target_accept"], 0.95);
  EXPECT_EQ(run["samples"], 2000);
  EXPECT_EQ(run["warmup"], 1000);
  run = run_of(banana + "--target-accept 0.9 --iter 30 --warmup 40", "given");
  EXPECT_EQ(run["target_accept"], 0.9);
  EXPECT_EQ(run["samples"], 30);
  EXPECT_EQ(run["warmup"], 40);
  run = run_of(banana + "--adapt false --iter 30 --warmup 40", "fixed");
  EXPECT_TRUE(run["target_accept"].is_null());
  run = run_of(banana + "--sampler rwmh --warmup 40", "other");  // no recommendation for rwmh
  EXPECT_TRUE(run["target_accept"].is_null());
  EXPECT_EQ(run["samples"], 1000);
  // banana-tempered-10d recommends a longer warmup for NUTS.
  EXPECT_EQ(run_of("--model banana-tempered-10d --n 500 --iter 5", "warmup")["warmup"], 2000);
  const std::string gauss = "--model gauss-10d --n 500 --iter 20 --warmup 40 ";
  EXPECT_EQ(run_of(gauss, "dense")["metric"], "dense");
  EXPECT_EQ(run_of(gauss + "--metric diag", "diag")["metric"], "diag");
  EXPECT_EQ(run_of(gauss + "--adapt false", "gauss-fixed")["metric"], "diag");
  const auto models = run_cli("models banana-tempered-2d", dir);
  EXPECT_NE(models.out.find("sample options recommended"), std::string::npos) << models.out;
  EXPECT_NE(models.out.find("\"target_accept\":0.95"), std::string::npos) << models.out;
}

// --metric dense: the report holds the adapted covariance, symmetric, its diagonal the metric.
TEST(CliAdapt, DenseMetricIsReported) {
  const auto dir = scratch_dir("adapt-dense");
  const auto r = run_cli(
      "sample --model gauss-correlated-2d --sampler nuts --metric dense --chains 1 --iter 100 "
      "--warmup 200 --seed 3 --quiet --out " +
          (dir / "o").string(),
      dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json report = json::parse(slurp(dir / "o" / "report.json"));
  EXPECT_EQ(report["run"]["metric"], "dense");
  const json& a = report["chains"][0]["adaptation"];
  ASSERT_EQ(a["dense_metric"].size(), 2u);
  EXPECT_EQ(a["dense_metric"][0][1], a["dense_metric"][1][0]);
  EXPECT_EQ(a["dense_metric"][0][0], a["metric"][0]);
  EXPECT_EQ(a["dense_metric"][1][1], a["metric"][1]);
}

}  // namespace
}  // namespace dpmcmc::test
