// The content hash a resume compares (data/dataset_hash.hpp): equal for equal rows, different
// for one changed value, one changed column name or reordered rows; and the BLAKE2b-256 of the
// documented byte layout, computed independently here with libsodium's one-shot hash.
#include "data/dataset_hash.hpp"

#include <gtest/gtest.h>
#include <sodium.h>

#include <bit>
#include <cstdint>
#include <vector>

namespace dpmcmc {
namespace {

Dataset small() {
  Dataset d;
  d.x.resize(3, 2);
  d.x << 1.0, -2.5, 0.0, 3.25, 1e300, -0.0;
  d.columns = {"a", "bb"};
  return d;
}

TEST(DatasetHash, ChangesWithAnyValueNameOrOrder) {
  const Dataset d = small();
  EXPECT_EQ(content_hash(d), content_hash(small()));
  EXPECT_EQ(content_hash(d).size(), 64u);
  Dataset v = small();
  v.x(2, 1) = 0.0;  // -0.0 → +0.0: different bits, different rows for a mechanism
  EXPECT_NE(content_hash(v), content_hash(d));
  Dataset n = small();
  n.columns = {"a", "b"};
  EXPECT_NE(content_hash(n), content_hash(d));
  Dataset o = small();
  o.x.row(0).swap(o.x.row(1));
  EXPECT_NE(content_hash(o), content_hash(d));
}

TEST(DatasetHash, IsTheBlake2bOfTheDocumentedLayout) {
  const Dataset d = small();
  std::vector<unsigned char> bytes;
  const auto word = [&](std::uint64_t w) {
    for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<unsigned char>(w >> (8 * i)));
  };
  word(3);
  word(2);
  for (const auto& name : d.columns) {
    word(name.size());
    bytes.insert(bytes.end(), name.begin(), name.end());
  }
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 2; ++j) word(std::bit_cast<std::uint64_t>(d.x(i, j)));
  }
  ASSERT_GE(sodium_init(), 0);
  unsigned char out[crypto_generichash_BYTES];
  crypto_generichash(out, sizeof out, bytes.data(), bytes.size(), nullptr, 0);
  char hex[2 * sizeof out + 1];
  sodium_bin2hex(hex, sizeof hex, out, sizeof out);
  EXPECT_EQ(content_hash(d), std::string(hex));
}

}  // namespace
}  // namespace dpmcmc
