#include "core/rng.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include "test_noise.hpp"

namespace dpmcmc {
namespace {

TEST(Rng, SameSeedSameStream) {
  Rng a = make_rng(42, 3), b = make_rng(42, 3);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(a.bits(), b.bits());
}

TEST(Rng, ChainsAndStreamsDiffer) {
  Rng a = make_rng(42, 0), b = make_rng(42, 1), c = make_rng(42, 0, Stream::noise);
  const auto x = a.bits();
  EXPECT_NE(x, b.bits());
  EXPECT_NE(x, c.bits());
}

TEST(Rng, ChaChaReproducibleAndKeyed) {
  // Same key, seed and chain: the same stream; another chain, seed or owner: another stream.
  NoiseRng a = test_noise_rng(7, 0), b = test_noise_rng(7, 0), c = test_noise_rng(7, 1),
           d = test_noise_rng(8, 0), e = test_noise_rng(7, 0, 1);
  for (int i = 0; i < 300; ++i) {  // crosses a buffer refill (128 words)
    const auto x = a.bits();
    EXPECT_EQ(x, b.bits());
    EXPECT_NE(x, c.bits());
    EXPECT_NE(x, d.bits());
    EXPECT_NE(x, e.bits());
  }
  // Same seed and chain under two fresh keys: different noise (2^-64 chance of a false failure).
  NoiseRng f1 = make_noise_rng(NoiseKey::fresh(), 7, 0),
           f2 = make_noise_rng(NoiseKey::fresh(), 7, 0);
  EXPECT_NE(f1.bits(), f2.bits());
}

// Moments of 10^6 standard normals: the sample mean has sd 1e-3 and the sample variance sd
// √2·1e-3, so 5e-3 is a 5-sigma (resp. 3.5-sigma) band; a wrong scale or shift fails it.
TEST(Rng, NormalMoments) {
  NoiseRng r = test_noise_rng(1, 0);
  const int n = 1000000;
  double s = 0, s2 = 0, s4 = 0;
  for (int i = 0; i < n; ++i) {
    const double z = r.normal();
    s += z;
    s2 += z * z;
    s4 += z * z * z * z;
  }
  EXPECT_NEAR(s / n, 0.0, 5e-3);
  EXPECT_NEAR(s2 / n, 1.0, 5e-3);
  EXPECT_NEAR(s4 / n, 3.0, 0.03);  // sd of the 4th moment estimate ≈ √96/1000 ≈ 0.0098
}

// Gamma(0.5, 1) and Gamma(3, 2): mean kθ and variance kθ²; 2·10^5 draws give relative sds of
// about 0.3% (mean) and 1% (variance); the bands are ≥ 4 sds.
TEST(Rng, GammaMoments) {
  Rng r = make_rng(5, 0);
  for (auto [k, th] : {std::pair{0.5, 1.0}, std::pair{3.0, 2.0}}) {
    const int n = 200000;
    double s = 0, s2 = 0;
    for (int i = 0; i < n; ++i) {
      const double g = r.gamma(k, th);
      s += g;
      s2 += g * g;
    }
    const double m = s / n, v = s2 / n - m * m;
    EXPECT_NEAR(m / (k * th), 1.0, 0.015);
    EXPECT_NEAR(v / (k * th * th), 1.0, 0.06);
  }
}

TEST(Rng, IndexUniform) {
  Rng r = make_rng(9, 0);
  std::vector<int> counts(7, 0);
  const int n = 70000;
  for (int i = 0; i < n; ++i) ++counts[r.index(7)];
  // Each count ~ Binomial(70000, 1/7): mean 10000, sd ≈ 92.6; 5 sd band.
  for (int c : counts) EXPECT_NEAR(c, 10000, 465);
}

// index() skips computing the rejection limit for draws far below it; the values must be those
// of the plain rule "reject x ≥ M − M mod n, return x mod n" (M = 2⁶⁴ − 1) applied to the raw
// 64-bit draws of an identically seeded stream (bits()), since committed experiment results were
// drawn with it. n = 2⁶³ + 1 rejects about half of all draws, powers of two none; both streams
// must also stay in step (the same number of draws consumed).
TEST(Rng, IndexEqualsThePlainRejectionRule) {
  constexpr std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
  for (const std::uint64_t n :
       {std::uint64_t{1}, std::uint64_t{7}, std::uint64_t{1} << 20, std::uint64_t{100001},
        (std::uint64_t{1} << 63) + 1, (std::uint64_t{1} << 63), max - 3, max}) {
    Rng fast = make_rng(21, 0);
    Rng plain = make_rng(21, 0);
    NoiseRng noise_fast = test_noise_rng(21, 0);
    NoiseRng noise_plain = test_noise_rng(21, 0);
    const std::uint64_t limit = max - max % n;
    for (int i = 0; i < 2000; ++i) {
      std::uint64_t x;
      do x = plain.bits();
      while (x >= limit);
      ASSERT_EQ(fast.index(n), x % n) << "n = " << n << ", draw " << i;
      do x = noise_plain.bits();
      while (x >= limit);
      ASSERT_EQ(noise_fast.index(n), x % n) << "n = " << n << ", draw " << i;
    }
    EXPECT_EQ(fast.bits(), plain.bits()) << "n = " << n;
  }
}

}  // namespace
}  // namespace dpmcmc
