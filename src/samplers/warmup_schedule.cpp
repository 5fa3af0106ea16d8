#include "samplers/warmup_schedule.hpp"

#include <algorithm>

namespace dpmcmc {

bool WarmupSchedule::in_window(std::size_t i) const {
  return !window_ends.empty() && i >= init_buffer && i < window_ends.back();
}

bool WarmupSchedule::ends_window(std::size_t i) const {
  return std::binary_search(window_ends.begin(), window_ends.end(), i + 1);
}

WarmupSchedule warmup_schedule(std::size_t warmup, std::size_t init_buffer, std::size_t term_buffer,
                               std::size_t base_window) {
  WarmupSchedule s;
  s.warmup = warmup;
  if (warmup < 20) {
    s.init_buffer = warmup;
    return s;
  }
  if (init_buffer + term_buffer + base_window > warmup) {
    init_buffer = warmup * 15 / 100;
    term_buffer = warmup / 10;
    base_window = warmup - init_buffer - term_buffer;
  }
  s.init_buffer = init_buffer;
  s.term_buffer = term_buffer;
  const std::size_t slow_end = warmup - term_buffer;
  std::size_t start = init_buffer, size = base_window;
  while (start < slow_end) {
    std::size_t end = start + size;
    // No room for the next window: stretch to the end of the slow phase (Stan checks this from
    // the second window on; the first always ends at init_buffer + base_window).
    if (start != init_buffer && end + 2 * size > slow_end) end = slow_end;
    s.window_ends.push_back(end);
    start = end;
    size *= 2;
  }
  return s;
}

}  // namespace dpmcmc
