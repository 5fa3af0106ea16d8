#include "run/interrupt.hpp"

#include <atomic>
#include <csignal>
#include <mutex>

namespace dpmcmc {

namespace {

// Written by the signal handler: must be a lock-free atomic to be async-signal-safe.
std::atomic<bool> g_interrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free);

std::mutex g_mutex;
int g_depth = 0;
struct sigaction g_previous;

extern "C" void on_sigint(int) {
  g_interrupted.store(true, std::memory_order_relaxed);
}

}  // namespace

InterruptGuard::InterruptGuard() {
  std::lock_guard lock(g_mutex);
  if (g_depth++ > 0) return;
  g_interrupted.store(false);
  struct sigaction action {};
  action.sa_handler = on_sigint;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;
  sigaction(SIGINT, &action, &g_previous);
}

InterruptGuard::~InterruptGuard() {
  std::lock_guard lock(g_mutex);
  if (--g_depth > 0) return;
  sigaction(SIGINT, &g_previous, nullptr);
}

bool interrupt_requested() {
  return g_interrupted.load(std::memory_order_relaxed);
}

}  // namespace dpmcmc
