#include "run/curator_files.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"
#include "io/run_report.hpp"

namespace dpmcmc {

std::filesystem::path curator_dir(const std::filesystem::path& out_dir) {
  namespace fs = std::filesystem;
  fs::path dir = out_dir.lexically_normal();
  if (!dir.has_filename()) dir = dir.parent_path();  // "out/run/" → "out/run", "t/." → "t"
  // "." or ".." (or nothing) has no name of its own: "..curator" would be a hidden folder inside
  // the published directory. Name the directory by its absolute path instead.
  if (dir.empty() || dir.filename() == "." || dir.filename() == "..") {
    std::error_code ec;
    dir = fs::weakly_canonical(fs::absolute(out_dir), ec);
    if (ec) {
      throw OutputError(fmt::format("--out '{}': cannot resolve the directory: {}",
                                    out_dir.string(), ec.message()));
    }
    if (!dir.has_filename()) dir = dir.parent_path();
  }
  if (!dir.has_filename() || dir == dir.root_path()) {
    throw ConfigError(fmt::format(
        "--out '{}': the curator directory goes beside the output directory, so the output "
        "directory cannot be the file-system root",
        out_dir.string()));
  }
  dir += ".curator";
  return dir;
}

void prepare_curator_dir(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (!ec) std::filesystem::permissions(dir, std::filesystem::perms::owner_all, ec);
  if (ec) {
    throw OutputError(fmt::format("curator directory '{}': cannot create it with mode 0700: {}",
                                  dir.string(), ec.message()));
  }
}

NewOutputDirs::NewOutputDirs(const std::filesystem::path& out_dir) {
  // Each directory and its missing ancestors (--out a/b/c with no a/ creates three).
  for (const auto& dir : {out_dir, curator_dir(out_dir)}) {
    for (std::filesystem::path p = dir.lexically_normal();
         !p.empty() && !std::filesystem::exists(p); p = p.parent_path()) {
      if (p.filename().empty()) continue;  // "a/b/" normalises with a trailing separator
      missing_.push_back(p);
      if (p == p.parent_path()) break;
    }
  }
  // Children before their parents.
  std::sort(missing_.begin(), missing_.end(),
            [](const auto& a, const auto& b) { return a.native().size() > b.native().size(); });
}

void NewOutputDirs::remove_if_empty() const {
  std::error_code ignored;
  for (const auto& dir : missing_)
    std::filesystem::remove(dir, ignored);  // fails, harmlessly, on a directory not empty
}

void write_curator_json(const nlohmann::json& report, const std::filesystem::path& path) {
  // The label as the first member, on the first line; the rest as write_json lays it out
  // ("{\n  \"key\": …"), without its opening line.
  const std::string head = fmt::format("{{\"NOT_FOR_RELEASE\": \"{}\"", kCuratorLabel);
  if (!report.is_object() || report.empty()) {
    write_file_atomic(path, head + "}\n");
    return;
  }
  const std::string body = format_json(report);
  write_file_atomic(path, head + ",\n" + body.substr(body.find('\n') + 1));
}

CuratorColumnsSink::CuratorColumnsSink(std::filesystem::path path, std::vector<std::size_t> at,
                                       std::vector<std::string> names)
    : file_(std::move(path), AtomicFile::Options{".part", true, true}), at_(std::move(at)) {
  if (at_.size() != names.size()) throw SoftwareError("CuratorColumnsSink: columns and names");
  std::string header = "draw";
  for (const auto& n : names) header += "," + n;
  file_.write(fmt::format("# {}\n{}\n", kCuratorLabel, header));
}

void CuratorColumnsSink::row(std::span<const double> values) {
  line_ = fmt::format("{}", ++rows_);
  for (const std::size_t i : at_) fmt::format_to(std::back_inserter(line_), ",{}", values[2 + i]);
  line_ += '\n';
  file_.write(line_);
}

void CuratorColumnsSink::finish(const ChainEnd& end) {
  if (end.status != ChainStatus::completed) {
    file_.write(fmt::format("# dpmcmc: {} after {} of {} iterations\n", to_string(end.status),
                            end.warmup_done + end.samples_done,
                            end.warmup_planned + end.samples_planned));
  }
  file_.write(fmt::format("# wall seconds: {:.3f}\n", end.wall_seconds));
  file_.commit();
}

void TeeSink::header(const std::vector<std::string>& columns) {
  for (auto& s : sinks_) s->header(columns);
}
void TeeSink::row(std::span<const double> values) {
  for (auto& s : sinks_) s->row(values);
}
void TeeSink::end_warmup() {
  for (auto& s : sinks_) s->end_warmup();
}
void TeeSink::finish(const ChainEnd& end) {
  for (auto& s : sinks_) s->finish(end);
}

}  // namespace dpmcmc
