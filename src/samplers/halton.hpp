// Halton sequences, plain and randomised, for the per-iteration step-size perturbation of HMC:
// η_i = h_i·η with h_i from a randomised Halton sequence ([RaisaKoskelaHonkela2021] Section 3,
// following Hoffman et al. 2021 = its ref. [16]; the randomisation is Owen's 2017 random digit
// permutation = its ref. [23]).
//
// Halton point i in base b is the radical inverse φ_b(i) = Σ_k a_k(i) b^{−k−1}, where
// i = Σ_k a_k(i) b^k. The randomised version replaces every digit a_k by π_k(a_k), with an
// independent uniformly random permutation π_k of {0, …, b−1} for each digit position k —
// including the positions above i's leading digit, where a_k = 0 — down to the precision of a
// double. Each randomised point is then uniform on [0, 1) while the sequence keeps the Halton
// stratification (in base 2 the points 0 … 2^m − 1 fall one in each interval [j/2^m, (j+1)/2^m)).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>

#include <cstdint>
#include <vector>

#include "core/rng.hpp"

namespace dpmcmc {

// φ_b(i), the van der Corput radical inverse of i in base b ≥ 2. Throws UsageError for b < 2.
double radical_inverse(std::uint64_t i, unsigned base);

// The first n primes (2, 3, 5, …): the Halton bases of dimensions 0 … n−1.
std::vector<unsigned> first_primes(int n);

class RandomizedHalton {
 public:
  // `dims` dimensions with bases first_primes(dims), permutations drawn from rng.
  RandomizedHalton(int dims, Rng& rng);
  // Explicit bases and permutations: permutations[j][k] is π_k of dimension j (a permutation of
  // {0, …, bases[j]−1}); positions beyond permutations[j].size() use the identity. With no
  // permutations at all this is the plain Halton sequence. Throws UsageError on a malformed
  // permutation.
  RandomizedHalton(std::vector<unsigned> bases,
                   std::vector<std::vector<std::vector<unsigned>>> permutations);

  int dims() const { return static_cast<int>(bases_.size()); }
  unsigned base(int j) const { return bases_[static_cast<std::size_t>(j)]; }
  // Number of digit positions used in dimension j: the smallest K with b^{−K} ≤ 2^{−53}.
  int digits(int j) const { return digits_[static_cast<std::size_t>(j)]; }

  // Coordinate j of point i, in [0, 1).
  double value(std::uint64_t i, int j) const;
  // permutations[j][k]: π_k of dimension j, as the explicit constructor takes them.
  std::vector<std::vector<std::vector<unsigned>>> permutations() const;

 private:
  std::vector<unsigned> bases_;
  std::vector<int> digits_;
  // perms_[j] holds digits(j) permutations of size base(j), concatenated.
  std::vector<std::vector<unsigned>> perms_;
};

// Checkpoints: a lazily drawn sequence (null while not drawn yet) as JSON, and back. DataError for
// a malformed state.
nlohmann::json halton_state(const std::optional<RandomizedHalton>& halton);
void restore_halton(std::optional<RandomizedHalton>& halton, const nlohmann::json& state);

}  // namespace dpmcmc
