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
           // A family's plan follows its schema, which account does not take: the message says
           // how to read the plan, and no longer names options account does not have.
           {"account --sampler dp-penalty --model logistic --epsilon 1", "made-up rows"}}) {
    const auto r = run_cli(args, dir);
    EXPECT_EQ(r.exit_code, 64) << args << ": " << r.err;  // every case is a bad option value
    EXPECT_NE(r.err.find(needle), std::string::npos) << args << ": " << r.err;
    EXPECT_EQ(r.err.find("give --schema"), std::string::npos) << args << ": " << r.err;
  }
}

}  // namespace
}  // namespace dpmcmc::test
