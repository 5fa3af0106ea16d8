#include "io/chain_files.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <utility>

#include "core/error.hpp"

namespace dpmcmc {

std::optional<std::size_t> chain_file_number(std::string_view name) {
  constexpr std::string_view prefix = "chain-", suffix = ".csv";
  if (!name.starts_with(prefix) || !name.ends_with(suffix)) return std::nullopt;
  name.remove_prefix(prefix.size());
  name.remove_suffix(suffix.size());
  if (name.empty() || !std::all_of(name.begin(), name.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) != 0;
      }))
    return std::nullopt;
  std::size_t k = 0;
  const auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), k);
  if (ec != std::errc() || end != name.data() + name.size()) return std::nullopt;
  return k;
}

std::vector<std::filesystem::path> run_chain_files(const std::filesystem::path& run) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(run, ec)) return {run};
  std::vector<std::pair<std::size_t, fs::path>> numbered;
  bool partial = false;
  for (const auto& entry : fs::directory_iterator(run, ec)) {
    const std::string name = entry.path().filename().string();
    if (const auto k = chain_file_number(name)) {
      numbered.emplace_back(*k, entry.path());
    } else if (name.ends_with(".part") && chain_file_number(name.substr(0, name.size() - 5))) {
      partial = true;
    }
  }
  if (ec) {
    throw NoInputError(
        fmt::format("{}: cannot list this directory: {}", run.string(), ec.message()));
  }
  if (numbered.empty()) {
    throw NoInputError(fmt::format(
        "{}: no chain-*.csv in this directory{} (expected the output directory of `dpmcmc "
        "sample`, or an experiment cell run without --no-draw-files)",
        run.string(),
        partial ? ", only chain-*.csv.part (a run still going, or stopped: `dpmcmc sample "
                  "--resume DIR` completes a checkpointed one)"
                : ""));
  }
  std::sort(numbered.begin(), numbered.end());
  std::vector<fs::path> files;
  for (auto& [k, path] : numbered) files.push_back(std::move(path));
  return files;
}

}  // namespace dpmcmc
