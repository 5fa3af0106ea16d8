// `dpmcmc account --sampler` against the run it describes: for each of the 14 private samplers,
// the iterations a budget allows and their split among chains equal what `dpmcmc sample` then
// schedules (its report.json), and `--iterations K` for the K scheduled gives each accountant's
// planned ε of the report. Both commands build the template and plan through the same code
// (run/private_samplers.hpp, run/private_plan.hpp); this checks the command line wiring — the
// defaults of δ, n and the hyperparameters — that a user relies on when planning a run.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.hpp"
#include "private_cases.hpp"
#include "test_noise.hpp"

namespace dpmcmc::test {
namespace {

using nlohmann::json;

void compare(const PrivateCase& c) {
  SCOPED_TRACE(c.sampler);
  const auto dir = scratch_dir("account-" + c.sampler);
  // The leak scan's data and seeds, on which every case runs to the end.
  const auto data = dir / "data.csv";
  const auto sim =
      run_cli("simulate --model " + c.model + " --n 2000 --seed 4 --out " + data.string(), dir);
  ASSERT_EQ(sim.exit_code, 0) << sim.err;
  const std::string common =
      " --sampler " + c.sampler + " --model " + c.model + " " + c.extra + " --chains 2";
  const std::string epsilon = " --epsilon " + std::to_string(c.epsilon);
  const auto s = run_cli("sample" + common + " --data " + data.string() + epsilon +
                             " --seed 3 --quiet --noise-key-file " +
                             test_noise_key_file().string() + " --out " + (dir / "run").string(),
                         dir);
  ASSERT_EQ(s.exit_code, 0) << s.err;
  const json report = json::parse(slurp(dir / "run" / "report.json"))["privacy"];

  const auto a = run_cli("account" + common + " --n 2000" + epsilon + " --json", dir);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  const json plan = json::parse(a.out);
  EXPECT_EQ(plan["budget"]["delta"], report["budget"]["delta"]);
  EXPECT_EQ(plan["iterations_allowed"], report["iterations_allowed"]);
  EXPECT_EQ(plan["iterations_per_chain"], report["iterations_per_chain"]);
  EXPECT_EQ(plan["planned_by"], report["planned_by"]);
  EXPECT_EQ(plan["delta_discretisation"], report["delta_discretisation"]);

  const auto k = report["iterations_scheduled"].get<std::uint64_t>();
  const auto e =
      run_cli("account" + common + " --n 2000 --iterations " + std::to_string(k) + " --json", dir);
  ASSERT_EQ(e.exit_code, 0) << e.err;
  const json cost = json::parse(e.out);
  EXPECT_EQ(cost["delta_accountants"], report["delta_accountants"]);
  for (const auto& row : report["accountants"]) {
    if (!row.contains("planned_epsilon")) continue;
    bool found = false;
    for (const auto& r : cost["accountants"]) {
      if (r["accountant"] != row["accountant"] || !r["ok"].get<bool>()) continue;
      found = true;
      EXPECT_NEAR(r["epsilon"].get<double>(), row["planned_epsilon"].get<double>(),
                  1e-9 * row["planned_epsilon"].get<double>())
          << row["accountant"];
    }
    EXPECT_TRUE(found) << row["accountant"];
  }
}

TEST(CliAccountSampler, AnswersWhatSampleSchedulesForEveryPrivateSampler) {
  for (const auto& c : kPrivateCases) compare(c);
}

// A regression family from its schema and n alone (no rows): an iterated sampler's plan, whose
// noise follows the budget, and dp-nss's releases equal what `sample` then runs on rows of that
// count (the example patients, a logistic model).
TEST(CliAccountSampler, AnswersWhatSampleRunsForARegressionFamily) {
  const auto dir = scratch_dir("account-family");
  const auto data = dir / "patients.csv";
  ASSERT_EQ(simulate_patients(data, 3000), 0);
  const std::string schema = " --model logistic --schema " + std::string(DPMCMC_SOURCE_DIR) +
                             "/examples/patients/patients.json";
  for (const std::string sampler : {"dp-penalty", "dp-nss"}) {
    SCOPED_TRACE(sampler);
    const auto s =
        run_cli("sample --sampler " + sampler + schema + " --data " + data.string() +
                    " --epsilon 1 --seed 3 --quiet --noise-key-file " +
                    test_noise_key_file().string() + " --out " + (dir / sampler).string(),
                dir);
    ASSERT_EQ(s.exit_code, 0) << s.err;
    const json report = json::parse(slurp(dir / sampler / "report.json"))["privacy"];
    const auto a =
        run_cli("account --sampler " + sampler + schema + " --n 3000 --epsilon 1 --json", dir);
    ASSERT_EQ(a.exit_code, 0) << a.err;
    const json plan = json::parse(a.out);
    EXPECT_EQ(plan["budget"]["delta"], report["budget"]["delta"]);
    EXPECT_EQ(plan["planned_by"], report["planned_by"]);
    if (sampler == "dp-nss") {
      const json& once = report["release_once"];
      EXPECT_EQ(plan["noise_multiplier_final"], once["noise_multiplier"]);
      const auto pilots = once.contains("pilots") ? once["pilots"].size() : 0u;
      EXPECT_EQ(plan["pilot_releases"], pilots);
      if (pilots > 0) {
        EXPECT_EQ(plan["noise_multiplier_pilot"], once["pilots"][0]["noise_multiplier"]);
      }
      ASSERT_FALSE(plan["expected_sd_ratio"].empty());
      // ε per accountant of the planned releases, as the report's planned ε.
      for (const auto& row : report["accountants"]) {
        if (!row.contains("planned_epsilon")) continue;
        for (const auto& r : plan["accountants"]) {
          if (r["accountant"] != row["accountant"] || !r["ok"].get<bool>()) continue;
          EXPECT_NEAR(r["epsilon"].get<double>(), row["planned_epsilon"].get<double>(),
                      1e-9 * row["planned_epsilon"].get<double>());
        }
      }
    } else {
      EXPECT_EQ(plan["iterations_allowed"], report["iterations_allowed"]);
      EXPECT_EQ(plan["iterations_per_chain"], report["iterations_per_chain"]);
    }
  }
  // The noise of a family's iterated sampler follows the budget: --iterations alone has no
  // answer, and says why.
  const auto k =
      run_cli("account --sampler dp-penalty" + schema + " --n 3000 --iterations 10", dir);
  EXPECT_EQ(k.exit_code, 64) << k.err;
  EXPECT_NE(k.err.find("give --epsilon"), std::string::npos) << k.err;
}

TEST(CliAccountSampler, RefusesWhatItCannotAnswer) {
  const auto dir = scratch_dir("account-sampler-bad");
  for (const auto& [args, needle] : std::vector<std::pair<std::string, std::string>>{
           {"account --sampler hmc --epsilon 1", "not a private sampler"},
           {"account --sampler dp-penalty --epsilon 1 --iterations 10", "not both"},
           {"account --sampler dp-penalty", "--iterations"},
           {"account --sampler dp-penalty --epsilon 1 --step-size 0.1", "--step-size"},
           {"account --sampler dp-penalty --epsilon 1 --tau -1", "--tau"},
           {"account --sampler dp-penalty --epsilon 1 --chains 0", "--chains"},
           {"account --sampler dp-penalty --model nope --epsilon 1", "nope"},
           // A family's plan follows its schema and row count: both are asked for.
           {"account --sampler dp-penalty --model logistic --epsilon 1", "--n N"},
           {"account --sampler dp-nss --model banana-tempered-2d --epsilon 1", "--schema"}}) {
    const auto r = run_cli(args, dir);
    EXPECT_EQ(r.exit_code, 64) << args << ": " << r.err;  // every case is a bad option value
    EXPECT_NE(r.err.find(needle), std::string::npos) << args << ": " << r.err;
    EXPECT_EQ(r.err.find("give --schema"), std::string::npos) << args << ": " << r.err;
  }
}

}  // namespace
}  // namespace dpmcmc::test
