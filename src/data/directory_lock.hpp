// An advisory lock on an output directory, held while a run writes it, so that a second dpmcmc run
// writing the same directory is refused (BusyError, exit 75) instead of interleaving its files
// with the first's. Two `dpmcmc experiment` processes on one --out lost rows: each rewrites
// results.csv atomically when it starts, while the other goes on appending to the file the rename
// unlinked.
//
// The lock is flock(2) on the directory itself: nothing is added to the published output, and the
// kernel releases it when the process ends, so a crash leaves no stale lock. Within one process a
// registry of held directories does the same between threads (two library callers writing one
// directory at once), and lets the thread holding a directory lock it again (a release-once job
// runs a sampling job on its own directory). A child made by fork() without exec drops the
// parent's locks (a pthread_atfork handler closes its copies of the descriptors), so a worker pool
// forked during a run does not keep the directory locked after the run.
#pragma once

#include <filesystem>
#include <string>

namespace dpmcmc {

class DirectoryLock {
 public:
  // Creates `dir` if it is missing and locks it. `option` names the command-line option that gave
  // the directory (--out, --resume), for the error message. Throws BusyError when another process
  // or another thread of this one holds the lock, and OutputError when the directory cannot be
  // created or opened. A file system without flock support (ENOLCK, EOPNOTSUPP, ENOSYS; EBADF
  // from NFS, which emulates flock with byte-range locks that need a descriptor open for writing)
  // runs unlocked: the lock guards against a user's mistake, it is not a condition of correct
  // output.
  DirectoryLock(const std::filesystem::path& dir, const std::string& option);
  ~DirectoryLock();
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;

 private:
  std::string key_;  // the directory's canonical path
};

}  // namespace dpmcmc
