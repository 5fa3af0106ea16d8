#include "run/csv_draw_sink.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <string_view>

#include "core/error.hpp"
#include "io/chain_files.hpp"

namespace dpmcmc {

namespace {

std::vector<std::size_t> all_of(std::size_t n) {
  std::vector<std::size_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = i;
  return v;
}

}  // namespace

CsvDrawSink::CsvDrawSink(std::filesystem::path path, StanCsvLayout layout)
    : CsvDrawSink(std::move(path), layout, all_of(layout.sampler_columns.size()),
                  layout.sampler_columns.size()) {}

CsvDrawSink::CsvDrawSink(std::filesystem::path path, StanCsvLayout layout,
                         std::vector<std::size_t> keep, std::size_t extras)
    : path_(std::move(path)), layout_(std::move(layout)), keep_(std::move(keep)), extras_(extras) {
  if (keep_.size() != layout_.sampler_columns.size()) {
    throw SoftwareError(fmt::format("CsvDrawSink: {} kept columns, {} names", keep_.size(),
                                    layout_.sampler_columns.size()));
  }
  for (const std::size_t k : keep_) {
    if (k >= extras_) throw SoftwareError("CsvDrawSink: a kept column is not a sampler column");
  }
  picked_.resize(keep_.size());
  // Open now, on the calling thread, so an unwritable output fails before any chain runs.
  writer_.emplace(path_, layout_);
  start_ = warmup_end_ = Clock::now();
}

void CsvDrawSink::header(const std::vector<std::string>& columns) {
  const std::size_t expected = 2 + extras_ + layout_.param_names.size();
  if (columns.size() != expected) {
    throw SoftwareError(
        fmt::format("CsvDrawSink: runner has {} columns, layout {}", columns.size(), expected));
  }
  start_ = warmup_end_ = Clock::now();
}

void CsvDrawSink::row(std::span<const double> values) {
  for (std::size_t i = 0; i < keep_.size(); ++i) picked_[i] = values[2 + keep_[i]];
  const std::span<const double> sampler(picked_);
  const auto params = values.subspan(2 + extras_);
  if (sampling_) {
    writer_->write_draw(values[0], values[1], sampler, params);
  } else {
    writer_->write_warmup_draw(values[0], values[1], sampler, params);
  }
}

void CsvDrawSink::end_warmup() {
  sampling_ = true;
  warmup_end_ = Clock::now();
}

void CsvDrawSink::finish(const ChainEnd& end) {
  const auto now = Clock::now();
  StanCsvTiming timing;
  if (sampling_) {
    timing.warmup_seconds = std::chrono::duration<double>(warmup_end_ - start_).count();
    timing.sampling_seconds = std::chrono::duration<double>(now - warmup_end_).count();
  } else {
    timing.warmup_seconds = std::chrono::duration<double>(now - start_).count();
  }
  if (end.status == ChainStatus::completed) {
    writer_->finish(timing);
    return;
  }
  const std::size_t total = end.warmup_planned + end.samples_planned;
  const std::size_t done = end.warmup_done + end.samples_done;
  std::string reason = to_string(end.status);
  if (!end.message.empty()) reason += ": " + end.message;
  writer_->finish_interrupted(done, total, reason, timing);
}

namespace {

// "chain-K.csv" or "chain-K.csv.part": the names the draw files of a run take.
bool is_chain_file_name(std::string_view name) {
  if (name.ends_with(".part")) name.remove_suffix(5);
  return chain_file_number(name).has_value();
}

}  // namespace

void remove_other_chain_files(const std::filesystem::path& dir,
                              const std::vector<std::filesystem::path>& keep) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<fs::path> stale;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const fs::path& path = entry.path();
    if (!is_chain_file_name(path.filename().string())) continue;
    const fs::path csv = path.extension() == ".part" ? fs::path(path).replace_extension() : path;
    const bool own = std::any_of(keep.begin(), keep.end(),
                                 [&](const fs::path& k) { return k.filename() == csv.filename(); });
    if (!own) stale.push_back(path);
  }
  for (const auto& path : stale) {
    if (!fs::remove(path, ec) && ec) {
      throw OutputError(fmt::format("{}: cannot delete this chain file of an earlier run: {}",
                                    path.string(), ec.message()));
    }
  }
}

}  // namespace dpmcmc
