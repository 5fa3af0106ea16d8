#include "data/directory_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>

#include <fmt/format.h>

#include "core/error.hpp"

namespace dpmcmc {
namespace {

// The directories this process holds: flock(2) locks belong to an open file description, so a
// second open() of a directory this process has locked would be refused as if another process
// held it. One descriptor per directory, counted.
struct Held {
  int fd = -1;
  int count = 0;
};
std::mutex held_mutex;
std::map<std::string, Held>& held() {
  static std::map<std::string, Held> h;
  return h;
}

}  // namespace

DirectoryLock::DirectoryLock(const std::filesystem::path& dir, const std::string& option) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (!ec) key_ = fs::canonical(dir, ec).string();
  if (ec) {
    throw OutputError(fmt::format("{} '{}': cannot create the directory: {}", option, dir.string(),
                                  ec.message()));
  }
  const std::lock_guard guard(held_mutex);
  Held& h = held()[key_];
  if (h.count > 0) {
    ++h.count;
    return;
  }
  const int fd = ::open(key_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    held().erase(key_);
    throw OutputError(fmt::format("{} '{}': cannot open the directory: {}", option, dir.string(),
                                  std::strerror(e)));
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int e = errno;
    if (e == EWOULDBLOCK) {
      ::close(fd);
      held().erase(key_);
      throw BusyError(fmt::format(
          "{} '{}': another dpmcmc process is writing this directory; wait for it to finish or "
          "give another {} (two runs on one directory would interleave their files)",
          option, dir.string(), option));
    }
    if (e != ENOLCK && e != EOPNOTSUPP) {
      ::close(fd);
      held().erase(key_);
      throw OutputError(fmt::format("{} '{}': cannot lock the directory: {}", option, dir.string(),
                                    std::strerror(e)));
    }
  }
  h = Held{fd, 1};
}

DirectoryLock::~DirectoryLock() {
  const std::lock_guard guard(held_mutex);
  const auto it = held().find(key_);
  if (it == held().end() || --it->second.count > 0) return;
  ::close(it->second.fd);  // closing the last descriptor releases the flock
  held().erase(it);
}

}  // namespace dpmcmc
