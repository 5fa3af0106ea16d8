#include "run/draw_sink.hpp"

namespace dpmcmc {

const char* to_string(ChainStatus status) {
  switch (status) {
    case ChainStatus::completed:
      return "completed";
    case ChainStatus::interrupted:
      return "interrupted";
    case ChainStatus::budget_exhausted:
      return "budget_exhausted";
    case ChainStatus::failed:
      return "failed";
  }
  return "?";
}

}  // namespace dpmcmc
