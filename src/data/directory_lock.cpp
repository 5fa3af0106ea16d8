#include "data/directory_lock.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "core/error.hpp"

namespace dpmcmc {
namespace {

// The directories this process holds. flock(2) locks belong to an open file description, so a
// second open() of a directory this process has locked would be refused as if another process
// held it: one descriptor per directory, counted, and owned by the thread that took it.
struct Held {
  int fd = -1;  // -1: held without a kernel lock (a file system without flock)
  int count = 0;
  std::thread::id owner;
};

std::mutex& held_mutex() {
  static std::mutex m;
  return m;
}

std::map<std::string, Held>& held() {
  static std::map<std::string, Held> h;
  return h;
}

// fork() without exec: the child closes its copies of the descriptors (the parent's locks stay,
// held by the parent's copies) and forgets them. The mutex is taken across the fork so that the
// child does not inherit it locked by a thread that does not exist there.
void register_fork_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    ::pthread_atfork([] { held_mutex().lock(); }, [] { held_mutex().unlock(); },
                     [] {
                       for (const auto& [key, h] : held())
                         if (h.fd >= 0) ::close(h.fd);
                       held().clear();
                       held_mutex().unlock();
                     });
  });
}

BusyError busy(const std::filesystem::path& dir, const std::string& option) {
  // --out can be changed; --resume names the one directory the run can continue in.
  const std::string elsewhere = option == "--out" ? " or give another --out" : "";
  return BusyError(fmt::format(
      "{} '{}': another dpmcmc run is writing this directory; wait for it to finish{} (two runs "
      "on one directory would interleave their files)",
      option, dir.string(), elsewhere));
}

}  // namespace

DirectoryLock::DirectoryLock(const std::filesystem::path& dir, const std::string& option) {
  namespace fs = std::filesystem;
  register_fork_handlers();
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    throw OutputError(fmt::format("{} '{}': cannot create the directory: {}", option, dir.string(),
                                  ec.message()));
  }
  key_ = fs::canonical(dir, ec).string();
  if (ec) {
    throw OutputError(fmt::format("{} '{}': cannot resolve the directory: {}", option, dir.string(),
                                  ec.message()));
  }
  const std::lock_guard guard(held_mutex());
  if (const auto it = held().find(key_); it != held().end()) {
    if (it->second.owner != std::this_thread::get_id()) throw busy(dir, option);
    ++it->second.count;
    return;
  }
  const int fd = ::open(key_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    throw OutputError(fmt::format("{} '{}': cannot open the directory: {}", option, dir.string(),
                                  std::strerror(errno)));
  }
  int kept = fd;
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int e = errno;
    ::close(fd);
    if (e == EWOULDBLOCK) throw busy(dir, option);
    if (e != ENOLCK && e != EOPNOTSUPP && e != ENOSYS && e != EBADF) {
      throw OutputError(fmt::format("{} '{}': cannot lock the directory: {}", option, dir.string(),
                                    std::strerror(e)));
    }
    kept = -1;  // no kernel lock here; the registry still orders this process's threads
  }
  held()[key_] = Held{kept, 1, std::this_thread::get_id()};
}

DirectoryLock::~DirectoryLock() {
  const std::lock_guard guard(held_mutex());
  const auto it = held().find(key_);
  if (it == held().end() || --it->second.count > 0) return;
  if (it->second.fd >= 0) ::close(it->second.fd);  // closing the descriptor releases the flock
  held().erase(it);
}

}  // namespace dpmcmc
