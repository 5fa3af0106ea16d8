#include "data/file_bytes.hpp"

#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <system_error>

#include "core/error.hpp"

namespace dpmcmc {
namespace {

std::string quoted(const std::filesystem::path& path) {
  return "'" + path.string() + "'";
}

void check_is_readable_file(const std::filesystem::path& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(status)) {
    throw NoInputError("input file " + quoted(path) + " does not exist");
  }
  if (std::filesystem::is_directory(status)) {
    throw NoInputError("input file " + quoted(path) + " is a directory, expected a file");
  }
}

std::string read_plain(const std::filesystem::path& path) {
  struct Closer {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  std::unique_ptr<std::FILE, Closer> file(std::fopen(path.c_str(), "rb"));
  if (!file) {
    throw NoInputError("cannot open input file " + quoted(path) + ": " + std::strerror(errno));
  }
  // Read straight into the string, sized by the file size; the size is a hint only (the file
  // may be a pipe or grow while we read), so go on to the end of the file.
  std::string bytes;
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  std::size_t filled = 0;
  bytes.resize(ec ? std::size_t{1} << 16 : static_cast<std::size_t>(size) + 1);
  for (;;) {
    filled += std::fread(bytes.data() + filled, 1, bytes.size() - filled, file.get());
    if (filled < bytes.size()) {
      if (std::ferror(file.get())) {
        throw NoInputError("cannot read input file " + quoted(path) + ": " + std::strerror(errno));
      }
      break;
    }
    bytes.resize(bytes.size() * 2);
  }
  bytes.resize(filled);
  return bytes;
}

std::string read_gzip(const std::filesystem::path& path) {
  struct Closer {
    void operator()(gzFile_s* f) const { gzclose(f); }
  };
  std::unique_ptr<gzFile_s, Closer> file(gzopen(path.c_str(), "rb"));
  if (!file) {
    throw NoInputError("cannot open input file " + quoted(path) + ": " + std::strerror(errno));
  }
  gzbuffer(file.get(), 1 << 17);
  std::string bytes;
  char buffer[1 << 16];
  for (;;) {
    const int got = gzread(file.get(), buffer, sizeof buffer);
    if (got < 0) {
      int code = 0;
      const char* message = gzerror(file.get(), &code);
      if (code == Z_ERRNO) {
        throw NoInputError("cannot read input file " + quoted(path) + ": " + std::strerror(errno));
      }
      throw DataError("input file " + quoted(path) + " is not valid gzip data: " + message);
    }
    if (got == 0) break;
    bytes.append(buffer, static_cast<std::size_t>(got));
  }
  // gzread returns 0 both at a clean end and when the stream is truncated: tell them apart.
  int code = 0;
  const char* message = gzerror(file.get(), &code);
  if (code != Z_OK && code != Z_BUF_ERROR) {
    throw DataError("input file " + quoted(path) + " is not valid gzip data: " + message);
  }
  if (code == Z_BUF_ERROR) {
    throw DataError("input file " + quoted(path) +
                    " is truncated: the gzip stream ends before its end marker");
  }
  return bytes;
}

}  // namespace

std::string read_file_bytes(const std::filesystem::path& path) {
  check_is_readable_file(path);
  if (path.extension() == ".gz") return read_gzip(path);
  return read_plain(path);
}

}  // namespace dpmcmc
