// DirectoryLock (data/directory_lock.hpp): a directory another process has locked is refused, the
// lock is held against others while the object lives, nested locks in one process share one
// lock whatever the spelling of the path, and a path that cannot be a directory is an OutputError.
// "Another process" is a second open file description locked with flock(2) directly: the kernel
// treats it as a different owner, exactly as it treats another process.
#include "data/directory_lock.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <thread>

#include "core/error.hpp"
#include "temp_dir.hpp"

namespace dpmcmc {
namespace {

// An exclusive flock on `dir` through a descriptor of its own (another owner), or none if busy.
class RawLock {
 public:
  explicit RawLock(const std::filesystem::path& dir)
      : fd_(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {
    if (fd_ >= 0 && ::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~RawLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  RawLock(const RawLock&) = delete;
  RawLock& operator=(const RawLock&) = delete;
  bool held() const { return fd_ >= 0; }

 private:
  int fd_;
};

bool free_for_others(const std::filesystem::path& dir) {
  return RawLock(dir).held();
}

TEST(DirectoryLock, HeldAgainstOthersWhileItLives) {
  testing::TempDir tmp;
  const auto dir = tmp / "out" / "run";
  {
    const DirectoryLock lock(dir, "--out");  // creates the directory
    EXPECT_TRUE(std::filesystem::is_directory(dir));
    EXPECT_FALSE(free_for_others(dir));
    EXPECT_TRUE(free_for_others(tmp / "out")) << "the parent directory is not locked";
  }
  EXPECT_TRUE(free_for_others(dir));
}

TEST(DirectoryLock, ADirectoryAnotherOwnerHoldsIsBusy) {
  testing::TempDir tmp;
  const auto dir = tmp / "o";
  std::filesystem::create_directories(dir);
  const RawLock other(dir);
  ASSERT_TRUE(other.held());
  for (const auto& spelling : {dir, tmp / "." / "o" / ".." / "o"}) {
    try {
      const DirectoryLock lock(spelling, "--out");
      FAIL() << "locked a directory another owner holds: " << spelling;
    } catch (const BusyError& e) {
      EXPECT_EQ(e.code(), ExitCode::temp_fail);
      for (const char* f : {"--out", "another dpmcmc run"})
        EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << e.what();
    }
  }
}

TEST(DirectoryLock, NestedLocksInOneProcessShareTheOuterOne) {
  testing::TempDir tmp;
  const auto dir = tmp / "o";
  auto outer = std::make_unique<DirectoryLock>(dir, "--out");
  {
    // A second descriptor's flock would be refused as another owner's; the registry shares the
    // first, also under another spelling of the path.
    const DirectoryLock inner(tmp / "." / "o", "--out");
    EXPECT_FALSE(free_for_others(dir));
  }
  EXPECT_FALSE(free_for_others(dir)) << "the inner lock's end released the outer one";
  outer.reset();
  EXPECT_TRUE(free_for_others(dir));
  const DirectoryLock again(dir, "--out");  // a fresh lock once all were released
  EXPECT_FALSE(free_for_others(dir));
}

TEST(DirectoryLock, APathThatIsAFileIsAnOutputError) {
  testing::TempDir tmp;
  std::ofstream(tmp / "f") << "x";
  try {
    const DirectoryLock lock(tmp / "f", "--out");
    FAIL() << "locked a file";
  } catch (const OutputError& e) {
    EXPECT_NE(std::string(e.what()).find("--out"), std::string::npos) << e.what();
  }
}

TEST(DirectoryLock, AnotherThreadOfThisProcessIsBusy) {
  // Two library callers (Python threads) writing one directory: the second is refused, though the
  // process already holds the kernel's lock.
  testing::TempDir tmp;
  const auto dir = tmp / "o";
  const DirectoryLock lock(dir, "--out");
  bool busy = false;
  std::thread other([&] {
    try {
      const DirectoryLock second(dir, "--out");
    } catch (const BusyError&) {
      busy = true;
    }
  });
  other.join();
  EXPECT_TRUE(busy);
  std::thread elsewhere([&] { const DirectoryLock free_one(tmp / "p", "--out"); });
  elsewhere.join();  // another directory: no conflict (threw nothing)
}

TEST(DirectoryLock, AForkedChildDoesNotKeepTheParentsLock) {
  // A worker forked during a run (a Python multiprocessing pool) must not hold the directory after
  // the run: the child closes its copies of the descriptors.
  testing::TempDir tmp;
  const auto dir = tmp / "o";
  int to_child[2], from_child[2];
  ASSERT_EQ(::pipe(to_child), 0);
  ASSERT_EQ(::pipe(from_child), 0);
  auto lock = std::make_unique<DirectoryLock>(dir, "--out");
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(to_child[1]);
    // fork() has returned here, so the child's fork handler has run: tell the parent.
    [[maybe_unused]] const auto w = ::write(from_child[1], "r", 1);
    char c;
    [[maybe_unused]] const auto n = ::read(to_child[0], &c, 1);  // wait for the parent's checks
    ::_exit(0);
  }
  ::close(to_child[0]);
  char ready;
  ASSERT_EQ(::read(from_child[0], &ready, 1), 1);
  EXPECT_FALSE(free_for_others(dir));  // the parent still holds it
  lock.reset();
  EXPECT_TRUE(free_for_others(dir)) << "the forked child kept the lock";
  [[maybe_unused]] const auto n = ::write(to_child[1], "x", 1);
  ::close(to_child[1]);
  ::close(from_child[0]);
  ::close(from_child[1]);
  int status = 0;
  ::waitpid(pid, &status, 0);
}

}  // namespace
}  // namespace dpmcmc
