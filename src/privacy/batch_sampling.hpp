// Batch selection for subsampled releases (PrivateData::grad_sum_batch, llr_batch_corrected).
// The batch is part of the privacy mechanism: amplification by subsampling (WBK19 Theorem 9,
// [Raisa2021] Theorem 3.5; the Poisson-subsampled Gaussian of the RDP and PLD
// accountants) assumes the batch stays secret, so it is drawn from the chain's privacy noise
// stream (NoiseRng), never from the algorithm stream, and never leaves PrivateData.
//
// Two schemes, each paired with the neighbouring relation its accountants assume:
//   without_replacement  exactly b distinct rows, uniformly among the C(n, b) subsets;
//                        substitute neighbours, q = b/n. Robert Floyd's algorithm: b draws and
//                        a membership test each, returned in increasing order so that the gather
//                        reads the data in order. The set is a bitmap of n bits when n ≤ 512·b
//                        (then one scan of n/64 words yields the indices sorted, O(b + n/64)),
//                        else a small open-addressing table followed by a sort (O(b log b)).
//                        Both give the same indices for the same draws. On the 2-d banana
//                        (n = 10⁵, b = 1000) the sort had been 41% of a DP-SGLD step
//                        (docs/benchmarks.md).
//   poisson              each row independently with probability q = size/n; add/remove
//                        neighbours. Geometric skips: the gap to the next included row is
//                        Geometric(q) (failures before a success), drawn by inversion
//                        ⌊log U / log(1 − q)⌋, so a draw costs O(qn) expected, not O(n).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/rng.hpp"

namespace dpmcmc {

enum class BatchSampling { poisson, without_replacement };

struct BatchSpec {
  BatchSampling sampling = BatchSampling::without_replacement;
  std::size_t size =
      1;  // b for without replacement; the expected size q·n for Poisson (q = size/n)
};

// "poisson" / "without_replacement".
std::string batch_sampling_name(BatchSampling sampling);

// ConfigError naming `who`, the batch size and n unless 1 ≤ size ≤ n.
void validate_batch(const BatchSpec& batch, std::size_t n, const std::string& who);

// q = size/n (validate first).
double batch_rate(const BatchSpec& batch, std::size_t n);

// Draws batches into reusable scratch, so that a chain's draws allocate only until the largest
// batch has been seen. The returned span is valid until the next draw.
class BatchDrawer {
 public:
  // Sorted, distinct row indices in [0, n). Does not validate (see validate_batch).
  std::span<const std::size_t> draw(const BatchSpec& batch, std::size_t n, NoiseRng& rng);
  // Exactly b distinct indices, each subset equally likely (Floyd), sorted. 1 ≤ b ≤ n.
  std::span<const std::size_t> without_replacement(std::size_t n, std::size_t b, NoiseRng& rng);
  // Each index independently with probability q ∈ (0, 1], increasing order.
  std::span<const std::size_t> poisson(std::size_t n, double q, NoiseRng& rng);

 private:
  // Floyd's membership test with the chosen indices in an open-addressing table, then sorted.
  void floyd_hashed(std::size_t n, std::size_t b, NoiseRng& rng);
  bool insert(std::size_t value);
  // The same with a bitmap of n bits, read out in order (and cleared) by one scan.
  void floyd_bitmap(std::size_t n, std::size_t b, NoiseRng& rng);

  std::vector<std::size_t> indices_;
  std::vector<std::uint64_t> table_;  // value + 1, 0 = empty
  std::uint64_t mask_ = 0;
  std::vector<std::uint64_t> bits_;  // all zero between draws
};

}  // namespace dpmcmc
