#include "samplers/halton.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "core/error.hpp"

namespace dpmcmc {

namespace {

// Digits needed for b^{−K} ≤ 2^{−53}: beyond that a digit no longer changes the double.
int digits_for_base(unsigned base) {
  int k = 0;
  long double scale = 1.0L;
  while (scale > 0x1.0p-53L) {
    scale /= base;
    ++k;
  }
  return k;
}

void check_base(unsigned base) {
  if (base < 2) throw UsageError("Halton base must be at least 2, got " + std::to_string(base));
}

}  // namespace

double radical_inverse(std::uint64_t i, unsigned base) {
  check_base(base);
  // Horner from the most significant fractional digit would need the digits reversed; instead
  // accumulate the digits with their weights b^{−k−1}, exact for base 2 up to 53 digits.
  double result = 0.0;
  double weight = 1.0 / base;
  while (i > 0) {
    result += static_cast<double>(i % base) * weight;
    i /= base;
    weight /= base;
  }
  return result;
}

std::vector<unsigned> first_primes(int n) {
  std::vector<unsigned> primes;
  for (unsigned c = 2; static_cast<int>(primes.size()) < n; ++c) {
    if (std::none_of(primes.begin(), primes.end(), [c](unsigned p) { return c % p == 0; })) {
      primes.push_back(c);
    }
  }
  return primes;
}

RandomizedHalton::RandomizedHalton(int dims, Rng& rng) {
  if (dims < 1)
    throw UsageError("Halton dimension must be at least 1, got " + std::to_string(dims));
  bases_ = first_primes(dims);
  for (unsigned b : bases_) {
    const int k = digits_for_base(b);
    digits_.push_back(k);
    std::vector<unsigned> perm(static_cast<std::size_t>(k) * b);
    for (int pos = 0; pos < k; ++pos) {
      auto first = perm.begin() + static_cast<std::ptrdiff_t>(pos) * b;
      std::iota(first, first + b, 0u);
      // Fisher–Yates with the unbiased bounded integers of Rng (not std::shuffle, whose
      // algorithm the standard leaves open).
      for (unsigned m = b - 1; m > 0; --m) {
        std::swap(first[m], first[static_cast<std::ptrdiff_t>(rng.index(m + 1))]);
      }
    }
    perms_.push_back(std::move(perm));
  }
}

RandomizedHalton::RandomizedHalton(std::vector<unsigned> bases,
                                   std::vector<std::vector<std::vector<unsigned>>> permutations)
    : bases_(std::move(bases)) {
  if (bases_.empty()) throw UsageError("Halton sequence needs at least one base");
  if (!permutations.empty() && permutations.size() != bases_.size()) {
    throw UsageError("Halton permutations: one list per base expected, got " +
                     std::to_string(permutations.size()) + " for " + std::to_string(bases_.size()) +
                     " bases");
  }
  for (std::size_t j = 0; j < bases_.size(); ++j) {
    const unsigned b = bases_[j];
    check_base(b);
    const int k = digits_for_base(b);
    digits_.push_back(k);
    std::vector<unsigned> perm(static_cast<std::size_t>(k) * b);
    for (int pos = 0; pos < k; ++pos) {
      auto first = perm.begin() + static_cast<std::ptrdiff_t>(pos) * b;
      std::iota(first, first + b, 0u);
      if (permutations.empty() || static_cast<std::size_t>(pos) >= permutations[j].size()) continue;
      const auto& given = permutations[j][static_cast<std::size_t>(pos)];
      std::vector<unsigned> sorted = given;
      std::sort(sorted.begin(), sorted.end());
      std::vector<unsigned> identity(b);
      std::iota(identity.begin(), identity.end(), 0u);
      if (sorted != identity) {
        throw UsageError("Halton permutation of dimension " + std::to_string(j) + ", digit " +
                         std::to_string(pos) + " is not a permutation of 0.." +
                         std::to_string(b - 1));
      }
      std::copy(given.begin(), given.end(), first);
    }
    perms_.push_back(std::move(perm));
  }
}

double RandomizedHalton::value(std::uint64_t i, int j) const {
  const auto jj = static_cast<std::size_t>(j);
  const unsigned b = bases_[jj];
  const int k = digits_[jj];
  const unsigned* perm = perms_[jj].data();
  // Digits of i, least significant first; positions above the leading digit are 0.
  std::uint64_t rest = i;
  double result = 0.0;
  double weight = 1.0 / b;
  for (int pos = 0; pos < k; ++pos) {
    const auto digit = static_cast<unsigned>(rest % b);
    rest /= b;
    result += static_cast<double>(perm[static_cast<std::size_t>(pos) * b + digit]) * weight;
    weight /= b;
  }
  // The largest value, 1 − b^{−K}, may round up to 1 for odd bases: keep the promise of [0, 1).
  return std::min(result, std::nextafter(1.0, 0.0));
}

std::vector<std::vector<std::vector<unsigned>>> RandomizedHalton::permutations() const {
  std::vector<std::vector<std::vector<unsigned>>> all;
  for (std::size_t j = 0; j < bases_.size(); ++j) {
    const unsigned b = bases_[j];
    std::vector<std::vector<unsigned>> dim;
    for (int pos = 0; pos < digits_[j]; ++pos) {
      const auto first = perms_[j].begin() + static_cast<std::ptrdiff_t>(pos) * b;
      dim.emplace_back(first, first + b);
    }
    all.push_back(std::move(dim));
  }
  return all;
}

nlohmann::json halton_state(const std::optional<RandomizedHalton>& halton) {
  if (!halton) return nullptr;
  std::vector<unsigned> bases;
  for (int j = 0; j < halton->dims(); ++j) bases.push_back(halton->base(j));
  return {{"bases", bases}, {"permutations", halton->permutations()}};
}

void restore_halton(std::optional<RandomizedHalton>& halton, const nlohmann::json& state) {
  halton.reset();
  if (state.is_null()) return;
  try {
    halton.emplace(state.at("bases").get<std::vector<unsigned>>(),
                   state.at("permutations").get<std::vector<std::vector<std::vector<unsigned>>>>());
  } catch (const nlohmann::json::exception&) {
    throw DataError("checkpoint: malformed Halton sequence state");
  } catch (const UsageError& e) {
    throw DataError(std::string("checkpoint: Halton sequence state: ") + e.what());
  }
}

}  // namespace dpmcmc
