// Checkpoints restore a chain's streams by position (core/rng.hpp, core/state_json.hpp). The
// reference is the stream itself: a restored engine must continue with exactly the words the
// original draws next, including across ChaCha20's 128-word refills and with a spare normal held.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "core/state_json.hpp"

namespace dpmcmc {
namespace {

std::array<unsigned char, 32> key() {
  std::array<unsigned char, 32> k{};
  k[5] = 9;
  return k;
}

TEST(StreamState, ChaChaSeekContinuesTheKeystreamAtEveryOffset) {
  for (const std::uint64_t k : {0u, 1u, 127u, 128u, 129u, 255u, 256u, 1000u}) {
    ChaChaEngine a(key());
    for (std::uint64_t i = 0; i < k; ++i) a();
    EXPECT_EQ(a.words_drawn(), k);
    ChaChaEngine b(key());
    b.seek(k);
    EXPECT_EQ(b.words_drawn(), k);
    for (int i = 0; i < 300; ++i) ASSERT_EQ(a(), b()) << "offset " << k << ", word " << i;
  }
}

TEST(StreamState, BothStreamsRoundTripThroughJsonWithTheirSpareNormal) {
  Rng a = make_rng(7, 2);
  NoiseRng na{ChaChaEngine(key())};
  for (int i = 0; i < 3; ++i) {  // an odd number of normals: a spare is held
    a.normal();
    na.normal();
  }
  ASSERT_TRUE(a.spare().has_value());
  const auto sa = state::of(a), sn = state::of(na);
  Rng b = make_rng(1, 1);
  NoiseRng nb{ChaChaEngine(key())};
  state::restore(b, sa);
  state::restore(nb, sn);
  for (int i = 0; i < 50; ++i) {
    ASSERT_EQ(a.normal(), b.normal());
    ASSERT_EQ(na.normal(), nb.normal());
  }
}

TEST(StreamState, DoublesAreExactAndDamageIsADataError) {
  const double tiny = 4.9406564584124654e-324, third = 1.0 / 3.0;
  const nlohmann::json s = {{"x", state::of(third)}, {"v", state::of(Vec::Constant(2, tiny))}};
  EXPECT_EQ(state::to_double(s, "x"), third);
  EXPECT_EQ(state::to_vec(s, "v", 2)[1], tiny);
  EXPECT_THROW(state::to_vec(s, "v", 3), DataError);
  EXPECT_THROW(state::to_double(s, "missing"), DataError);
  EXPECT_THROW(state::to_double({{"x", 0.5}}, "x"), DataError);  // decimal text, not bits
  NoiseRng n{ChaChaEngine(key())};
  EXPECT_THROW(state::restore(n, {{"words", std::uint64_t{1} << 63}, {"spare", nullptr}}),
               DataError);
  Rng r = make_rng(1, 1);
  EXPECT_THROW(state::restore(r, {{"engine", "not a state"}, {"spare", nullptr}}), DataError);
}

}  // namespace
}  // namespace dpmcmc
