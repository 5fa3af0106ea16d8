// The ledger's rules (ledger/ledger.hpp): registration, reservation against the budget across
// runs, what counts before and after a run settles, resumption, and bad ledger files.
#include "ledger/ledger.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <memory>

#include "core/error.hpp"

namespace dpmcmc {
namespace {

std::filesystem::path fresh(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("dpmcmc-ledger-test-" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir / "ledger.sqlite";
}

PrivacyEvent gaussian(double z, std::uint64_t count) {
  PrivacyEvent e;
  e.sensitivity = 1.0;
  e.noise_sd = z;
  e.relation = Neighbouring::substitute;
  e.count = count;
  e.kind = ReleaseKind::llr_sum;
  return e;
}

LedgerDataset dataset(double epsilon) {
  LedgerDataset d;
  d.hash = std::string(64, 'a');
  d.label = "patients";
  d.rows = 100;
  d.columns = 3;
  d.budget = {epsilon, 1e-5};
  return d;
}

Reservation plan(std::uint64_t count) {
  Reservation r;
  r.sampler = "dp-penalty";
  r.command = "dpmcmc sample …";
  r.budget = {1.0, 1e-6};
  r.events = {gaussian(10.0, count)};
  return r;
}

// ε of one reservation of `count` releases composed with itself `runs` times, by the ledger's
// own composition (the independent check of that composition is cross_run_spend_test.cpp).
double epsilon_of(std::uint64_t count, int runs) {
  std::vector<RunSpend> spends(static_cast<std::size_t>(runs),
                               RunSpend{{gaussian(10.0, count)}, 0.0, Budget{1.0, 1e-6}});
  return compose_runs(spends, Budget{10.0, 1e-5}, CompositionRule::gaussian).epsilon;
}

// A new ledger with one dataset whose budget lies between what two and three runs of plan(1000)
// compose to: two fit, the third does not.
std::pair<std::unique_ptr<Ledger>, LedgerDataset> two_run_budget(const std::string& name) {
  auto ledger = std::make_unique<Ledger>(fresh(name), true);
  const auto d = dataset(0.5 * (epsilon_of(1000, 2) + epsilon_of(1000, 3)));
  ledger->register_dataset(d);
  return {std::move(ledger), d};
}

TEST(Ledger, FileIsCreatedPrivate) {
  const auto path = fresh("mode");
  Ledger ledger(path, true);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600);
}

TEST(Ledger, RegistersADatasetOnce) {
  const auto path = fresh("register");
  Ledger ledger(path, true);
  ledger.register_dataset(dataset(3.0));
  const auto d = ledger.find_dataset(std::string(64, 'a'));
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->label, "patients");
  EXPECT_EQ(d->budget.epsilon, 3.0);
  EXPECT_THROW(ledger.register_dataset(dataset(30.0)), ConfigError);
  EXPECT_EQ(ledger.find_dataset(std::string(64, 'a'))->budget.epsilon, 3.0);
  EXPECT_FALSE(ledger.find_dataset(std::string(64, 'b')).has_value());
}

TEST(Ledger, RefusesTheRunThatWouldExceedTheBudget) {
  auto [owner, d] = two_run_budget("refuse");
  Ledger& ledger = *owner;
  EXPECT_GT(ledger.reserve(d.hash, plan(1000)).first, 0);
  EXPECT_GT(ledger.reserve(d.hash, plan(1000)).first, 0);
  try {
    ledger.reserve(d.hash, plan(1000));
    FAIL() << "the third run was reserved";
  } catch (const BudgetRefusal& e) {
    // δ is left here: the refusal does not blame the discrete noise.
    EXPECT_EQ(std::string(e.what()).find("total-variation"), std::string::npos) << e.what();
  }
  EXPECT_EQ(ledger.runs(d.hash).size(), 2u);  // the refused run left nothing
  EXPECT_NEAR(ledger.spent(d).epsilon, epsilon_of(1000, 2), 1e-9);
}

// A dataset ε so large that (1 + e^ε)·TV of the discrete noise exceeds δ leaves the Gaussian
// composition no δ: the refusal says so and names the basic rule (e^50 · 1e-21 ≈ 5.2 > 1e-5),
// while the same run fits a dataset of ε = 5 (e^5 · 1e-21 ≈ 1.5e-19).
TEST(Ledger, ADatasetEpsilonThatLeavesNoDeltaIsExplained) {
  Ledger ledger(fresh("no-delta"), true);
  const auto big = dataset(50.0);
  ledger.register_dataset(big);
  Reservation r = plan(10);
  r.discretisation_tv = 1e-21;
  try {
    ledger.reserve(big.hash, r);
    FAIL() << "reserved with no δ left";
  } catch (const BudgetRefusal& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("ε = ∞ (no δ left)"), std::string::npos) << what;
    EXPECT_NE(what.find("total-variation distance"), std::string::npos) << what;
    EXPECT_NE(what.find("5.18 at the dataset's ε = 50"), std::string::npos) << what;
    EXPECT_NE(what.find("--composition basic"), std::string::npos) << what;
  }
  EXPECT_TRUE(ledger.runs(big.hash).empty());
  auto small = dataset(5.0);
  small.hash = std::string(64, 'c');
  ledger.register_dataset(small);
  EXPECT_GT(ledger.reserve(small.hash, r).first, 0);
}

TEST(Ledger, ASettledRunCountsWhatItRecordedAnUnsettledOneItsReservation) {
  auto [owner, d] = two_run_budget("settle");
  Ledger& ledger = *owner;
  const auto [a, a_token] = ledger.reserve(d.hash, plan(1000));
  const auto [b, b_token] = ledger.reserve(d.hash, plan(1000));
  // Run a stopped after 10 of its 1000 releases, for good: it counts those 10 only.
  ledger.settle(a, a_token, LedgerRunStatus::stopped, {gaussian(10.0, 10)});
  EXPECT_GT(ledger.reserve(d.hash, plan(1000)).first, 0);
  // Run b stopped with a checkpoint: its reservation still counts in full.
  ledger.settle(b, b_token, LedgerRunStatus::resumable, {gaussian(10.0, 10)});
  // A settled run is not settled again, and a wrong token settles nothing.
  EXPECT_THROW(ledger.settle(a, a_token, LedgerRunStatus::completed, {}), ConfigError);
  const auto runs = ledger.runs(d.hash);
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].counted().front().count, 10u);
  EXPECT_EQ(runs[1].counted().front().count, 1000u);
  EXPECT_EQ(runs[2].status, LedgerRunStatus::running);
  EXPECT_THROW(ledger.reserve(d.hash, plan(1000)), BudgetRefusal);
}

TEST(Ledger, AResumedRunTakesBackItsOwnReservation) {
  const auto path = fresh("resume");
  Ledger ledger(path, true);
  auto d = dataset(50.0);
  ledger.register_dataset(d);
  const auto [id, token] = ledger.reserve(d.hash, plan(1000));
  // Running in this (live) process: not resumable by another.
  EXPECT_THROW(ledger.resume(id, token, d.hash), ConfigError);
  ledger.settle(id, token, LedgerRunStatus::resumable, {gaussian(10.0, 10)});
  EXPECT_THROW(ledger.resume(id, "not-the-token", d.hash), ConfigError);
  ledger.resume(id, token, d.hash);
  EXPECT_EQ(ledger.runs(d.hash)[0].status, LedgerRunStatus::running);
  EXPECT_EQ(ledger.runs(d.hash).size(), 1u);
  ledger.settle(id, token, LedgerRunStatus::completed, {gaussian(10.0, 1000)});
  EXPECT_THROW(ledger.resume(id, token, d.hash), ConfigError);      // completed
  EXPECT_THROW(ledger.resume(id + 1, token, d.hash), ConfigError);  // no such run
}

TEST(Ledger, JsonListsRunsAndMarksOnesWhoseProcessIsGone) {
  const auto path = fresh("json");
  Ledger ledger(path, true);
  auto d = dataset(50.0);
  ledger.register_dataset(d);
  ledger.reserve(d.hash, plan(1000));
  const auto j = ledger.to_json();
  ASSERT_EQ(j["datasets"].size(), 1u);
  const auto& run = j["datasets"][0]["runs"][0];
  EXPECT_EQ(run["status"], "running");
  EXPECT_EQ(run["counted"], "reservation");
  EXPECT_FALSE(run.contains("note"));  // this process is alive
  EXPECT_TRUE(process_alive(::getpid()));
  EXPECT_FALSE(process_alive(0));
}

TEST(Ledger, MissingCorruptAndForeignFilesAreClearErrors) {
  const auto path = fresh("bad");
  EXPECT_THROW(Ledger(path, false), NoInputError);
  { std::ofstream(path) << "this is not a database, it is a text file of some length\n"; }
  EXPECT_THROW(Ledger(path, false), DataError);
  EXPECT_THROW(Ledger(path, true), DataError);
  const auto other = path.parent_path() / "other.sqlite";
  {
    SqliteDb db(other, true, 1000);
    db.exec("CREATE TABLE t(x)");
  }
  EXPECT_THROW(Ledger(other, false), DataError);
  EXPECT_THROW(Ledger(other, true), DataError);  // another program's tables are not taken over
}

TEST(Ledger, ALockedLedgerIsBusyAfterTheTimeout) {
  const auto path = fresh("locked");
  {
    Ledger ledger(path, true);
    ledger.register_dataset(dataset(50.0));
  }
  SqliteDb holder(path, false, 1000);
  holder.exec("BEGIN EXCLUSIVE");
  ::setenv("DPMCMC_LEDGER_BUSY_TIMEOUT", "0.2", 1);
  try {
    Ledger ledger(path, false);
    ledger.reserve(std::string(64, 'a'), plan(10));
    ADD_FAILURE() << "reserved on a locked ledger";
  } catch (const BusyError& e) {
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
  }
  ::unsetenv("DPMCMC_LEDGER_BUSY_TIMEOUT");
  holder.exec("ROLLBACK");
}

TEST(Ledger, BusyTimeoutMustBeSeconds) {
  ::setenv("DPMCMC_LEDGER_BUSY_TIMEOUT", "soon", 1);
  EXPECT_THROW(Ledger::busy_timeout_ms(), UsageError);
  ::setenv("DPMCMC_LEDGER_BUSY_TIMEOUT", "1.5", 1);
  EXPECT_EQ(Ledger::busy_timeout_ms(), 1500);
  ::unsetenv("DPMCMC_LEDGER_BUSY_TIMEOUT");
  EXPECT_EQ(Ledger::busy_timeout_ms(), 60000);
}

}  // namespace
}  // namespace dpmcmc
