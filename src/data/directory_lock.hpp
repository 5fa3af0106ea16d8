// An advisory lock on an output directory, held while a run writes it, so that a second dpmcmc
// process writing the same directory is refused (BusyError, exit 75) instead of interleaving its
// files with the first's. Two `dpmcmc experiment` processes on one --out lost rows: each rewrites
// results.csv atomically when it starts, while the other goes on appending to the file the rename
// unlinked.
//
// The lock is flock(2) on the directory itself: nothing is added to the published output, and the
// kernel releases it when the process ends, so a crash leaves no stale lock. Within one process
// the same directory may be locked again (a release-once job runs a sampling job on its own
// directory): the inner lock shares the outer one.
#pragma once

#include <filesystem>
#include <string>

namespace dpmcmc {

class DirectoryLock {
 public:
  // Creates `dir` if it is missing and locks it. `option` names the command-line option that gave
  // the directory, for the error message. Throws BusyError when another process holds the lock and
  // OutputError when the directory cannot be created or opened. A file system without flock
  // support (ENOLCK, EOPNOTSUPP) runs unlocked: the lock is a guard against a user's mistake, not
  // a condition of correct output.
  DirectoryLock(const std::filesystem::path& dir, const std::string& option);
  ~DirectoryLock();
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;

 private:
  std::string key_;  // the directory's canonical path
};

}  // namespace dpmcmc
