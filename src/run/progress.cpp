#include "run/progress.hpp"

#include <fmt/core.h>
#include <unistd.h>

namespace dpmcmc {

bool progress_enabled(ProgressMode mode, std::FILE* stream) {
  switch (mode) {
    case ProgressMode::always:
      return true;
    case ProgressMode::never:
      return false;
    case ProgressMode::automatic:
      return isatty(fileno(stream)) == 1;
  }
  return false;
}

ProgressLine::ProgressLine(std::FILE* stream, std::size_t planned, int chains)
    : stream_(stream),
      planned_(planned),
      chains_(chains),
      start_(std::chrono::steady_clock::now()) {}

void ProgressLine::draw(std::size_t done, int chains_finished, const char* suffix) {
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double percent = planned_ > 0 ? 100.0 * static_cast<double>(done) / planned_ : 100.0;
  // Trailing spaces erase the remains of a longer previous line.
  fmt::print(stream_, "\rdpmcmc: {}/{} iterations ({:.0f}%), {}/{} chains done, {:.1f} s{}   ",
             done, planned_, percent, chains_finished, chains_, seconds, suffix);
  std::fflush(stream_);
}

void ProgressLine::update(std::size_t done, int chains_finished) {
  draw(done, chains_finished, "");
}

void ProgressLine::finish(std::size_t done, int chains_finished, bool interrupted) {
  draw(done, chains_finished, interrupted ? " - interrupted" : "");
  fmt::print(stream_, "\n");
  std::fflush(stream_);
}

}  // namespace dpmcmc
