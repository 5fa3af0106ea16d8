#include "run/open_files.hpp"

#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <string>

#include "core/error.hpp"

namespace dpmcmc {
namespace {

constexpr rlim_t kMargin = 64;

std::string limit_text(rlim_t limit) {
  return limit == RLIM_INFINITY ? std::string("unlimited") : fmt::format("{}", limit);
}

}  // namespace

void reserve_open_files(int chains) {
  rlimit limit{};
  if (chains < 1 || ::getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
  const rlim_t need = static_cast<rlim_t>(chains) * kOpenFilesPerChain + kMargin;
  if (limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur >= need) return;
  if (limit.rlim_max == RLIM_INFINITY || limit.rlim_max > limit.rlim_cur) {
    rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max == RLIM_INFINITY ? need : std::min(need, limit.rlim_max);
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  if (limit.rlim_cur >= need) return;
  const rlim_t fit = limit.rlim_cur > kMargin ? (limit.rlim_cur - kMargin) / kOpenFilesPerChain : 0;
  throw UsageError(fmt::format(
      "--chains: {} chains keep up to {} files open at once, but this process may open {} "
      "(`ulimit -n`; hard limit {}); give at most {} chains, or raise the limit",
      chains, static_cast<rlim_t>(chains) * kOpenFilesPerChain, limit_text(limit.rlim_cur),
      limit_text(limit.rlim_max), fit));
}

}  // namespace dpmcmc
