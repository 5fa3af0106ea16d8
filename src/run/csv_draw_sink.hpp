// Adapts the runner's DrawSink callbacks to a Stan CSV file per chain (io/stan_csv_writer.hpp):
// splits each row into lp__, accept_stat__, sampler columns and parameters, times the two
// phases, and marks the file complete or partial when the chain ends.
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include "io/stan_csv_writer.hpp"
#include "run/draw_sink.hpp"

namespace dpmcmc {

class CsvDrawSink final : public DrawSink {
 public:
  // `layout` must list the kernel's sampler columns and the parameter names in the runner's
  // column order (lp__, accept_stat__, sampler columns, parameters).
  CsvDrawSink(std::filesystem::path path, StanCsvLayout layout);
  // Writes only the sampler columns at positions `keep` (0-based among the runner's `extras`
  // sampler columns, in order); layout.sampler_columns names them. A private run's published
  // draws keep the kernel's publishable columns only (Kernel::publishable_columns).
  CsvDrawSink(std::filesystem::path path, StanCsvLayout layout, std::vector<std::size_t> keep,
              std::size_t extras);

  void header(const std::vector<std::string>& columns) override;
  void row(std::span<const double> values) override;
  void end_warmup() override;
  void finish(const ChainEnd& end) override;

 private:
  using Clock = std::chrono::steady_clock;
  std::filesystem::path path_;
  StanCsvLayout layout_;
  std::vector<std::size_t> keep_;
  std::size_t extras_ = 0;
  std::vector<double> picked_;
  std::optional<StanCsvWriter> writer_;
  bool sampling_ = false;
  Clock::time_point start_, warmup_end_;
};

// Deletes every chain-K.csv and chain-K.csv.part in `dir` that is not one of `keep` (a fresh
// run's own files): a reused --out otherwise kept chain-5.csv of an earlier 8-chain run beside a
// new 4-chain run's files, and `summary DIR` or `plot DIR` read both as one run. The caller holds
// the directory's output lock. OutputError naming a file that cannot be deleted.
void remove_other_chain_files(const std::filesystem::path& dir,
                              const std::vector<std::filesystem::path>& keep);

}  // namespace dpmcmc
