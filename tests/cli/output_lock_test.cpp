// One process at a time on an output directory (data/directory_lock.hpp), through the binary: while
// another process holds the directory's flock, `sample` and `experiment` are refused with exit 75
// and write nothing (no draws, no report, no curator directory, no results rows); once it is
// released the same command runs. The lock is taken here with flock(2) directly, not with the
// class under test, as a second dpmcmc process would hold it.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <fmt/format.h>
#include <signal.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli_runner.hpp"

namespace dpmcmc::test {
namespace {

// Holds an exclusive flock on a directory for its lifetime, as a running dpmcmc would.
class HeldDirectory {
 public:
  explicit HeldDirectory(const std::filesystem::path& dir) {
    std::filesystem::create_directories(dir);
    fd_ = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd_ < 0 || ::flock(fd_, LOCK_EX | LOCK_NB) != 0) release();
  }
  bool held() const { return fd_ >= 0; }
  ~HeldDirectory() { release(); }
  HeldDirectory(const HeldDirectory&) = delete;
  HeldDirectory& operator=(const HeldDirectory&) = delete;
  void release() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

void expect_busy(const CliResult& r) {
  EXPECT_EQ(r.exit_code, 75) << r.err << r.out;
  for (const char* f : {"--out", "another dpmcmc run is writing this directory"})
    EXPECT_NE(r.err.find(f), std::string::npos) << f << "\n" << r.err;
}

TEST(CliOutputLock, PrivateSampleIsRefusedWhileAnotherProcessWritesItsOut) {
  const auto dir = scratch_dir("lock-sample");
  const auto out = dir / "o";
  const std::string cmd =
      "sample --model banana-flat-2d --sampler dp-penalty --epsilon 4 "
      "--chains 1 --seed 3 --quiet --out " +
      out.string();
  HeldDirectory held(out);
  ASSERT_TRUE(held.held());
  expect_busy(run_cli(cmd, dir));
  EXPECT_FALSE(std::filesystem::exists(out / "report.json"));
  EXPECT_FALSE(std::filesystem::exists(out / "chain-1.csv"));
  EXPECT_FALSE(std::filesystem::exists(dir / "o.curator")) << "released before refusing";
  held.release();
  const auto ok = run_cli(cmd, dir);
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_TRUE(std::filesystem::exists(out / "report.json"));
}

TEST(CliOutputLock, ExperimentIsRefusedWhileAnotherRunnerWritesItsOut) {
  const auto dir = scratch_dir("lock-experiment");
  std::ofstream(dir / "tiny.json") << R"({
    "name": "tiny", "models": ["banana-tempered-2d"], "samplers": ["rwmh"], "repeats": 1,
    "chains": 1, "n": 200, "iterations": {"warmup": 20, "samples": 20}, "seed": 5})";
  const auto out = dir / "out";
  const std::string cmd = "experiment " + (dir / "tiny.json").string() + " --out " + out.string();
  HeldDirectory held(out);
  ASSERT_TRUE(held.held());
  expect_busy(run_cli(cmd, dir));
  // The second runner's atomic rewrite of results.csv is what lost the first's rows.
  EXPECT_FALSE(std::filesystem::exists(out / "results.csv"));
  EXPECT_FALSE(std::filesystem::exists(out / "spec.json"));
  held.release();
  const auto ok = run_cli(cmd, dir);
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_TRUE(std::filesystem::exists(out / "results.csv"));
}

// On the caller's rows with a registered ledger and a key file: refused before the key file is
// created and before the ledger reserves anything; then the same command runs and is recorded.
// Both private paths: the chains' releases (dp-penalty) and the one release of dp-nss, whose
// chains' job locks the same directory again in the same thread.
TEST(CliOutputLock, ARefusedPrivateRunCreatesNoKeyAndReservesNothing) {
  const auto dir = scratch_dir("lock-ledger");
  std::ofstream(dir / "s.json") << R"({"columns": [
    {"name": "x", "role": "feature", "type": "real", "bounds": [-5, 5]},
    {"name": "y", "role": "target", "type": "real", "bounds": [-20, 20]}]})";
  {
    std::ofstream csv(dir / "d.csv");
    csv << "x,y\n";
    for (int i = 0; i < 400; ++i) csv << (i % 9) - 4 << "," << 0.5 * ((i * 7) % 13 - 6) << "\n";
  }
  const auto ledger = dir / "ledger.sqlite";
  const auto init =
      run_cli(fmt::format("ledger init --ledger {} --data {} --epsilon 10 --delta 1e-5",
                          ledger.string(), (dir / "d.csv").string()),
              dir);
  ASSERT_EQ(init.exit_code, 0) << init.err;
  int runs = 0;
  for (const char* sampler : {"dp-penalty", "dp-nss"}) {
    const auto out = dir / sampler;
    const auto key = dir / (std::string(sampler) + ".key");
    const std::string cmd = fmt::format(
        "sample --model linear --schema {} --data {} --sampler {} --epsilon 2 --delta 1e-7 "
        "--chains 1 "
        "--seed 4 --quiet --ledger {} --noise-key-file {} --out {}",
        (dir / "s.json").string(), (dir / "d.csv").string(), sampler, ledger.string(), key.string(),
        out.string());
    HeldDirectory held(out);
    ASSERT_TRUE(held.held());
    expect_busy(run_cli(cmd, dir));
    EXPECT_FALSE(std::filesystem::exists(key)) << sampler << ": key file created before refusing";
    EXPECT_FALSE(std::filesystem::exists(out.string() + ".curator")) << sampler;
    const auto after_refusal = run_cli("ledger export --ledger " + ledger.string(), dir);
    ASSERT_EQ(after_refusal.exit_code, 0) << after_refusal.err;
    EXPECT_EQ(nlohmann::json::parse(after_refusal.out)["datasets"][0]["runs"].size(),
              static_cast<std::size_t>(runs))
        << sampler << ": a refused run was reserved in the ledger";
    held.release();
    const auto ok = run_cli(cmd, dir);
    ASSERT_EQ(ok.exit_code, 0) << sampler << "\n" << ok.err;
    ++runs;
    const auto after_run = run_cli("ledger export --ledger " + ledger.string(), dir);
    EXPECT_EQ(nlohmann::json::parse(after_run.out)["datasets"][0]["runs"].size(),
              static_cast<std::size_t>(runs))
        << sampler;
  }
}

// A running dpmcmc holds its directory: while a long run writes draws, another owner cannot lock
// it; once the run is stopped (Ctrl-C, exit 130) the directory is free again.
TEST(CliOutputLock, ARunningSampleHoldsItsDirectoryUntilItEnds) {
  const auto dir = scratch_dir("lock-held");
  const auto out = dir / "o";
  const pid_t pid = spawn_cli(
      "sample --model banana-flat-2d --sampler rwmh --iter 100000000 --chains 1 --quiet --out " +
      out.string());
  ASSERT_GT(pid, 0);
  // The draws file appears once the run is past its checks and holds the lock.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!std::filesystem::exists(out / "chain-1.csv.part") &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_TRUE(std::filesystem::exists(out / "chain-1.csv.part"));
  EXPECT_FALSE(HeldDirectory(out).held()) << "the running sample does not hold its directory";
  ::kill(pid, SIGINT);
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 130) << status;
  EXPECT_TRUE(HeldDirectory(out).held()) << "the directory stayed locked after the run";
}

}  // namespace
}  // namespace dpmcmc::test
