// Output callbacks of the chain runner (docs/architecture.md, Stan's callbacks): one DrawSink per
// chain receives the column names, the kept draws and the chain's end. The base class does nothing,
// so a sink overrides only what it needs; the CSV / JSON writers of io/ are adapted to it by the
// CLI. A sink is called from the worker thread running its chain only (never concurrently with
// itself), so it needs no locking unless it shares state with other sinks.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace dpmcmc {

enum class ChainStatus {
  completed,         // every planned iteration ran
  interrupted,       // stopped early by SIGINT, a stop request, or a failing sibling chain
  budget_exhausted,  // the kernel reported it could not release more (Kernel::exhausted())
  failed,            // this chain threw; the run rethrows the error after all chains stopped
};

// "completed", "interrupted", "budget_exhausted", "failed".
const char* to_string(ChainStatus status);

// How a chain ended, for the sink to mark its output complete or partial.
struct ChainEnd {
  int chain = 0;
  ChainStatus status = ChainStatus::completed;
  std::size_t warmup_planned = 0, samples_planned = 0;
  std::size_t warmup_done = 0, samples_done = 0;  // transitions completed in each phase
  std::size_t rows_written = 0;                   // rows passed to row(), warmup rows included
  double wall_seconds = 0.0;
  std::string message;  // the error of a failed chain, else empty
};

class DrawSink {
 public:
  virtual ~DrawSink() = default;
  // Once, before any row: lp__, accept_stat__, the kernel's extra columns, the parameter names.
  virtual void header(const std::vector<std::string>& /*columns*/) {}
  // One kept draw, one value per column. Warmup rows (only when RunConfig::save_warmup) come
  // before end_warmup(), sampling rows after it.
  virtual void row(std::span<const double> /*values*/) {}
  // Called once when the warmup phase is over (also when no warmup row was written); not called
  // if the chain stopped during warmup.
  virtual void end_warmup() {}
  // Called exactly once, last — also for an interrupted, exhausted or failed chain, whose output
  // must then be marked partial.
  virtual void finish(const ChainEnd& /*end*/) {}
};

}  // namespace dpmcmc
