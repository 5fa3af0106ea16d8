#include "core/noise_key.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

#include "core/error.hpp"

namespace dpmcmc {
namespace {

constexpr std::size_t kHexChars = 2 * NoiseKey::kBytes;

void ensure_sodium() {
  if (sodium_init() < 0) throw SoftwareError("libsodium failed to initialise");
}

// Closes the descriptor on every path out.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

std::string quoted(const std::filesystem::path& p) {
  return fmt::format("'{}'", p.string());
}

// The file's bytes, at most a little more than a key: a larger file is not a key file, and its
// content is never echoed (it may be a secret of another kind).
std::string read_small(int fd, const std::filesystem::path& path) {
  std::string text;
  char buf[256];
  for (;;) {
    const ssize_t got = ::read(fd, buf, sizeof buf);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw NoInputError(fmt::format("--noise-key-file {}: cannot read it: {}", quoted(path),
                                     std::strerror(errno)));
    }
    if (got == 0) break;
    text.append(buf, static_cast<std::size_t>(got));
    if (text.size() > kHexChars + 2) break;
  }
  sodium_memzero(buf, sizeof buf);
  return text;
}

}  // namespace

NoiseKey NoiseKey::fresh() {
  ensure_sodium();
  NoiseKey k;
  randombytes_buf(k.bytes_.data(), k.bytes_.size());
  k.source_ = Source::fresh;
  return k;
}

NoiseKey NoiseKey::from_bytes(const Bytes& bytes) {
  ensure_sodium();
  NoiseKey k;
  k.bytes_ = bytes;
  k.source_ = Source::given;
  return k;
}

NoiseKey NoiseKey::from_file(const std::filesystem::path& path, FilePolicy policy) {
  ensure_sodium();
  // Create first, exclusively: an existing key is never replaced, and two processes racing to
  // create the same file end up with one key (the loser reads the winner's file below).
  {
    Fd out{::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)};
    if (out.fd >= 0) {
      NoiseKey k = fresh();
      char hex[kHexChars + 1];
      sodium_bin2hex(hex, sizeof hex, k.bytes_.data(), k.bytes_.size());
      hex[kHexChars] = '\n';
      const bool ok = ::write(out.fd, hex, sizeof hex) == static_cast<ssize_t>(sizeof hex) &&
                      ::fsync(out.fd) == 0;
      sodium_memzero(hex, sizeof hex);
      if (!ok) {
        const std::string why = std::strerror(errno);
        ::unlink(path.c_str());
        throw OutputError(
            fmt::format("--noise-key-file {}: cannot write the new key: {}", quoted(path), why));
      }
      k.source_ = Source::file_created;
      return k;
    }
    if (errno != EEXIST) {
      throw OutputError(fmt::format(
          "--noise-key-file {}: cannot create it ({}); expected an existing key file or a path "
          "in an existing, writable directory",
          quoted(path), std::strerror(errno)));
    }
  }
  Fd in{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (in.fd < 0) {
    throw NoInputError(
        fmt::format("--noise-key-file {}: cannot open it: {}", quoted(path), std::strerror(errno)));
  }
  struct stat st {};
  if (::fstat(in.fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    throw ConfigError(fmt::format("--noise-key-file {}: expected a regular file", quoted(path)));
  }
  if (policy == FilePolicy::private_only && (st.st_mode & 077) != 0) {
    throw ConfigError(fmt::format(
        "--noise-key-file {}: the key file is readable or writable by group or others (mode "
        "{:04o}); a noise key must be private to the curator: chmod 600 {}",
        quoted(path), st.st_mode & 07777, path.string()));
  }
  std::string text = read_small(in.fd, path);
  std::string_view body(text);
  if (!body.empty() && body.back() == '\n') body.remove_suffix(1);
  if (!body.empty() && body.back() == '\r') body.remove_suffix(1);
  NoiseKey k;
  std::size_t decoded = 0;
  const char* end = nullptr;
  const bool hex_ok = body.size() == kHexChars &&
                      sodium_hex2bin(k.bytes_.data(), k.bytes_.size(), body.data(), body.size(),
                                     nullptr, &decoded, &end) == 0 &&
                      decoded == kBytes && end == body.data() + body.size();
  const std::size_t length = body.size();
  sodium_memzero(text.data(), text.size());
  if (!hex_ok) {
    throw ConfigError(fmt::format(
        "--noise-key-file {}: expected exactly 64 hexadecimal characters (a 256-bit key) and an "
        "optional newline; the file holds {} characters that are not such a key (delete it to "
        "have a new key created)",
        quoted(path), length));
  }
  k.source_ = Source::file_read;
  return k;
}

NoiseKey::NoiseKey(const NoiseKey& other) : bytes_(other.bytes_), source_(other.source_) {}

NoiseKey& NoiseKey::operator=(const NoiseKey& other) {
  bytes_ = other.bytes_;
  source_ = other.source_;
  return *this;
}

NoiseKey::~NoiseKey() {
  sodium_memzero(bytes_.data(), bytes_.size());
}

std::string NoiseKey::describe() const {
  switch (source_) {
    case Source::fresh:
      return "fresh from OS entropy, not stored";
    case Source::file_read:
      return "from the curator's key file, not published";
    case Source::file_created:
      return "new, saved to the curator's key file, not published";
    case Source::given:
      return "given by the calling program, not published";
  }
  return "unknown";
}

NoiseKey::Bytes NoiseKey::stream_key(std::uint64_t seed, std::uint64_t chain, std::uint64_t owner,
                                     Domain domain) const {
  // Both tags have the same length, so the messages of the two domains never coincide.
  static constexpr std::string_view kRun = "dpmcmc noise v2";
  static constexpr std::string_view kAudit = "dpmcmc audit v1";
  static_assert(kRun.size() == kAudit.size());
  const std::string_view kDomain = domain == Domain::run ? kRun : kAudit;
  unsigned char message[kRun.size() + 24];
  std::memcpy(message, kDomain.data(), kDomain.size());
  const std::uint64_t words[3] = {seed, chain, owner};
  for (int w = 0; w < 3; ++w) {
    for (int i = 0; i < 8; ++i) {
      message[kDomain.size() + 8 * w + i] = static_cast<unsigned char>(words[w] >> (8 * i));
    }
  }
  Bytes out{};
  crypto_generichash(out.data(), out.size(), message, sizeof message, bytes_.data(), bytes_.size());
  return out;
}

std::string NoiseKey::check_value() const {
  static constexpr std::string_view kDomain = "dpmcmc key check v1";
  unsigned char out[16];
  crypto_generichash(out, sizeof out, reinterpret_cast<const unsigned char*>(kDomain.data()),
                     kDomain.size(), bytes_.data(), bytes_.size());
  char hex[2 * sizeof out + 1];
  sodium_bin2hex(hex, sizeof hex, out, sizeof out);
  return hex;
}

}  // namespace dpmcmc
