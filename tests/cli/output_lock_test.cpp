// One process at a time on an output directory (data/directory_lock.hpp), through the binary: while
// another process holds the directory's flock, `sample` and `experiment` are refused with exit 75
// and write nothing (no draws, no report, no curator directory, no results rows); once it is
// released the same command runs. The lock is taken here with flock(2) directly, not with the
// class under test, as a second dpmcmc process would hold it.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <fstream>

#include "cli_runner.hpp"

namespace dpmcmc::test {
namespace {

// Holds an exclusive flock on a directory for its lifetime, as a running dpmcmc would.
class HeldDirectory {
 public:
  explicit HeldDirectory(const std::filesystem::path& dir) {
    std::filesystem::create_directories(dir);
    fd_ = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd_ < 0 || ::flock(fd_, LOCK_EX | LOCK_NB) != 0) ADD_FAILURE() << "cannot lock " << dir;
  }
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
  for (const char* f : {"--out", "another dpmcmc process is writing this directory"})
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
  expect_busy(run_cli(cmd, dir));
  // The second runner's atomic rewrite of results.csv is what lost the first's rows.
  EXPECT_FALSE(std::filesystem::exists(out / "results.csv"));
  EXPECT_FALSE(std::filesystem::exists(out / "spec.json"));
  held.release();
  const auto ok = run_cli(cmd, dir);
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_TRUE(std::filesystem::exists(out / "results.csv"));
}

}  // namespace
}  // namespace dpmcmc::test
