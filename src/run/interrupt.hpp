// Ctrl-C handling of a run: while an InterruptGuard lives, SIGINT only sets a flag that the
// chains poll once per iteration, so they stop cleanly and their output stays valid (marked
// partial). The handler is installed with SA_RESETHAND: a second Ctrl-C gets the default action
// and kills a run that does not stop. Guards nest (a counter); the last one restores the handler
// that was there before the first.
#pragma once

namespace dpmcmc {

class InterruptGuard {
 public:
  // Clears the flag, installs the handler (when this is the outermost guard).
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
};

// Whether SIGINT arrived since the outermost guard was installed.
bool interrupt_requested();

}  // namespace dpmcmc
