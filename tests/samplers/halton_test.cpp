#include "samplers/halton.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/error.hpp"

namespace dpmcmc {
namespace {

// Radical inverses computed by hand: i written in base b, digits mirrored after the point.
TEST(Halton, RadicalInverseBase2) {
  // 0, 1, 10, 11, 100, 101, 110, 111, 1000 (binary) → .0 .1 .01 .11 .001 .101 .011 .111 .0001
  const double expected[] = {0.0, 0.5, 0.25, 0.75, 0.125, 0.625, 0.375, 0.875, 0.0625};
  for (std::uint64_t i = 0; i < 9; ++i) EXPECT_EQ(radical_inverse(i, 2), expected[i]) << i;
}

TEST(Halton, RadicalInverseBase3And5) {
  // Base 3: 1 → 1/3, 2 → 2/3, 10 → 1/9, 11 → 1/9 + 1/3, 12 → 1/9 + 2/3, 20 → 2/9, 22 → 8/9.
  const double expected3[] = {0.0, 1.0 / 3, 2.0 / 3, 1.0 / 9, 4.0 / 9, 7.0 / 9, 2.0 / 9};
  for (std::uint64_t i = 0; i < 7; ++i) EXPECT_NEAR(radical_inverse(i, 3), expected3[i], 4e-16);
  EXPECT_NEAR(radical_inverse(8, 3), 8.0 / 9, 4e-16);
  // 7 = 12 (base 5) → 2/5 + 1/25 = 11/25; 31 = 111 (base 5) → 1/5 + 1/25 + 1/125 = 31/125.
  EXPECT_NEAR(radical_inverse(7, 5), 11.0 / 25, 4e-16);
  EXPECT_NEAR(radical_inverse(31, 5), 31.0 / 125, 4e-16);
  EXPECT_THROW(radical_inverse(3, 1), UsageError);
}

TEST(Halton, FirstPrimesAndDigits) {
  EXPECT_EQ(first_primes(6), (std::vector<unsigned>{2, 3, 5, 7, 11, 13}));
  RandomizedHalton plain({2, 3}, {});
  EXPECT_EQ(plain.digits(0), 53);  // 2^-53: a double's resolution below 1
  EXPECT_EQ(plain.digits(1), 34);  // 3^-34 ≈ 6e-17 ≤ 2^-53 ≈ 1.4e-16 < 3^-33
}

TEST(Halton, IdentityPermutationsGiveThePlainSequence) {
  RandomizedHalton plain({2, 3}, {});
  for (std::uint64_t i = 0; i < 200; ++i) {
    EXPECT_EQ(plain.value(i, 0), radical_inverse(i, 2));
    EXPECT_NEAR(plain.value(i, 1), radical_inverse(i, 3), 1e-15);
  }
}

// Explicit permutations, values by hand. Base 2 with π_0 = (1 0) and the identity elsewhere
// flips the first binary digit: 0 → .1 = 0.5, 1 → .0 = 0, 2 = 10 → .11 = 0.75, 3 = 11 → .01.
// Base 3 with π_0 = (1 2 0), π_1 = (2 0 1): 0 → .12 (digits π_0(0)=1, π_1(0)=2) = 1/3 + 2/9 = 5/9;
// 1 → .22 = 8/9; 2 → .02 = 2/9; 3 = 10 → π_0(0)=1, π_1(1)=0 → 1/3; 5 = 12 → π_0(2)=0, π_1(1)=0
// → 0.
TEST(Halton, ExplicitPermutationsByHand) {
  RandomizedHalton h2({2}, {{{1, 0}}});
  EXPECT_EQ(h2.value(0, 0), 0.5);
  EXPECT_EQ(h2.value(1, 0), 0.0);
  EXPECT_EQ(h2.value(2, 0), 0.75);
  EXPECT_EQ(h2.value(3, 0), 0.25);
  RandomizedHalton h3({3}, {{{1, 2, 0}, {2, 0, 1}}});
  EXPECT_NEAR(h3.value(0, 0), 5.0 / 9, 4e-16);
  EXPECT_NEAR(h3.value(1, 0), 8.0 / 9, 4e-16);
  EXPECT_NEAR(h3.value(2, 0), 2.0 / 9, 4e-16);
  EXPECT_NEAR(h3.value(3, 0), 1.0 / 3, 4e-16);
  EXPECT_NEAR(h3.value(5, 0), 0.0, 4e-16);
  EXPECT_THROW(RandomizedHalton({3}, {{{0, 0, 1}}}), UsageError);
  EXPECT_THROW(RandomizedHalton({2, 3}, {{{1, 0}}}), UsageError);
}

// The randomised sequence keeps Halton's stratification: the first b^m points put exactly one
// point in each interval [k/b^m, (k+1)/b^m). A randomisation that broke the digit structure
// (e.g. an independent uniform per point) fails this with near certainty.
TEST(Halton, RandomizedPointsAreStratified) {
  Rng rng = make_rng(11, 0);
  RandomizedHalton h(2, rng);
  for (auto [dim, base, m] : {std::tuple{0, 2u, 12}, std::tuple{1, 3u, 7}}) {
    const auto cells = static_cast<std::size_t>(std::pow(base, m));
    std::vector<int> count(cells, 0);
    for (std::uint64_t i = 0; i < cells; ++i) {
      const double x = h.value(i, dim);
      ASSERT_GE(x, 0.0);
      ASSERT_LT(x, 1.0);
      ++count[static_cast<std::size_t>(x * static_cast<double>(cells))];
    }
    for (std::size_t k = 0; k < cells; ++k)
      ASSERT_EQ(count[k], 1) << "base " << base << " cell " << k;
  }
}

TEST(Halton, RandomizationIsReproducibleAndSeeded) {
  Rng a = make_rng(3, 0), b = make_rng(3, 0), c = make_rng(3, 1);
  RandomizedHalton ha(1, a), hb(1, b), hc(1, c);
  int differ = 0;
  for (std::uint64_t i = 0; i < 50; ++i) {
    EXPECT_EQ(ha.value(i, 0), hb.value(i, 0));
    differ += ha.value(i, 0) != hc.value(i, 0);
  }
  EXPECT_EQ(differ, 50);
}

// Each randomised point is uniform on [0, 1) (all 53 digit positions are permuted, including
// those above the index's leading digit). Over R = 4000 independent randomisations the fraction
// of point 5 below 0.05 has sd √(0.05·0.95/4000) ≈ 0.0034 and its mean has sd √(1/12/4000) ≈
// 0.0046: bands of 5 sd. Permuting only the index's own digits would put point 5 (= 101₂) on
// the grid {0, 1/8, …, 7/8}, and its fraction below 0.05 at 1/8, far out of the band.
TEST(Halton, EachRandomizedPointIsUniform) {
  const int reps = 4000;
  double below = 0, sum = 0;
  for (int r = 0; r < reps; ++r) {
    Rng rng = make_rng(100, static_cast<std::uint64_t>(r));
    RandomizedHalton h(1, rng);
    const double x = h.value(5, 0);
    below += x < 0.05;
    sum += x;
  }
  EXPECT_NEAR(below / reps, 0.05, 5 * 0.0034);
  EXPECT_NEAR(sum / reps, 0.5, 5 * 0.0046);
}

}  // namespace
}  // namespace dpmcmc
