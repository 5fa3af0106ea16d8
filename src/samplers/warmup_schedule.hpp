// Stan's windowed warmup (Stan Reference Manual, "HMC algorithm parameters", automatic parameter
// tuning): an initial fast interval (75 iterations) where only the step size adapts, a series of
// slow windows (25 iterations, then doubling) at the end of each of which the metric is
// re-estimated from that window's draws, and a final fast interval (50 iterations) where the step
// size adapts to the last metric. A window that would leave too little room for the next one
// (less than twice its own length) is stretched to the end of the slow phase (from the second
// window on, as Stan does). When the warmup is
// too short for 75 + 25 + 50 iterations, the buffers are 15% and 10% of it and the one window the
// rest (Stan's rule).
#pragma once

#include <cstddef>
#include <vector>

namespace dpmcmc {

struct WarmupSchedule {
  std::size_t warmup = 0;
  std::size_t init_buffer = 0;  // first iteration of the first slow window (0-based)
  std::size_t term_buffer = 0;  // iterations after the last slow window
  // One past the last iteration of each slow window, increasing, the last = warmup − term_buffer.
  // Empty when the warmup is shorter than 20 iterations: the step size adapts, the metric does not.
  std::vector<std::size_t> window_ends;

  // Whether iteration i (0-based) falls in a slow window, whose draws estimate the metric.
  bool in_window(std::size_t i) const;
  // Whether iteration i is the last of a slow window (the metric is updated after it).
  bool ends_window(std::size_t i) const;
};

WarmupSchedule warmup_schedule(std::size_t warmup, std::size_t init_buffer = 75,
                               std::size_t term_buffer = 50, std::size_t base_window = 25);

}  // namespace dpmcmc
