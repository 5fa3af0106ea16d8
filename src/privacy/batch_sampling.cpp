#include "privacy/batch_sampling.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>

#include "core/error.hpp"

namespace dpmcmc {

std::string batch_sampling_name(BatchSampling sampling) {
  return sampling == BatchSampling::poisson ? "poisson" : "without_replacement";
}

void validate_batch(const BatchSpec& batch, std::size_t n, const std::string& who) {
  if (batch.size == 0 || batch.size > n) {
    throw ConfigError(fmt::format(
        "{}: batch size {} is invalid for n = {} rows, expected 1 ≤ batch size ≤ n ({} sampling)",
        who, batch.size, n, batch_sampling_name(batch.sampling)));
  }
}

double batch_rate(const BatchSpec& batch, std::size_t n) {
  return static_cast<double>(batch.size) / static_cast<double>(n);
}

std::span<const std::size_t> BatchDrawer::draw(const BatchSpec& batch, std::size_t n,
                                               NoiseRng& rng) {
  if (batch.sampling == BatchSampling::poisson) return poisson(n, batch_rate(batch, n), rng);
  return without_replacement(n, batch.size, rng);
}

bool BatchDrawer::insert(std::size_t value) {
  const std::uint64_t key = static_cast<std::uint64_t>(value) + 1;
  // Fibonacci hashing: the top bits of key·2⁶⁴/φ spread consecutive indices over the table.
  std::uint64_t slot = (key * 0x9E3779B97F4A7C15ULL) >> 20 & mask_;
  while (table_[slot] != 0) {
    if (table_[slot] == key) return false;
    slot = (slot + 1) & mask_;
  }
  table_[slot] = key;
  return true;
}

std::span<const std::size_t> BatchDrawer::without_replacement(std::size_t n, std::size_t b,
                                                              NoiseRng& rng) {
  // The bitmap's scan costs n/64 word reads (most of them zero, a predictable branch) against
  // the hash set's probes and the sort's ~b·log₂ b mispredicted comparisons: at n ≤ 2048·b the
  // scan is at most 32b words. Measured on DP Barker at n = 10⁶, b = 1000 (docs/benchmarks.md):
  // the bitmap takes an iteration from 76 to 55 µs, where the threshold used to be 512·b.
  indices_.clear();
  if (n / 2048 <= b) {
    floyd_bitmap(n, b, rng);
  } else {
    floyd_hashed(n, b, rng);
  }
  return indices_;
}

// Floyd: for j = n−b, …, n−1 draw t uniform in {0, …, j}; take t unless already taken, in which
// case take j (never taken before). By induction every b-subset has probability 1/C(n, b).
void BatchDrawer::floyd_hashed(std::size_t n, std::size_t b, NoiseRng& rng) {
  // Table of at least 2b slots (load ≤ ½): expected O(1) probes per membership test.
  const std::size_t slots = std::bit_ceil(std::max<std::size_t>(2 * b, 16));
  if (table_.size() < slots) table_.resize(slots);
  mask_ = slots - 1;
  std::fill(table_.begin(), table_.begin() + static_cast<std::ptrdiff_t>(slots), 0);
  for (std::size_t j = n - b; j < n; ++j) {
    const auto t = static_cast<std::size_t>(rng.index(static_cast<std::uint64_t>(j) + 1));
    if (insert(t)) {
      indices_.push_back(t);
    } else {
      insert(j);
      indices_.push_back(j);
    }
  }
  std::sort(indices_.begin(), indices_.end());
}

void BatchDrawer::floyd_bitmap(std::size_t n, std::size_t b, NoiseRng& rng) {
  const std::size_t words = (n + 63) / 64;
  if (bits_.size() < words) bits_.resize(words, 0);
  const auto mark = [this](std::size_t i) {
    std::uint64_t& w = bits_[i / 64];
    const std::uint64_t bit = std::uint64_t{1} << (i % 64);
    const bool taken = (w & bit) != 0;
    w |= bit;
    return !taken;
  };
  // Room for the b indices first: an allocation failure must not leave bits set behind.
  indices_.resize(b);
  for (std::size_t j = n - b; j < n; ++j) {
    const auto t = static_cast<std::size_t>(rng.index(static_cast<std::uint64_t>(j) + 1));
    if (!mark(t)) mark(j);
  }
  // Exactly b bits are set: write through a pointer (no capacity check per index).
  std::size_t* out = indices_.data();
  for (std::size_t k = 0; k < words; ++k) {
    for (std::uint64_t w = bits_[k]; w != 0; w &= w - 1) {
      *out++ = k * 64 + static_cast<std::size_t>(std::countr_zero(w));
    }
    bits_[k] = 0;
  }
}

std::span<const std::size_t> BatchDrawer::poisson(std::size_t n, double q, NoiseRng& rng) {
  indices_.clear();
  if (q >= 1.0) {
    for (std::size_t i = 0; i < n; ++i) indices_.push_back(i);
    return indices_;
  }
  const double log_miss = std::log1p(-q);  // < 0
  double next = -1.0;  // position of the last included row (double: no overflow on a huge gap)
  const double limit = static_cast<double>(n);
  for (;;) {
    // Gap G = ⌊log U / log(1 − q)⌋ ~ Geometric(q): P(G ≥ g) = P(U ≤ (1 − q)^g) = (1 − q)^g.
    next += 1.0 + std::floor(std::log(rng.uniform_pos()) / log_miss);
    if (!(next < limit)) break;
    indices_.push_back(static_cast<std::size_t>(next));
  }
  return indices_;
}

}  // namespace dpmcmc
