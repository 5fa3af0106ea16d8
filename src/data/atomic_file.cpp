#include "data/atomic_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "core/error.hpp"

namespace dpmcmc {

AtomicFile::AtomicFile(std::filesystem::path final_path, Options options)
    : final_path_(std::move(final_path)), keep_on_abandon_(options.keep_on_abandon) {
  if (final_path_.empty() || !final_path_.has_filename()) {
    throw OutputError("output path '" + final_path_.string() + "' does not name a file");
  }
  temp_path_ = final_path_;
  temp_path_ += options.temp_suffix;
  std::error_code ec;
  const auto parent = final_path_.parent_path();
  if (!parent.empty()) {
    std::filesystem::create_directories(parent, ec);
    if (ec) {
      throw OutputError("cannot create output directory '" + parent.string() + "' for '" +
                        final_path_.string() + "': " + ec.message());
    }
  }
  if (std::filesystem::is_directory(final_path_, ec)) {
    throw OutputError("output path '" + final_path_.string() + "' is a directory");
  }
  if (options.remove_stale_final) {
    std::filesystem::remove(final_path_, ec);
    if (ec) {
      throw OutputError("cannot remove the old output file '" + final_path_.string() +
                        "': " + ec.message());
    }
  }
  file_ = std::fopen(temp_path_.c_str(), "wb");
  if (!file_) fail("cannot open output file", errno);
  // A large buffer: the writers emit many short fields and flush explicitly when it matters.
  std::setvbuf(file_, nullptr, _IOFBF, 1 << 16);
}

AtomicFile::~AtomicFile() {
  if (file_) std::fclose(file_);
  if (!committed_ && !keep_on_abandon_) {
    std::error_code ec;
    std::filesystem::remove(temp_path_, ec);  // best effort: a destructor must not throw
  }
}

void AtomicFile::fail(const std::string& what, int error_number) const {
  throw OutputError(what + " '" + temp_path_.string() + "' (final name '" + final_path_.string() +
                    "'): " + std::strerror(error_number));
}

void AtomicFile::write(std::string_view bytes) {
  if (!file_)
    throw SoftwareError("AtomicFile::write after commit on '" + final_path_.string() + "'");
  if (bytes.empty()) return;
  if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) {
    fail("cannot write output file", errno);
  }
}

void AtomicFile::flush() {
  if (!file_) return;
  if (std::fflush(file_) != 0) fail("cannot write output file", errno);
}

void AtomicFile::commit() {
  if (committed_) return;
  if (!file_)
    throw SoftwareError("AtomicFile::commit on a closed file '" + final_path_.string() + "'");
  flush();
  if (::fsync(::fileno(file_)) != 0) fail("cannot sync output file", errno);
  std::FILE* file = file_;
  file_ = nullptr;
  if (std::fclose(file) != 0) fail("cannot close output file", errno);
  std::error_code ec;
  std::filesystem::rename(temp_path_, final_path_, ec);
  if (ec) fail("cannot rename output file", ec.value());
  committed_ = true;
}

void write_file_atomic(const std::filesystem::path& path, std::string_view contents) {
  AtomicFile file(path);
  file.write(contents);
  file.commit();
}

}  // namespace dpmcmc
