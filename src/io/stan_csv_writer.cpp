#include "io/stan_csv_writer.hpp"

#include <iterator>
#include <set>

#include <fmt/format.h>

#include "core/error.hpp"

namespace dpmcmc {
namespace {

bool is_alpha_(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

bool valid_config_key(std::string_view key) {
  if (key.empty()) return false;
  for (char c : key) {
    if (!is_alpha_(c) && !is_digit(c) && c != '.') return false;
  }
  return true;
}

// [A-Za-z_][A-Za-z0-9_]* followed by zero or more ".<positive integer>": what ArviZ splits
// into a variable name and 1-based indices.
bool valid_param_name(std::string_view name) {
  const std::size_t dot = name.find('.');
  const std::string_view base = name.substr(0, dot);
  if (base.empty() || !is_alpha_(base.front()) || base.ends_with("__")) return false;
  for (char c : base) {
    if (!is_alpha_(c) && !is_digit(c)) return false;
  }
  if (dot == std::string_view::npos) return true;
  std::string_view rest = name.substr(dot + 1);
  for (;;) {
    const std::size_t next = rest.find('.');
    const std::string_view index = rest.substr(0, next);
    if (index.empty() || index.front() == '0') return false;
    for (char c : index) {
      if (!is_digit(c)) return false;
    }
    if (next == std::string_view::npos) return true;
    rest = rest.substr(next + 1);
  }
}

bool valid_sampler_column(std::string_view name) {
  if (name.size() < 3 || !name.ends_with("__") || !is_alpha_(name.front())) return false;
  for (char c : name) {
    if (!is_alpha_(c) && !is_digit(c)) return false;
  }
  return name != "lp__" && name != "accept_stat__";
}

std::string escape_value(std::string_view value) {
  std::string out;
  for (char c : value) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else {
      out += c;
    }
  }
  return out;
}

const std::filesystem::path& checked(const std::filesystem::path& path,
                                     const StanCsvLayout& layout) {
  const auto bad = [&](const std::string& what) {
    throw SoftwareError("Stan CSV writer for '" + path.string() + "': " + what);
  };
  if (layout.thin == 0) bad("thin must be at least 1");
  if (layout.save_warmup && layout.num_warmup % layout.thin != 0) {
    throw ConfigError(fmt::format(
        "with save_warmup, num_warmup ({}) must be a multiple of thin ({}), so that every Stan "
        "CSV reader splits warmup from sampling draws at the same row (writing '{}')",
        layout.num_warmup, layout.thin, path.string()));
  }
  static const std::set<std::string_view> reserved = {"num_samples", "num_warmup", "save_warmup",
                                                      "thin"};
  std::set<std::string_view> keys;
  for (const auto& [key, value] : layout.config) {
    if (!valid_config_key(key)) bad("configuration key '" + key + "' is not [A-Za-z0-9_.]+");
    if (reserved.count(key)) bad("configuration key '" + key + "' is set through the layout");
    if (!keys.insert(key).second) bad("configuration key '" + key + "' appears twice");
  }
  std::set<std::string_view> columns;
  for (const auto& name : layout.sampler_columns) {
    if (!valid_sampler_column(name)) {
      bad("sampler column '" + name +
          "' must be [A-Za-z_][A-Za-z0-9_]* ending in '__' and not lp__ or accept_stat__");
    }
    if (!columns.insert(name).second) bad("column '" + name + "' appears twice");
  }
  for (const auto& name : layout.param_names) {
    if (!valid_param_name(name)) {
      bad("parameter name '" + name +
          "' is not a Stan name: [A-Za-z_][A-Za-z0-9_]* (not ending in '__') with optional "
          "1-based indices such as '.1' or '.2.3'");
    }
    if (!columns.insert(name).second) bad("column '" + name + "' appears twice");
  }
  return path;
}

AtomicFile::Options part_file_options() {
  AtomicFile::Options options;
  options.temp_suffix = ".part";
  options.keep_on_abandon = true;
  options.remove_stale_final = true;
  return options;
}

}  // namespace

StanCsvWriter::StanCsvWriter(std::filesystem::path path, StanCsvLayout layout,
                             StanCsvOptions options)
    : file_(checked(path, layout), part_file_options()),
      layout_(std::move(layout)),
      options_(options),
      last_flush_(std::chrono::steady_clock::now()) {
  if (!layout_.save_warmup) phase_ = Phase::between;
  fmt::memory_buffer out;
  auto it = std::back_inserter(out);
  fmt::format_to(it, "# num_samples = {}\n", layout_.num_samples);
  fmt::format_to(it, "# num_warmup = {}\n", layout_.num_warmup);
  fmt::format_to(it, "# save_warmup = {}\n", layout_.save_warmup ? 1 : 0);
  fmt::format_to(it, "# thin = {}\n", layout_.thin);
  for (const auto& [key, value] : layout_.config) {
    fmt::format_to(it, "# {} = {}\n", key, escape_value(value));
  }
  fmt::format_to(it, "lp__,accept_stat__");
  for (const auto& name : layout_.sampler_columns) fmt::format_to(it, ",{}", name);
  for (const auto& name : layout_.param_names) fmt::format_to(it, ",{}", name);
  out.push_back('\n');
  file_.write(std::string_view(out.data(), out.size()));
  file_.flush();  // a reader of the .part file sees the header at once
}

StanCsvWriter::~StanCsvWriter() {
  if (phase_ == Phase::finished) return;
  try {
    file_.write(fmt::format(
        "# dpmcmc: ABORTED after {} warmup and {} sampling draws were written; the run failed "
        "(see its error message) and this file is incomplete\n",
        warmup_rows_, sampling_rows_));
    file_.flush();
  } catch (...) {
    // Best effort only: a destructor must not throw, and the .part name already says enough.
  }
}

void StanCsvWriter::write_row(double lp, double accept_stat, std::span<const double> sampler,
                              std::span<const double> params) {
  if (sampler.size() != layout_.sampler_columns.size() ||
      params.size() != layout_.param_names.size()) {
    throw SoftwareError(fmt::format(
        "Stan CSV writer for '{}': a draw has {} sampler and {} parameter values, the header "
        "has {} and {}",
        path().string(), sampler.size(), params.size(), layout_.sampler_columns.size(),
        layout_.param_names.size()));
  }
  row_.clear();
  auto it = std::back_inserter(row_);
  fmt::format_to(it, "{},{}", lp, accept_stat);
  for (double v : sampler) fmt::format_to(it, ",{}", v);
  for (double v : params) fmt::format_to(it, ",{}", v);
  row_.push_back('\n');
  file_.write(row_);
  ++rows_since_flush_;
  // Checking the clock costs tens of nanoseconds, far below formatting a row.
  const auto now = std::chrono::steady_clock::now();
  if (rows_since_flush_ >= options_.flush_every_draws ||
      std::chrono::duration<double>(now - last_flush_).count() >= options_.flush_interval_seconds) {
    file_.flush();
    rows_since_flush_ = 0;
    last_flush_ = now;
  }
}

void StanCsvWriter::write_warmup_draw(double lp, double accept_stat,
                                      std::span<const double> sampler,
                                      std::span<const double> params) {
  if (phase_ != Phase::warmup) {
    throw SoftwareError("Stan CSV writer for '" + path().string() +
                        "': a warmup draw after sampling began or without save_warmup");
  }
  write_row(lp, accept_stat, sampler, params);
  ++warmup_rows_;
}

void StanCsvWriter::end_warmup() {
  if (phase_ != Phase::warmup) return;
  // Readers count num_warmup / thin leading rows as warmup (thin divides num_warmup, checked
  // at construction): any other number would silently shift draws between the two groups.
  const std::size_t expected = layout_.num_warmup / layout_.thin;
  if (warmup_rows_ != expected) {
    throw SoftwareError(fmt::format(
        "Stan CSV writer for '{}': {} warmup draws were written, readers expect num_warmup / "
        "thin = {} / {} = {}",
        path().string(), warmup_rows_, layout_.num_warmup, layout_.thin, expected));
  }
  phase_ = Phase::between;
}

void StanCsvWriter::write_adaptation(const std::vector<std::string>& lines) {
  end_warmup();
  if (phase_ != Phase::between) {
    throw SoftwareError("Stan CSV writer for '" + path().string() +
                        "': adaptation comments after the first sampling draw (or twice)");
  }
  std::string text = "# Adaptation terminated\n";
  for (const auto& line : lines) text += "# " + escape_value(line) + "\n";
  file_.write(text);
  phase_ = Phase::sampling;  // once only: Stan writes one adaptation block
}

void StanCsvWriter::write_draw(double lp, double accept_stat, std::span<const double> sampler,
                               std::span<const double> params) {
  if (phase_ == Phase::finished) {
    throw SoftwareError("Stan CSV writer for '" + path().string() + "': a draw after finish");
  }
  end_warmup();
  phase_ = Phase::sampling;
  write_row(lp, accept_stat, sampler, params);
  ++sampling_rows_;
}

void StanCsvWriter::write_timing(const StanCsvTiming& timing) {
  if (!layout_.write_timing) return;
  // Stan's exact layout, which ArviZ parses into warmup/sampling/total_time_seconds.
  file_.write(
      fmt::format("# \n"
                  "#  Elapsed Time: {:.3f} seconds (Warm-up)\n"
                  "#                {:.3f} seconds (Sampling)\n"
                  "#                {:.3f} seconds (Total)\n"
                  "# \n",
                  timing.warmup_seconds, timing.sampling_seconds,
                  timing.warmup_seconds + timing.sampling_seconds));
}

void StanCsvWriter::close(const std::string& last_line) {
  if (phase_ == Phase::finished) {
    throw SoftwareError("Stan CSV writer for '" + path().string() + "': finished twice");
  }
  file_.write(last_line);
  file_.commit();
  phase_ = Phase::finished;
}

void StanCsvWriter::finish(const StanCsvTiming& timing) {
  write_timing(timing);
  const std::size_t total = layout_.num_warmup + layout_.num_samples;
  close(fmt::format("# dpmcmc: completed {} of {} iterations\n", total, total));
}

void StanCsvWriter::finish_interrupted(std::size_t iterations_done, std::size_t iterations_total,
                                       std::string_view reason, const StanCsvTiming& timing) {
  write_timing(timing);
  std::string why;
  if (!reason.empty()) why = fmt::format(" ({})", escape_value(reason));
  const char* what = (warmup_rows_ + sampling_rows_ == 0) ? "no draws were saved"
                                                          : "draws are a valid but partial chain";
  close(fmt::format("# dpmcmc: INTERRUPTED after {} of {} iterations{}; {}\n", iterations_done,
                    iterations_total, why, what));
}

}  // namespace dpmcmc
