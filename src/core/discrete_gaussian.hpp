// Exact sampling of the discrete Gaussian N_Z(0, σ²), P(Y = k) ∝ exp(−k²/(2σ²)) on the integers,
// with integer arithmetic only. Why: a textbook floating-point Gaussian sampler (Box–Muller,
// polar) added to a released value leaks through the low-order bits of the result, because the
// set of doubles it can output depends on the value it is added to (Mironov, "On significance of
// the least significant bits for differential privacy", CCS 2012). Noise that is an exactly
// distributed integer, added to an integer-valued (grid-rounded) query, has no such side channel;
// privacy/discrete_noise_bound.hpp accounts it with the continuous Gaussian accountants.
//
// The algorithms are those of Canonne, Kamath and Steinke, "The Discrete Gaussian for
// Differential Privacy" (NeurIPS 2020), written here from the mathematics:
//   Algorithm 1  Bernoulli(exp(−γ)) for rational γ = n/d ≥ 0. For γ ∈ [0, 1]: draw
//                A_K ~ Bernoulli(γ/K) for K = 1, 2, … until the first A_K = 0; return 1 iff
//                that K is odd (P(K > k) = γᵏ/k!, so P(K odd) = Σ_k (−γ)ᵏ/k! = e^{−γ}). For
//                γ > 1: ⌊γ⌋ independent Bernoulli(e^{−1}) (the case γ = 1), then
//                Bernoulli(exp(−(γ − ⌊γ⌋))); return 1 iff all were 1.
//   Algorithm 2  the discrete Laplace, P(Y = y) ∝ exp(−|y|/t), integer t ≥ 1: U uniform on
//                {0, …, t−1} kept with probability exp(−U/t), V the number of successes before
//                the first failure of Bernoulli(e^{−1}), X = U + tV (then P(X = x) ∝ e^{−x/t}),
//                a fair sign, and the draw "−0" rejected so that 0 is not counted twice.
//   Algorithm 3  the discrete Gaussian: t = ⌊σ⌋ + 1, Y from the discrete Laplace of scale t,
//                accepted with probability exp(−(|Y| − σ²/t)²/(2σ²)); otherwise start again.
//                (exp(−|y|/t)·exp(−(|y| − σ²/t)²/(2σ²)) = exp(−y²/(2σ²))·exp(−σ²/(2t²)).)
// Every Bernoulli(a/b) is "a uniform integer below b is less than a", and every uniform integer
// below b is drawn without bias by rejection: exactly ⌈log₂ b⌉ fresh random bits, rejected when
// the value is ≥ b (probability < ½ per try). Bits are dealt from 64-bit words a few at a time
// and never reused, so a draw at σ = 1.5 consumes about 1.2 words, not 15.
//
// What this does not hide: the run time varies with the draw (the loops above), so an observer
// timing the sampler learns something about the noise (Canonne et al. discuss timing attacks
// on these samplers). The noise must be drawn where its timing is not observable.
//
// σ² is an exact rational num/den (DiscreteGaussianScale). With a = |Y|, the acceptance exponent
// of Algorithm 3 is γ = (|Y| − σ²/t)²/(2σ²) = (a·den·t − num)² / (2·num·den·t²), a ratio of
// integers. Widths (the .cpp repeats the argument where the arithmetic is done): every scale
// satisfies num ≤ 2⁸⁴, den < 2⁶⁴ and num·den < 2¹²⁸ (integer s ≤ 2⁴²: num = s², den = 1;
// rational: num, den < 2⁶⁴), so σ ≤ 2⁴², t ≤ 2⁴² + 1, den·t ≤ √(num·den) + den < 2⁶⁵, and for
// any a < 2⁶³ (every int64 draw): a·den·t < 2¹²⁸, the numerator (a·den·t − num)² < 2²⁵⁶, the
// denominator 2·num·den·t² ≤ 2(num + √(num·den))² < 2¹⁷⁰ and the K-loop's denominators (that
// denominator times K < 2⁶⁴) stay below 2²³⁴.
// So 256-bit unsigned integers (Boost.Multiprecision, checked: an overflow would throw rather
// than wrap) hold every intermediate value for every draw the int64 result can express. The
// one event outside — a discrete Laplace draw ≥ 2⁶³, which needs V ≥ 2²⁰ and has probability
// below e^{−2²⁰} — throws SoftwareError rather than return a wrong value.
//
// Randomness comes from any engine of uniform 64-bit words (the privacy noise stream's
// ChaChaEngine in production); the heavy code is compiled once, behind WordSource.
#pragma once

#include <concepts>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>

namespace dpmcmc {

// σ² of a discrete Gaussian, as the exact rational num/den. Only the factories make one, so every
// scale satisfies the bounds the sampler's integer widths rely on (see above).
class DiscreteGaussianScale {
 public:
  // σ = s, an integer in [1, 2⁴²]: σ² = s²/1. ConfigError outside.
  static DiscreteGaussianScale integer(std::uint64_t s);
  // σ² = num/den with num, den in [1, 2⁶⁴ − 1], stored reduced by their gcd. E.g. σ = 1.5 is
  // rational(9, 4). ConfigError for num = 0 or den = 0.
  static DiscreteGaussianScale rational(std::uint64_t num, std::uint64_t den);

  // σ² = (num_high·2⁶⁴ + num_low) / den exactly (num_high is nonzero only for integer s > 2³²).
  std::uint64_t num_high() const { return num_high_; }
  std::uint64_t num_low() const { return num_low_; }
  std::uint64_t den() const { return den_; }

  // σ² rounded to nearest double: for reports. Never used by the sampler.
  double variance() const;
  // The largest double ≤ σ (checked in exact rational arithmetic): the noise scale to give the
  // accountants, whose δ decreases with σ (privacy/discrete_noise_bound.hpp), so rounding down
  // is the safe side. Exact for integer s.
  double sigma_lower_bound() const;

  friend bool operator==(const DiscreteGaussianScale&, const DiscreteGaussianScale&) = default;

 private:
  DiscreteGaussianScale(std::uint64_t num_high, std::uint64_t num_low, std::uint64_t den)
      : num_high_(num_high), num_low_(num_low), den_(den) {}
  std::uint64_t num_high_;
  std::uint64_t num_low_;
  std::uint64_t den_;
};

// An engine whose every call returns a uniform 64-bit word (ChaChaEngine, AlgorithmEngine,
// std::mt19937_64). 32-bit engines are refused at compile time: the samplers consume whole words.
template <class E>
concept UniformWordEngine = std::uniform_random_bit_generator<E> &&(E::min() == 0) &&
                            (E::max() == std::numeric_limits<std::uint64_t>::max());

// A non-owning reference to such an engine: the samplers below are compiled once, not per engine
// type. Valid while the engine lives; draws advance the referenced engine.
class WordSource {
 public:
  template <UniformWordEngine Engine>
  explicit WordSource(Engine& engine) : engine_(&engine), next_(&next<Engine>) {}
  std::uint64_t operator()() const { return next_(engine_); }

 private:
  template <class Engine>
  static std::uint64_t next(void* engine) {
    return static_cast<std::uint64_t>((*static_cast<Engine*>(engine))());
  }
  void* engine_;
  std::uint64_t (*next_)(void*);
};

// Bernoulli(exp(−num/den)) exactly (Algorithm 1), for any num ≥ 0 and den ≥ 1 (ConfigError for
// den = 0).
bool bernoulli_exp_minus(WordSource bits, std::uint64_t num, std::uint64_t den);
template <UniformWordEngine Engine>
bool bernoulli_exp_minus(Engine& engine, std::uint64_t num, std::uint64_t den) {
  return bernoulli_exp_minus(WordSource(engine), num, den);
}

// The discrete Laplace of integer scale t ∈ [1, 2⁴² + 1], P(Y = y) ∝ exp(−|y|/t) (Algorithm 2).
// ConfigError for t outside that range.
std::int64_t sample_discrete_laplace(WordSource bits, std::uint64_t t);
template <UniformWordEngine Engine>
std::int64_t sample_discrete_laplace(Engine& engine, std::uint64_t t) {
  return sample_discrete_laplace(WordSource(engine), t);
}

// The discrete Gaussian N_Z(0, σ²) of a fixed scale (Algorithm 3). Construction does the scale's
// fixed arithmetic once (t, den·t, 2·num·den·t² and whether a draw fits in 64 bits); copies are
// cheap and share it. Drawing is const and thread-safe given distinct engines.
class DiscreteGaussian {
 public:
  explicit DiscreteGaussian(const DiscreteGaussianScale& scale);

  std::int64_t sample(WordSource bits) const;
  template <UniformWordEngine Engine>
  std::int64_t operator()(Engine& engine) const {
    return sample(WordSource(engine));
  }

  const DiscreteGaussianScale& scale() const;
  // The discrete Laplace scale of the proposals, t = ⌊σ⌋ + 1.
  std::uint64_t laplace_scale() const;

 private:
  struct Impl;
  std::shared_ptr<const Impl> impl_;
};

// One draw of N_Z(0, σ²). Redoes the scale's set-up on every call; keep a DiscreteGaussian to
// draw many.
template <UniformWordEngine Engine>
std::int64_t sample_discrete_gaussian(Engine& engine, const DiscreteGaussianScale& scale) {
  return DiscreteGaussian(scale)(engine);
}

}  // namespace dpmcmc
