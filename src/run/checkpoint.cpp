#include "run/checkpoint.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <system_error>

#include "core/error.hpp"
#include "data/atomic_file.hpp"

namespace dpmcmc {
namespace {

[[noreturn]] void write_failed(const std::filesystem::path& path, int error) {
  throw OutputError(
      fmt::format("{}: cannot write the checkpoint: {}", path.string(), std::strerror(error)));
}

nlohmann::json read_state(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw NoInputError(fmt::format("{}: cannot read the checkpoint", path.string()));
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw DataError(fmt::format("{}: not a checkpoint state ({})", path.string(), e.what()));
  }
}

}  // namespace

ChainCheckpoint::ChainCheckpoint(const CheckpointConfig& config, int chain_id, std::size_t columns)
    : config_(config),
      state_path_(config.dir / fmt::format("chain-{}.json", chain_id + 1)),
      rows_path_(config.dir / fmt::format("chain-{}.rows", chain_id + 1)),
      columns_(columns),
      last_(std::chrono::steady_clock::now()) {}

ChainCheckpoint::~ChainCheckpoint() {
  if (rows_ != nullptr) std::fclose(rows_);
}

std::optional<ChainCheckpoint::Saved> ChainCheckpoint::load() const {
  if (!config_.resume || !std::filesystem::exists(state_path_)) return std::nullopt;
  Saved saved;
  saved.state = read_state(state_path_);
  const auto& rows = saved.state.contains("rows") ? saved.state["rows"] : nlohmann::json();
  if (!rows.is_number_unsigned())
    throw DataError(fmt::format("{}: \"rows\" is missing or not a count", state_path_.string()));
  const auto count = rows.get<std::uint64_t>();
  std::error_code ec;
  const std::uint64_t have =
      std::filesystem::exists(rows_path_) ? std::filesystem::file_size(rows_path_, ec) : 0;
  const std::uint64_t row_bytes = columns_ * sizeof(double);
  // Compared as a row count: count · row_bytes could overflow.
  if (ec || count > have / row_bytes) {
    throw DataError(fmt::format("{}: holds {} bytes, the checkpoint names {} rows of {} values",
                                rows_path_.string(), have, count, columns_));
  }
  saved.rows.resize(static_cast<Eigen::Index>(count), static_cast<Eigen::Index>(columns_));
  std::ifstream in(rows_path_, std::ios::binary);
  // Rows are stored row by row; Mat is column-major, so read each row into a buffer.
  std::vector<double> row(columns_);
  for (Eigen::Index r = 0; r < saved.rows.rows(); ++r) {
    in.read(reinterpret_cast<char*>(row.data()), static_cast<std::streamsize>(row_bytes));
    if (!in) throw NoInputError(fmt::format("{}: cannot read the kept rows", rows_path_.string()));
    for (std::size_t c = 0; c < columns_; ++c) saved.rows(r, static_cast<Eigen::Index>(c)) = row[c];
  }
  return saved;
}

void ChainCheckpoint::begin(std::size_t rows) {
  std::error_code ec;
  std::filesystem::create_directories(config_.dir, ec);
  if (ec) write_failed(config_.dir, ec.value());
  if (rows > 0) {
    std::filesystem::resize_file(rows_path_, rows * columns_ * sizeof(double), ec);
    if (ec) write_failed(rows_path_, ec.value());
  }
  rows_ = std::fopen(rows_path_.c_str(), rows > 0 ? "ab" : "wb");
  if (rows_ == nullptr) write_failed(rows_path_, errno);
  last_ = std::chrono::steady_clock::now();
}

void ChainCheckpoint::append_row(std::span<const double> row) {
  if (rows_ == nullptr) throw SoftwareError("checkpoint: append_row() before begin()");
  if (std::fwrite(row.data(), sizeof(double), row.size(), rows_) != row.size())
    write_failed(rows_path_, errno);
}

bool ChainCheckpoint::due(std::size_t transitions) const {
  if (config_.every_iterations > 0) return transitions >= config_.every_iterations;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - last_).count() >=
         config_.every_seconds;
}

void ChainCheckpoint::save(const nlohmann::json& state) {
  if (rows_ == nullptr) throw SoftwareError("checkpoint: save() before begin()");
  // The rows first: the state must never name rows the file does not hold.
  if (std::fflush(rows_) != 0 || ::fsync(::fileno(rows_)) != 0) write_failed(rows_path_, errno);
  write_file_atomic(state_path_, state.dump());
  last_ = std::chrono::steady_clock::now();
}

void remove_checkpoint(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  if (ec) {
    throw OutputError(fmt::format("{}: cannot remove the finished run's checkpoint: {}",
                                  dir.string(), ec.message()));
  }
}

}  // namespace dpmcmc
