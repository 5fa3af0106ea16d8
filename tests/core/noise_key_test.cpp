#include "core/noise_key.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "test_noise.hpp"

namespace dpmcmc {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / "dpmcmc-noise-key-test";
  fs::create_directories(dir);
  const fs::path p = dir / name;
  fs::remove(p);
  return p;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string hex_of(const NoiseKey::Bytes& b) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (const unsigned char c : b) {
    s += digits[c >> 4];
    s += digits[c & 15];
  }
  return s;
}

// Known answer, computed independently with Python's hashlib:
//   blake2b(b"dpmcmc noise v2" + struct.pack("<QQQ", 1, 2, 3), key=bytes((7i+1) % 256 for i in
//   range(32)), digest_size=32)
TEST(NoiseKey, StreamKeyIsTheKeyedBlake2bOfSeedChainOwner) {
  EXPECT_EQ(hex_of(test_noise_key().stream_key(1, 2, 3)),
            "0d83aa2e311120e5f2573eca4f28fd97bf996921694b90fb7d206938bbd9a3a2");
  EXPECT_NE(test_noise_key().stream_key(1, 2, 3), test_noise_key().stream_key(1, 2, 4));
  EXPECT_NE(test_noise_key().stream_key(1, 2, 3), test_noise_key().stream_key(2, 2, 3));
}

TEST(NoiseKey, FreshKeysDiffer) {
  EXPECT_NE(NoiseKey::fresh().stream_key(1, 0, 0), NoiseKey::fresh().stream_key(1, 0, 0));
  EXPECT_EQ(NoiseKey::fresh().source(), NoiseKey::Source::fresh);
}

TEST(NoiseKey, FileIsCreatedPrivateAndReadBack) {
  const fs::path p = scratch("created.key");
  const NoiseKey created = NoiseKey::from_file(p);
  EXPECT_EQ(created.source(), NoiseKey::Source::file_created);
  struct stat st {};
  ASSERT_EQ(::stat(p.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  const std::string text = slurp(p);
  ASSERT_EQ(text.size(), 65u);
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(text.find_first_not_of("0123456789abcdef"), 64u);

  const NoiseKey read = NoiseKey::from_file(p);
  EXPECT_EQ(read.source(), NoiseKey::Source::file_read);
  EXPECT_EQ(read.stream_key(5, 1, 0), created.stream_key(5, 1, 0));
  // The same stream, word for word.
  NoiseRng a = make_noise_rng(created, 5, 1), b = make_noise_rng(read, 5, 1);
  for (int i = 0; i < 200; ++i) ASSERT_EQ(a.bits(), b.bits());
  // What the reports say names no key.
  EXPECT_EQ(read.describe().find(text.substr(0, 8)), std::string::npos);
}

TEST(NoiseKey, KeyReadableByOthersIsRefusedUnlessPublicAllowed) {
  const fs::path p = scratch("shared.key");
  { std::ofstream(p) << std::string(64, 'a') << "\n"; }
  fs::permissions(p, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                         fs::perms::others_read);
  try {
    NoiseKey::from_file(p);
    FAIL() << "a world-readable key file was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("chmod 600"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("0644"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(NoiseKey::from_file(p, NoiseKey::FilePolicy::public_allowed));
}

TEST(NoiseKey, MalformedKeyFileIsRefusedWithoutEchoingIt) {
  for (const std::string& content :
       {std::string("not a key\n"), std::string(63, 'a'), std::string(65, 'a'),
        std::string(62, 'a') + "zz", std::string()}) {
    const fs::path p = scratch("bad.key");
    { std::ofstream(p) << content; }
    fs::permissions(p, fs::perms::owner_read | fs::perms::owner_write);
    try {
      NoiseKey::from_file(p);
      FAIL() << "accepted '" << content << "'";
    } catch (const ConfigError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("64 hexadecimal"), std::string::npos) << m;
      EXPECT_NE(m.find(p.string()), std::string::npos) << m;
      if (content.size() > 4) {
        EXPECT_EQ(m.find(content.substr(0, 5)), std::string::npos) << m;
      }
    }
  }
}

TEST(NoiseKey, UncreatableKeyFileIsAnOutputError) {
  const fs::path p = scratch("missing-dir") / "sub" / "k.key";
  EXPECT_THROW(NoiseKey::from_file(p), OutputError);
}

TEST(NoiseKey, CrlfKeyFileIsRead) {
  const fs::path p = scratch("crlf.key");
  { std::ofstream(p) << std::string(64, 'b') << "\r\n"; }
  fs::permissions(p, fs::perms::owner_read | fs::perms::owner_write);
  NoiseKey::Bytes bytes;
  bytes.fill(0xbb);
  EXPECT_EQ(NoiseKey::from_file(p).stream_key(1, 1, 1),
            NoiseKey::from_bytes(bytes).stream_key(1, 1, 1));
}

}  // namespace
}  // namespace dpmcmc

namespace dpmcmc {
namespace {

// The auditor's streams are another domain: the same (seed, stream, owner) never gives a run's
// noise.
TEST(NoiseKeyDomains, AuditStreamsAreNotRunStreams) {
  NoiseKey::Bytes b{};
  b.fill(3);
  const NoiseKey key = NoiseKey::from_bytes(b);
  EXPECT_NE(key.stream_key(7, 1, 0), key.stream_key(7, 1, 0, NoiseKey::Domain::audit));
  EXPECT_EQ(key.stream_key(7, 1, 0), key.stream_key(7, 1, 0, NoiseKey::Domain::run));
  NoiseRng run = make_noise_rng(key, 7, 1);
  NoiseRng audit = make_audit_noise_rng(key, 7, 1);
  EXPECT_NE(run.uniform(), audit.uniform());
}

}  // namespace
}  // namespace dpmcmc
