#include "privacy/release_kind.hpp"

namespace dpmcmc {

std::string_view release_kind_name(ReleaseKind kind) {
  switch (kind) {
    case ReleaseKind::other:
      return "";
    case ReleaseKind::llr_sum:
      return "llr_sum";
    case ReleaseKind::grad_sum:
      return "grad_sum";
    case ReleaseKind::grad_batch:
      return "grad_batch";
    case ReleaseKind::llr_batch:
      return "llr_batch";
    case ReleaseKind::barker_test:
      return "barker_test";
    case ReleaseKind::fastmh:
      return "fastmh";
    case ReleaseKind::suff_stat:
      return "suff_stat";
  }
  return "";
}

std::optional<ReleaseKind> parse_release_kind(std::string_view name) {
  for (const ReleaseKind k : kReleaseKinds) {
    if (k != ReleaseKind::other && release_kind_name(k) == name) return k;
  }
  return std::nullopt;
}

}  // namespace dpmcmc
