// Random streams (docs/architecture.md). Each chain owns two independent streams: the public
// algorithm stream of (seed, chain id) (proposals, momenta, accept-test uniforms, starting points)
// and the secret privacy noise stream of (noise key, seed, chain id) (the noise of releases and
// subsample membership; core/noise_key.hpp). The algorithm stream is std::mt19937_64, whose output
// sequence the C++ standard fixes, seeded through std::seed_seq (also fully specified), so draws
// are identical on every conforming platform. The noise stream is the ChaCha20 keystream of
// libsodium under a key derived from the secret noise key: nothing public determines it.
//
// Variates are computed here rather than with <random> distributions, whose algorithms the
// standard leaves to the implementation: reproducibility must not depend on the library.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>

#include "core/noise_key.hpp"

namespace dpmcmc {

// Identifies which stream of a chain a generator serves; part of the seed derivation.
enum class Stream : std::uint64_t { algorithm = 1, noise = 2, data = 3, exact = 4, start = 5 };

// The algorithm stream's engine.
class AlgorithmEngine {
 public:
  using result_type = std::uint64_t;
  AlgorithmEngine(std::uint64_t seed, std::uint64_t chain, Stream stream);
  result_type operator()() { return engine_(); }
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }

  // The engine's state as the standard's text form (operator<< of std::mt19937_64: 312 words and
  // the position), so that a checkpointed chain resumes bit for bit (core/stream_state.hpp).
  std::string state() const;
  // SoftwareError when `text` is not a state written by state().
  void set_state(const std::string& text);

 private:
  std::mt19937_64 engine_;
};

// The privacy noise stream's engine: ChaCha20 keystream (libsodium), 64 bits per call.
class ChaChaEngine {
 public:
  using result_type = std::uint64_t;
  // The keystream of a 256-bit ChaCha20 key (NoiseKey::stream_key).
  explicit ChaChaEngine(const std::array<unsigned char, 32>& key);
  ChaChaEngine(const ChaChaEngine&) = default;
  ChaChaEngine& operator=(const ChaChaEngine&) = default;
  ~ChaChaEngine();
  result_type operator()();
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }

  // 64-bit words drawn so far: the stream's whole state besides its key, so a checkpoint stores
  // this count and never the key or the keystream.
  std::uint64_t words_drawn() const;
  // Positions the stream after `words` words, as if they had been drawn.
  void seek(std::uint64_t words);

 private:
  void refill();
  static constexpr std::size_t kBlockBytes = 64;
  static constexpr std::size_t kBufferBlocks = 16;
  std::array<unsigned char, 32> key_{};
  std::uint64_t next_block_ = 0;  // ChaCha20 block counter of the next refill
  std::array<std::uint64_t, kBlockBytes * kBufferBlocks / 8> buffer_{};
  std::size_t pos_ = buffer_.size();
};

// A uniform 64-bit seed drawn from the operating system's entropy (libsodium randombytes).
std::uint64_t os_entropy_seed();

// Variates over any 64-bit engine. Holds the engine and the spare normal of the polar method.
template <class Engine>
class Random {
 public:
  explicit Random(Engine engine) : engine_(std::move(engine)) {}

  std::uint64_t bits() { return engine_(); }

  // Uniform on [0, 1) with all 53 bits of the mantissa random.
  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }

  // Uniform on (0, 1): never 0, so log(u) is finite.
  double uniform_pos() { return (static_cast<double>(engine_() >> 11) + 0.5) * 0x1.0p-53; }

  // Standard normal by the Marsaglia polar method (exact, uses 53-bit uniforms).
  double normal() {
    if (spare_) {
      const double z = *spare_;
      spare_.reset();
      return z;
    }
    double u, v, s;
    do {
      u = 2.0 * uniform() - 1.0;
      v = 2.0 * uniform() - 1.0;
      s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    const double f = std::sqrt(-2.0 * std::log(s) / s);
    spare_ = v * f;
    return u * f;
  }

  double normal(double mean, double sd) { return mean + sd * normal(); }

  // Uniform integer in {0, …, n−1} without modulo bias (rejection of the incomplete top range
  // [limit, 2⁶⁴), limit = M − M mod n with M = 2⁶⁴ − 1). limit > M − n, so a draw x ≤ M − n is
  // accepted without computing limit: one division instead of two in all but a fraction n/2⁶⁴
  // of the draws, and the same values (Floyd's batch draws call this b times per release).
  std::uint64_t index(std::uint64_t n) {
    constexpr std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
    for (;;) {
      const std::uint64_t x = engine_();
      if (x <= max - n || x < max - max % n) return x % n;
    }
  }

  double exponential() { return -std::log(uniform_pos()); }

  // Gamma(shape, scale) by Marsaglia and Tsang (2000); shape < 1 by the boost u^(1/shape).
  double gamma(double shape, double scale = 1.0) {
    if (shape < 1.0) {
      return gamma(shape + 1.0, scale) * std::pow(uniform_pos(), 1.0 / shape);
    }
    const double d = shape - 1.0 / 3.0;
    const double c = 1.0 / std::sqrt(9.0 * d);
    for (;;) {
      double x, v;
      do {
        x = normal();
        v = 1.0 + c * x;
      } while (v <= 0.0);
      v = v * v * v;
      const double u = uniform_pos();
      if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v * scale;
    }
  }

  bool bernoulli(double p) { return uniform() < p; }

  Engine& engine() { return engine_; }
  const Engine& engine() const { return engine_; }
  // The polar method's spare normal, part of the stream's state for a checkpoint.
  std::optional<double> spare() const { return spare_; }
  void set_spare(std::optional<double> spare) { spare_ = spare; }

 private:
  Engine engine_;
  std::optional<double> spare_;
};

using Rng = Random<AlgorithmEngine>;
using NoiseRng = Random<ChaChaEngine>;

// The generator of stream `stream` of chain `chain` for a run seeded with `seed`.
inline Rng make_rng(std::uint64_t seed, std::uint64_t chain, Stream stream = Stream::algorithm) {
  return Rng(AlgorithmEngine(seed, chain, stream));
}

// The privacy noise generator of chain `chain` (and data owner `owner`, for data shared among
// several owners) of a run with public seed `seed`, keyed by the secret noise key.
inline NoiseRng make_noise_rng(const NoiseKey& key, std::uint64_t seed, std::uint64_t chain,
                               std::uint64_t owner = 0) {
  return NoiseRng(ChaChaEngine(key.stream_key(seed, chain, owner)));
}

// The privacy auditor's noise stream `stream` of its runs under public seed `seed` (data owner
// `owner`): another domain than every run's stream (core/noise_key.hpp).
inline NoiseRng make_audit_noise_rng(const NoiseKey& key, std::uint64_t seed, std::uint64_t stream,
                                     std::uint64_t owner = 0) {
  return NoiseRng(ChaChaEngine(key.stream_key(seed, stream, owner, NoiseKey::Domain::audit)));
}

}  // namespace dpmcmc
