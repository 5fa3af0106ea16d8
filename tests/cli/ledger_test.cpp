// The budget ledger end to end (issue #30): processes racing on one dataset, a run killed mid-way,
// bad ledger files, and what an untracked run says. Each test has its own ledger file (--ledger),
// never the user's.
#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "cli_runner.hpp"
#include "ledger/cross_run_spend.hpp"
#include "ledger/sqlite_db.hpp"
#include "privacy/event_json.hpp"

namespace dpmcmc::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// 20 000 rows of the correlated Gaussian preset: one dp-penalty run at ε = 1 takes a fraction of
// a second with the preset's τ, about 6 s with τ = 10.
fs::path make_data(const fs::path& dir) {
  const auto file = dir / "patients.csv";
  const auto r = run_cli(
      fmt::format("simulate --model gauss-correlated-2d --n 20000 --out {}", file.string()), dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return file;
}

std::string sample_args(const fs::path& data, const fs::path& ledger, const fs::path& out, int seed,
                        const std::string& extra = "") {
  return fmt::format(
      "sample --model gauss-correlated-2d --data {} --sampler dp-penalty --epsilon 1 --delta 1e-6 "
      "--chains 1 --seed {} --quiet --ledger {} --out {} {}",
      data.string(), seed, ledger.string(), out.string(), extra);
}

pid_t spawn(const std::string& args, const fs::path& log) {
  const pid_t pid = spawn_cli(args, log);
  EXPECT_GT(pid, 0);
  return pid;
}

int wait_exit(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

json export_ledger(const fs::path& ledger, const fs::path& dir) {
  const auto r = run_cli(fmt::format("ledger export --ledger {}", ledger.string()), dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(r.out);
}

// `dpmcmc ledger init` of `data` in `ledger` with budget (ε, 10⁻⁵).
CliResult register_data(const fs::path& ledger, const fs::path& data, double epsilon,
                        const fs::path& dir) {
  return run_cli(fmt::format("ledger init --ledger {} --data {} --epsilon {} --delta 1e-5",
                             ledger.string(), data.string(), epsilon),
                 dir);
}

bool has_draws(const fs::path& out) {
  return fs::exists(out / "chain-1.csv");
}

TEST(LedgerCli, EightRacingRunsOnABudgetForThreeRunExactlyThree) {
  const auto dir = scratch_dir("ledger-race");
  const auto data = make_data(dir);
  // Calibration in a ledger of its own: the events one run reserves, composed three and four
  // times at the dataset's δ; the budget lies halfway between.
  const auto calibration = dir / "calibration.sqlite";
  ASSERT_EQ(register_data(calibration, data, 10, dir).exit_code, 0);
  ASSERT_EQ(run_cli(sample_args(data, calibration, dir / "calibration", 1), dir).exit_code, 0);
  const json run = export_ledger(calibration, dir)["datasets"][0]["runs"][0];
  const RunSpend one{events_from_json(run["reserved_events"]),
                     run["discretisation_tv"].get<double>(), Budget{1.0, 1e-6}};
  const double three =
      compose_runs(std::vector<RunSpend>(3, one), Budget{10, 1e-5}, CompositionRule::gaussian)
          .epsilon;
  const double four =
      compose_runs(std::vector<RunSpend>(4, one), Budget{10, 1e-5}, CompositionRule::gaussian)
          .epsilon;
  ASSERT_LT(three, four);

  const auto ledger = dir / "ledger.sqlite";
  ASSERT_EQ(register_data(ledger, data, 0.5 * (three + four), dir).exit_code, 0);
  std::vector<pid_t> pids;
  for (int i = 0; i < 8; ++i) {
    pids.push_back(spawn(sample_args(data, ledger, dir / fmt::format("run-{}", i), 10 + i),
                         dir / fmt::format("log-{}.txt", i)));
  }
  int ran = 0, refused = 0;
  for (int i = 0; i < 8; ++i) {
    const int code = wait_exit(pids[static_cast<std::size_t>(i)]);
    const auto out = dir / fmt::format("run-{}", i);
    const std::string log = slurp(dir / fmt::format("log-{}.txt", i));
    if (code == 0) {
      ++ran;
      EXPECT_TRUE(has_draws(out)) << log;
    } else {
      ++refused;
      EXPECT_EQ(code, 77) << log;  // EX_NOPERM
      EXPECT_NE(log.find("refused before any release"), std::string::npos) << log;
      EXPECT_FALSE(has_draws(out)) << log;
      // "Exit 77 and no output": not even the directories the run had created.
      EXPECT_FALSE(fs::exists(out)) << log;
      EXPECT_FALSE(fs::exists(out.string() + ".curator")) << log;
    }
  }
  EXPECT_EQ(ran, 3);
  EXPECT_EQ(refused, 5);
  const json d = export_ledger(ledger, dir)["datasets"][0];
  EXPECT_EQ(d["runs"].size(), 3u);
  for (const auto& r : d["runs"]) EXPECT_EQ(r["status"], "completed");
  EXPECT_LE(d["spent"]["epsilon"].get<double>(), d["budget"]["epsilon"].get<double>());
}

// A refused run leaves nothing: not the --out directory nor its missing parents, not the curator
// directory, not the key file it would have created, and not a change to an earlier run's files
// under the same --out (their chain files stay, though the refused run had fewer chains).
TEST(LedgerCli, ARefusedRunLeavesNoDirectoryKeyOrDeletion) {
  const auto dir = scratch_dir("ledger-refused");
  const auto data = make_data(dir);
  const auto ledger = dir / "ledger.sqlite";
  ASSERT_EQ(register_data(ledger, data, 0.5, dir).exit_code, 0);  // less than one run's ε = 1
  const auto deep = dir / "a" / "b" / "run";
  const auto key = dir / "new.key";
  auto r = run_cli(sample_args(data, ledger, deep, 1, "--noise-key-file " + key.string()), dir);
  EXPECT_EQ(r.exit_code, 77) << r.err;
  EXPECT_FALSE(fs::exists(dir / "a")) << "a/b/run and a/b/run.curator and their parents";
  EXPECT_FALSE(fs::exists(key));
  // An earlier 3-chain run (not tracked: another ledger) and a refused 1-chain run on its --out.
  const auto out = dir / "earlier";
  const auto other = dir / "other.sqlite";
  ASSERT_EQ(register_data(other, data, 10, dir).exit_code, 0);
  std::string three_chains = sample_args(data, other, out, 2);
  three_chains.replace(three_chains.find("--chains 1"), 10, "--chains 3");
  r = run_cli(three_chains, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(fs::exists(out / "chain-3.csv"));
  r = run_cli(sample_args(data, ledger, out, 3), dir);
  EXPECT_EQ(r.exit_code, 77) << r.err;
  for (const char* f : {"chain-1.csv", "chain-2.csv", "chain-3.csv", "report.json"})
    EXPECT_TRUE(fs::exists(out / f)) << f;
}

// The same for dp-nss (release once, its own job): refused before its one release, it leaves no
// key file and no directory.
TEST(LedgerCli, ARefusedReleaseOnceRunLeavesNoDirectoryOrKey) {
  const auto dir = scratch_dir("ledger-refused-nss");
  const auto rows = dir / "patients.csv";
  const std::string source = DPMCMC_SOURCE_DIR;
  ASSERT_EQ(simulate_patients(rows, 200), 0);
  const auto ledger = dir / "ledger.sqlite";
  ASSERT_EQ(register_data(ledger, rows, 0.5, dir).exit_code, 0);  // less than the run's ε = 1
  const auto key = dir / "nss.key";
  const auto r = run_cli(
      fmt::format("sample --model logistic --schema {}/examples/patients/patients.json --data {} "
                  "--sampler dp-nss --epsilon 1 --chains 1 --quiet --ledger {} "
                  "--noise-key-file {} --out {}",
                  source, rows.string(), ledger.string(), key.string(),
                  (dir / "a" / "nss").string()),
      dir);
  EXPECT_EQ(r.exit_code, 77) << r.err;
  EXPECT_FALSE(fs::exists(key));
  EXPECT_FALSE(fs::exists(dir / "a")) << "a/nss and a/nss.curator and their parent";
}

TEST(LedgerCli, AKilledRunStaysReservedAndResumesOnItsReservation) {
  const auto dir = scratch_dir("ledger-kill");
  const auto data = make_data(dir);
  const auto ledger = dir / "ledger.sqlite";
  ASSERT_EQ(register_data(ledger, data, 5, dir).exit_code, 0);
  const auto out = dir / "run";
  const std::string key = (dir / "key.hex").string();
  const pid_t pid = spawn(
      sample_args(data, ledger, out, 1, "--tau 10 --checkpoint-every 500 --noise-key-file " + key),
      dir / "log.txt");
  // The reservation is in the ledger (and named in the checkpoint) before the first release.
  const auto reservation = fs::path(out.string() + ".curator") / "checkpoint" / "ledger.json";
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!fs::exists(reservation) && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the run finished before it was killed; make it longer";

  json d = export_ledger(ledger, dir)["datasets"][0];
  ASSERT_EQ(d["runs"].size(), 1u);
  EXPECT_EQ(d["runs"][0]["status"], "running");
  EXPECT_EQ(d["runs"][0]["counted"], "reservation");
  EXPECT_NE(d["runs"][0].value("note", "").find("ended without settling"), std::string::npos);
  const double reserved = d["spent"]["epsilon"].get<double>();
  EXPECT_GT(reserved, 0.5);
  const auto shown = run_cli(fmt::format("ledger show --ledger {}", ledger.string()), dir);
  EXPECT_NE(shown.out.find("ended without settling"), std::string::npos) << shown.out;

  // A fresh checkpointed run into the same --out that the budget refuses leaves the killed run's
  // checkpoint as it was: run.json and the name of its reservation, which the resumption needs.
  const auto checkpoint = fs::path(out.string() + ".curator") / "checkpoint";
  const std::string run_file = slurp(checkpoint / "run.json");
  const std::string named = slurp(reservation);
  const auto refused = run_cli(
      fmt::format("sample --model gauss-correlated-2d --data {} --sampler dp-penalty --epsilon 8 "
                  "--delta 1e-6 --chains 1 --seed 2 --quiet --ledger {} --out {} --tau 10 "
                  "--checkpoint-every 500 --noise-key-file {}",
                  data.string(), ledger.string(), out.string(), key),
      dir);
  EXPECT_EQ(refused.exit_code, 77) << refused.err;
  EXPECT_EQ(slurp(checkpoint / "run.json"), run_file);
  EXPECT_EQ(slurp(reservation), named);

  // Resumed: the same reservation, no second one; settled when it completes.
  const auto resumed =
      run_cli(fmt::format("sample --resume {} --noise-key-file {}", out.string(), key), dir);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  d = export_ledger(ledger, dir)["datasets"][0];
  ASSERT_EQ(d["runs"].size(), 1u);
  EXPECT_EQ(d["runs"][0]["status"], "completed");
  EXPECT_EQ(d["runs"][0]["counted"], "recorded");
  EXPECT_NEAR(d["spent"]["epsilon"].get<double>(), reserved, 1e-9 * reserved);
}

TEST(LedgerCli, CorruptAndLockedLedgersAreClearErrorsAndNothingIsReleased) {
  const auto dir = scratch_dir("ledger-bad");
  const auto data = make_data(dir);
  const auto corrupt = dir / "corrupt.sqlite";
  { std::ofstream(corrupt) << std::string(4096, 'x'); }
  auto r = run_cli(sample_args(data, corrupt, dir / "a", 1), dir);
  EXPECT_EQ(r.exit_code, 65) << r.err;
  EXPECT_NE(r.err.find(corrupt.string()), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("corrupt"), std::string::npos) << r.err;
  EXPECT_FALSE(has_draws(dir / "a"));
  r = run_cli(fmt::format("ledger show --ledger {}", corrupt.string()), dir);
  EXPECT_EQ(r.exit_code, 65) << r.err;

  r = run_cli(sample_args(data, dir / "missing.sqlite", dir / "b", 1), dir);
  EXPECT_EQ(r.exit_code, 66) << r.err;  // an explicit --ledger must exist
  EXPECT_FALSE(has_draws(dir / "b"));

  const auto ledger = dir / "ledger.sqlite";
  ASSERT_EQ(register_data(ledger, data, 5, dir).exit_code, 0);
  SqliteDb holder(ledger, false, 1000);
  holder.exec("BEGIN EXCLUSIVE");
  ::setenv("DPMCMC_LEDGER_BUSY_TIMEOUT", "0.5", 1);
  r = run_cli(sample_args(data, ledger, dir / "c", 1), dir);
  ::unsetenv("DPMCMC_LEDGER_BUSY_TIMEOUT");
  holder.exec("ROLLBACK");
  EXPECT_EQ(r.exit_code, 75) << r.err;  // EX_TEMPFAIL
  EXPECT_NE(r.err.find("locked"), std::string::npos) << r.err;
  EXPECT_FALSE(has_draws(dir / "c"));
  EXPECT_EQ(export_ledger(ledger, dir)["datasets"][0]["runs"].size(), 0u);
}

TEST(LedgerCli, ShuffledRowsAreTheSameDatasetAndUntrackedRunsSaySo) {
  const auto dir = scratch_dir("ledger-identity");
  const auto data = make_data(dir);
  const auto ledger = dir / "ledger.sqlite";
  ASSERT_EQ(register_data(ledger, data, 5, dir).exit_code, 0);
  // The same rows in reverse order and with a number rewritten: the same dataset.
  std::istringstream in(slurp(data));
  std::string header, line;
  std::getline(in, header);
  std::vector<std::string> rows;
  while (std::getline(in, line)) rows.push_back(line);
  {
    std::ofstream shuffled(dir / "shuffled.csv");
    shuffled << header << "\n";
    for (auto it = rows.rbegin(); it != rows.rend(); ++it) shuffled << *it << "\n";
  }
  auto r = register_data(ledger, dir / "shuffled.csv", 50, dir);
  EXPECT_EQ(r.exit_code, 78) << r.err;  // registered already: a budget is set once
  r = run_cli(sample_args(data.parent_path() / "shuffled.csv", ledger, dir / "a", 1), dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("budget across runs: run 1"), std::string::npos) << r.out;
  EXPECT_EQ(export_ledger(ledger, dir)["datasets"][0]["runs"].size(), 1u);
  const json curator = json::parse(slurp(dir / "a.curator" / "report.json"));
  EXPECT_TRUE(curator["budget_across_runs"]["tracked"].get<bool>());
  // The published report says nothing about the ledger (the hash is of the private rows).
  EXPECT_EQ(slurp(dir / "a" / "report.json")
                .find(curator["budget_across_runs"]["dataset"]["hash"].get<std::string>()),
            std::string::npos);

  // Another dataset (one row fewer) is not registered: the run goes ahead, untracked, and says so.
  {
    std::ofstream other(dir / "other.csv");
    other << header << "\n";
    for (std::size_t i = 1; i < rows.size(); ++i) other << rows[i] << "\n";
  }
  r = run_cli(sample_args(dir / "other.csv", ledger, dir / "b", 1), dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("not registered"), std::string::npos) << r.out;
  EXPECT_EQ(export_ledger(ledger, dir)["datasets"][0]["runs"].size(), 1u);
}

TEST(LedgerCli, ShowAndInitCheckTheirOptions) {
  const auto dir = scratch_dir("ledger-options");
  const auto data = make_data(dir);
  const auto ledger = dir / "ledger.sqlite";
  auto r = run_cli(
      fmt::format("ledger init --ledger {} --data {} --epsilon 5", ledger.string(), data.string()),
      dir);
  EXPECT_EQ(r.exit_code, 64) << r.err;
  EXPECT_NE(r.err.find("--delta"), std::string::npos) << r.err;
  r = run_cli(fmt::format("ledger init --ledger {} --data {} --epsilon -1 --delta 1e-5",
                          ledger.string(), data.string()),
              dir);
  EXPECT_EQ(r.exit_code, 64) << r.err;  // a bad option value, as `sample --epsilon -1`
  EXPECT_FALSE(fs::exists(ledger));
  const auto header_only = dir / "header.csv";
  std::ofstream(header_only) << "x.1,x.2\n";
  r = run_cli(fmt::format("ledger init --ledger {} --data {} --epsilon 5 --delta 1e-5",
                          ledger.string(), header_only.string()),
              dir);
  EXPECT_EQ(r.exit_code, 65) << r.err;  // as `sample` refuses it
  EXPECT_NE(r.err.find(header_only.string() + ": no data rows"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(ledger));
  r = run_cli(fmt::format("ledger show --ledger {} --epsilon 3", ledger.string()), dir);
  EXPECT_EQ(r.exit_code, 64) << r.err;
  r = run_cli(fmt::format("ledger show --ledger {}", ledger.string()), dir);
  EXPECT_EQ(r.exit_code, 66) << r.err;
  EXPECT_NE(r.err.find("ledger init"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace dpmcmc::test
