// The progress line of a run on stderr: total iterations done over planned, chains finished,
// elapsed time. Drawn only when asked (ProgressMode), by default only when stderr is a terminal,
// so logs and pipes stay clean.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdio>

#include "run/run_config.hpp"

namespace dpmcmc {

// Whether `mode` asks for a display on `stream` (automatic: isatty(fileno(stream))).
bool progress_enabled(ProgressMode mode, std::FILE* stream = stderr);

class ProgressLine {
 public:
  ProgressLine(std::FILE* stream, std::size_t planned, int chains);
  // Redraws the line in place (carriage return, no newline).
  void update(std::size_t done, int chains_finished);
  // Draws the final state and ends the line.
  void finish(std::size_t done, int chains_finished, bool interrupted);

 private:
  void draw(std::size_t done, int chains_finished, const char* suffix);
  std::FILE* stream_;
  std::size_t planned_;
  int chains_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace dpmcmc
