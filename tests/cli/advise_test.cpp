// `dpmcmc advise` and `sample --sampler auto` (run/sampler_advice.hpp): the ranking from public
// inputs only, the first choice run and reported; and advice that is true for the run it is
// given to: a private run is never told to pass --iter, which `sample` refuses for it.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

namespace dpmcmc::test {
namespace {

const std::string kPatients = std::string(DPMCMC_SOURCE_DIR) + "/examples/patients/patients.json";

TEST(CliAdvise, RanksFromTheSchemaAloneAndAutoRunsTheFirstChoice) {
  const auto dir = scratch_dir("advise");
  // No rows anywhere: advise reads the schema, n and the budget only.
  auto r = run_cli(
      "advise --model logistic --schema " + kPatients + " --n 20000 --epsilon 1 --json", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto advice = nlohmann::json::parse(r.out);
  ASSERT_GE(advice["samplers"].size(), 3u);
  EXPECT_EQ(advice["samplers"][0]["sampler"], "dp-nss");
  EXPECT_EQ(advice["samplers"][0]["verdict"], "recommended");
  for (const auto& [name, ratio] : advice["samplers"][0]["expected_sd_ratio"].items())
    EXPECT_GT(ratio.get<double>(), 1.0) << name;  // noise only widens
  EXPECT_EQ(advice["samplers"].back()["verdict"], "not recommended");
  // probit has no released statistic: dp-nss is not offered.
  r = run_cli("advise --model probit --schema " + kPatients + " --n 20000 --epsilon 1 --json", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // (the parsed document outlives the loop: a range-for over a temporary's member would not)
  const auto probit = nlohmann::json::parse(r.out);
  for (const auto& s : probit["samplers"]) EXPECT_NE(s["sampler"], "dp-nss");
  r = run_cli("advise --model logistic --schema " + kPatients + " --n 0 --epsilon 1", dir);
  EXPECT_EQ(r.exit_code, 64) << r.err;

  // auto: the first choice, said on stdout and in report.json; its own options apply (dp-nss
  // takes --iter).
  ASSERT_EQ(simulate_patients(dir / "d.csv", 3000), 0);
  r = run_cli("sample --model logistic --schema " + kPatients + " --data " +
                  (dir / "d.csv").string() +
                  " --sampler auto --epsilon 1 --iter 300 --warmup 300 "
                  "--seed 1 --quiet --out " +
                  (dir / "o").string(),
              dir);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("sampler auto: chose dp-nss"), std::string::npos) << r.out;
  const auto report = nlohmann::json::parse(slurp(dir / "o" / "report.json"));
  EXPECT_EQ(report["sampler"]["name"], "dp-nss");
  EXPECT_EQ(report["sampler"]["auto"]["chosen"], "dp-nss");
  EXPECT_FALSE(report["sampler"]["auto"]["reasons"].empty());
  // probit: dp-sgld, a private sampler whose budget sets its length: --iter is refused.
  r = run_cli("sample --model probit --schema " + kPatients + " --data " +
                  (dir / "d.csv").string() +
                  " --sampler auto --epsilon 1 --iter 300 --quiet "
                  "--out " +
                  (dir / "p").string(),
              dir);
  EXPECT_EQ(r.exit_code, 64) << r.err;
  EXPECT_NE(r.err.find("--iter: sampler 'dp-sgld' is private"), std::string::npos) << r.err;
  // auto chooses among the samplers of a regression on your data.
  r = run_cli("sample --model banana-flat-2d --sampler auto --epsilon 1 --quiet --out " +
                  (dir / "b").string(),
              dir);
  EXPECT_EQ(r.exit_code, 64) << r.err;
}

// linear with sigma sampled: the expected sd ratios assume sigma is a quarter of y's declared
// range, and advise says what a sigma 4× smaller gives: the noise's share r of √(1 + r²) grows
// as 1/sigma, so √(1 + 16 r²) from the largest printed ratio. On the calibration grid (y on ±8,
// sigma 1, n = 1e4, eps 1) the runs gave 4.5 where the ratio at the guess was 1.32.
TEST(CliAdvise, LinearSaysWhatASmallerSigmaDoesToTheRatio) {
  const auto dir = scratch_dir("advise-linear");
  std::ofstream(dir / "s.json") << R"({"columns": [
      {"name": "x", "role": "feature", "type": "real", "bounds": [-1, 1]},
      {"name": "y", "role": "target", "type": "real", "bounds": [-8, 8], "outside": "clip"}]})";
  const std::string schema = (dir / "s.json").string();
  auto r = run_cli(
      "advise --model linear --schema " + schema + " --n 10000 --epsilon 1 --delta 1e-5 --json",
      dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto advice = nlohmann::json::parse(r.out);
  const auto& nss = advice["samplers"][0];
  double hi = 0.0;
  for (const auto& [name, ratio] : nss["expected_sd_ratio"].items())
    hi = std::max(hi, ratio.get<double>());
  const double at_quarter = std::sqrt(1.0 + 16.0 * (hi * hi - 1.0));
  bool said = false;
  for (const auto& reason : nss["reasons"]) {
    const auto text = reason.get<std::string>();
    if (text.find("sigma unknown: these ratios take sigma = 4") == std::string::npos) continue;
    said = true;
    EXPECT_NE(text.find(fmt::format("at sigma = 1 the ratio is about {:.2g}", at_quarter)),
              std::string::npos)
        << text;
  }
  EXPECT_TRUE(said) << nss.dump();
  // A known sigma: nothing to say.
  r = run_cli("advise --model linear --sigma 1 --schema " + schema +
                  " --n 10000 --epsilon 1 --delta 1e-5 --json",
              dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("sigma unknown"), std::string::npos) << r.out;
}

TEST(CliAdvise, APrivateRunIsNeverToldToPassIter) {
  const auto dir = scratch_dir("advise-private");
  ASSERT_EQ(simulate_patients(dir / "d.csv", 300), 0);
  // dp-penalty on a user model hardly moves at ε = 0.2 (its chains disagree): the advice says
  // what the budget buys there (less noise per iteration), and never --iter.
  auto r = run_cli("sample --model logistic --schema " + kPatients + " --data " +
                       (dir / "d.csv").string() +
                       " --sampler dp-penalty --epsilon 0.2 --chains 2 --seed 2 --quiet --out " +
                       (dir / "o").string(),
                   dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto report = nlohmann::json::parse(slurp(dir / "o" / "report.json"));
  int mixing = 0;
  for (const auto& w : report["warnings"]) {
    const std::string check = w["check"], advice = w["advice"];
    if (check != "rhat" && !check.starts_with("ess_")) continue;
    ++mixing;
    EXPECT_EQ(advice.find("more iterations (--iter"), std::string::npos) << advice;
    EXPECT_NE(advice.find("less noise per iteration"), std::string::npos) << advice;
  }
  ASSERT_GT(mixing, 0) << r.out;
  // summary of the same files knows from their header that the run was private.
  r = run_cli("summary " + (dir / "o").string(), dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("more iterations (--iter"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the run was private (sampler dp-penalty)"), std::string::npos) << r.out;
}

// The penalty family's reach (run/penalty_reach.hpp) two ways: `advise` from the budget's μ
// alone, `account` from the noise and the iterations the planner actually gives the run. They
// agree within the discrete noise's share of δ (a few per cent), the travel does not depend on
// n, the draws grow as n and as 1/chains.
TEST(CliAdvise, APenaltysReachIsTheSameFromTheBudgetAndFromThePlan) {
  const auto dir = scratch_dir("advise-reach");
  const auto reach_of = [&](const std::string& args) {
    const auto r =
        run_cli("advise --model logistic --schema " + kPatients + " --json " + args, dir);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const auto advice = nlohmann::json::parse(r.out);
    for (const auto& s : advice["samplers"]) {
      if (s["sampler"] == "dp-penalty") return s["reach"];
    }
    ADD_FAILURE() << r.out;
    return nlohmann::json();
  };
  const auto small = reach_of("--n 2000 --epsilon 1 --delta 1e-5");
  const auto large = reach_of("--n 200000 --epsilon 1 --delta 1e-5");
  const auto one = reach_of("--n 2000 --epsilon 1 --delta 1e-5 --chains 1");
  EXPECT_DOUBLE_EQ(small["travel"].get<double>(), large["travel"].get<double>());
  EXPECT_NEAR(large["draws_per_chain"].get<double>() / small["draws_per_chain"].get<double>(),
              100.0, 1e-6);
  EXPECT_NEAR(one["draws_per_chain"].get<double>() / small["draws_per_chain"].get<double>(), 4.0,
              1e-6);
  EXPECT_LT(small["draws_per_chain"].get<double>(), 100.0);  // the patients' run that sticks
  const auto r = run_cli("account --model logistic --schema " + kPatients +
                             " --n 2000 --sampler dp-penalty --epsilon 1 --delta 1e-5 --json",
                         dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto planned = nlohmann::json::parse(r.out)["reach"];
  EXPECT_NEAR(planned["travel"].get<double>() / small["travel"].get<double>(), 1.0, 0.05)
      << planned.dump() << small.dump();
}

}  // namespace
}  // namespace dpmcmc::test
