#include "core/discrete_gaussian.hpp"

#include <fmt/format.h>

#include <bit>
#include <boost/multiprecision/cpp_int.hpp>
#include <cmath>
#include <numeric>

#include "core/error.hpp"

namespace dpmcmc {
namespace {

namespace mp = boost::multiprecision;

// 256-bit unsigned integers with overflow checking (an overflow throws std::overflow_error, a
// negative difference std::range_error): the bounds of the header say neither can happen, and
// if they were wrong the sampler must fail loudly rather than draw from a wrong distribution.
// Expression templates off: every intermediate is a U256, so each operation is range-checked.
using U256 = mp::number<mp::cpp_int_backend<256, 256, mp::unsigned_magnitude, mp::checked, void>,
                        mp::et_off>;

constexpr std::uint64_t kMax64 = std::numeric_limits<std::uint64_t>::max();
constexpr std::uint64_t kMaxIntegerScale = std::uint64_t{1} << 42;
constexpr std::uint64_t kMaxLaplaceScale = kMaxIntegerScale + 1;
constexpr std::uint64_t kMaxDraw = std::numeric_limits<std::int64_t>::max();  // 2⁶³ − 1

// ---- Random bits, uniform integers and Bernoulli(a/b) ------------------------------------------

// Uniform bits handed out a few at a time from 64-bit words, so that a Bernoulli(1/2) or a
// uniform below 3 costs one or two bits, not a word. Bits are never reused: a request larger than
// what is left discards the rest and starts a fresh word. The bits handed out are independent
// and uniform whatever the requests, so every rejection sampler on them stays exact. One pool
// lives for one public call (one draw), so a draw is a function of the engine state alone.
class BitPool {
 public:
  explicit BitPool(WordSource words) : words_(words) {}

  // w uniform bits, 1 ≤ w ≤ 64, as the low bits of the result.
  std::uint64_t take(int w) {
    if (w == 64) return words_();
    if (available_ < w) {
      buffer_ = words_();
      available_ = 64;
    }
    const std::uint64_t x = buffer_ & ((std::uint64_t{1} << w) - 1);
    buffer_ >>= w;
    available_ -= w;
    return x;
  }

 private:
  WordSource words_;
  std::uint64_t buffer_ = 0;
  int available_ = 0;
};

// Uniform on {0, …, m−1}, m ≥ 1, without bias: with w = bit width of m − 1 (so 2^{w−1} < m ≤
// 2^w), w fresh bits are a uniform integer below 2^w, rejected when ≥ m. Each try succeeds with
// probability m/2^w > ½.
std::uint64_t uniform_below(BitPool& bits, std::uint64_t m) {
  if (m == 1) return 0;
  const int w = 64 - std::countl_zero(m - 1);  // ∈ [1, 64]
  for (;;) {
    const std::uint64_t x = bits.take(w);
    if (x < m) return x;
  }
}

// The same for m up to 2²⁵⁶ − 1: w bits, the top w − 64(⌈w/64⌉ − 1) first and then whole words;
// rejected when ≥ m.
U256 uniform_below(BitPool& bits, const U256& m) {
  if (m <= kMax64) return uniform_below(bits, static_cast<std::uint64_t>(m));
  const unsigned width = static_cast<unsigned>(mp::msb(U256(m - 1))) + 1;  // in [65, 256]
  const unsigned words = (width + 63) / 64;
  for (;;) {
    U256 x = bits.take(static_cast<int>(width - 64 * (words - 1)));
    for (unsigned i = 1; i < words; ++i) x = (x << 64) | U256(bits.take(64));  // x < 2^width
    if (x < m) return x;
  }
}

// Bernoulli(a/b) for 0 ≤ a ≤ b, b ≥ 1: a uniform integer below b is < a. The certain cases
// a = 0 and a = b draw nothing.
bool bernoulli_ratio(BitPool& bits, std::uint64_t a, std::uint64_t b) {
  if (a == 0) return false;
  if (a >= b) return true;
  return uniform_below(bits, b) < a;
}

bool bernoulli_ratio(BitPool& bits, const U256& a, const U256& b) {
  if (a == 0) return false;
  if (a >= b) return true;
  return uniform_below(bits, b) < a;
}

// ---- Algorithm 1: Bernoulli(exp(−γ)) ---------------------------------------------------------

// The K-loop for γ = n/d ∈ [0, 1], from K = k on, in 256 bits: A_K ~ Bernoulli(n/(d·K)) until
// the first A_K = 0; 1 iff that K is odd. Here d < 2¹⁷⁰ (the largest denominator the samplers
// pass, see the header) and K < 2⁶⁴, so d·K < 2²³⁴. K cannot reach 2⁶⁴: each step draws fresh
// bits (and P(K > k) ≤ 1/k!); the check only makes the bound unconditional.
bool exp_fraction_wide(BitPool& bits, const U256& n, const U256& d, std::uint64_t k) {
  for (;; ++k) {
    if (k == kMax64) throw SoftwareError("bernoulli_exp_minus: the K-loop reached 2^64 steps");
    if (!bernoulli_ratio(bits, n, d * k)) return k % 2 == 1;
  }
}

// The K-loop in 64 bits while d·K fits (for the discrete Laplace's d = t < 2⁴³: while K < 2²¹,
// i.e. always in practice), continuing in 256 bits beyond.
bool exp_fraction(BitPool& bits, std::uint64_t n, std::uint64_t d) {
  const std::uint64_t k_max = kMax64 / d;  // d·K ≤ 2⁶⁴ − 1 ⇔ K ≤ k_max
  for (std::uint64_t k = 1;; ++k) {
    if (k > k_max) return exp_fraction_wide(bits, U256(n), U256(d), k);
    if (!bernoulli_ratio(bits, n, d * k)) return k % 2 == 1;
  }
}

// Bernoulli(e^{−1}): the K-loop with γ = 1 (Bernoulli(1/K) for K = 1, 2, …).
bool exp_minus_one(BitPool& bits) {
  return exp_fraction(bits, 1, 1);
}

// γ = n/d ≥ 0: ⌊γ⌋ draws of Bernoulli(e^{−1}), then Bernoulli(exp(−(n mod d)/d)); all must be 1.
bool exp_minus(BitPool& bits, std::uint64_t n, std::uint64_t d) {
  const std::uint64_t whole = n / d;
  for (std::uint64_t i = 0; i < whole; ++i) {
    if (!exp_minus_one(bits)) return false;
  }
  return exp_fraction(bits, n % d, d);
}

bool exp_minus(BitPool& bits, const U256& n, const U256& d) {
  U256 whole, rest;
  mp::divide_qr(n, d, whole, rest);
  // ⌊γ⌋ < 2²⁵⁶ is counted down in 64-bit chunks; the loop stops at the first 0, after 1.6 draws
  // on average, so a large ⌊γ⌋ costs nothing.
  while (whole != 0) {
    const std::uint64_t chunk = whole > kMax64 ? kMax64 : static_cast<std::uint64_t>(whole);
    for (std::uint64_t i = 0; i < chunk; ++i) {
      if (!exp_minus_one(bits)) return false;
    }
    whole -= chunk;
  }
  if (d <= kMax64) {
    return exp_fraction(bits, static_cast<std::uint64_t>(rest), static_cast<std::uint64_t>(d));
  }
  return exp_fraction_wide(bits, rest, d, 1);
}

// ---- Algorithm 2: the discrete Laplace of integer scale t (P(y) ∝ e^{−|y|/t}) ----------------

// t ∈ [1, 2⁴² + 1]. U < t and t·K fit 64 bits (see exp_fraction); X = U + tV is checked against
// 2⁶³ − 1 before it is formed, so nothing wraps: for V < 2²⁰ at once (X < 2⁴³ + 2⁴³·2²⁰ < 2⁶³),
// beyond by a division. A draw beyond 2⁶³ − 1 needs V > (2⁶³ − 2⁴³)/2⁴³ > 2²⁰, probability
// e^{−V} < e^{−2²⁰}: it throws instead of returning a wrong value.
std::int64_t laplace(BitPool& bits, std::uint64_t t) {
  constexpr std::uint64_t kSafeV = std::uint64_t{1} << 20;
  for (;;) {
    const std::uint64_t u = uniform_below(bits, t);
    if (!exp_fraction(bits, u, t)) continue;  // keep U with probability exp(−U/t)
    std::uint64_t v = 0;                      // V ~ Geometric: P(V = v) = (1 − e^{−1}) e^{−v}
    while (exp_minus_one(bits)) ++v;
    if (v >= kSafeV && v > (kMaxDraw - u) / t) {
      throw SoftwareError("discrete Laplace: a draw beyond 2^63 - 1 (probability < e^-(2^20))");
    }
    const std::uint64_t x = u + t * v;
    const bool negative = bits.take(1) != 0;  // B ~ Bernoulli(½)
    if (negative && x == 0) continue;         // "−0": reject, or 0 would be counted twice
    return negative ? -static_cast<std::int64_t>(x) : static_cast<std::int64_t>(x);
  }
}

void check_laplace_scale(std::uint64_t t) {
  if (t < 1 || t > kMaxLaplaceScale) {
    throw ConfigError(
        fmt::format("discrete Laplace: the scale t must be in [1, 2^42 + 1], got {}", t));
  }
}

}  // namespace

// ---- DiscreteGaussianScale ------------------------------------------------------------------

DiscreteGaussianScale DiscreteGaussianScale::integer(std::uint64_t s) {
  if (s < 1 || s > kMaxIntegerScale) {
    throw ConfigError(
        fmt::format("discrete Gaussian: the integer scale s must be in [1, 2^42], got {}", s));
  }
  const U256 square = U256(s) * s;  // ≤ 2⁸⁴
  return DiscreteGaussianScale(static_cast<std::uint64_t>(square >> 64),
                               static_cast<std::uint64_t>(square & kMax64), 1);
}

DiscreteGaussianScale DiscreteGaussianScale::rational(std::uint64_t num, std::uint64_t den) {
  if (num == 0 || den == 0) {
    throw ConfigError(fmt::format(
        "discrete Gaussian: s^2 = num/den needs num >= 1 and den >= 1, got {}/{}", num, den));
  }
  const std::uint64_t g = std::gcd(num, den);
  return DiscreteGaussianScale(0, num / g, den / g);
}

double DiscreteGaussianScale::variance() const {
  return (static_cast<double>(num_high_) * 0x1p64 + static_cast<double>(num_low_)) /
         static_cast<double>(den_);
}

double DiscreteGaussianScale::sigma_lower_bound() const {
  const mp::cpp_int num = (mp::cpp_int(num_high_) << 64) | num_low_;
  // c ≤ σ ⇔ c²·den ≤ num, decided exactly: a double converts to a rational without rounding.
  const auto at_most_sigma = [&](double c) {
    const mp::cpp_rational r(c);
    return r * r * den_ <= num;
  };
  double c = std::sqrt(variance());  // within a few ulps of σ
  while (!at_most_sigma(c)) c = std::nextafter(c, 0.0);
  for (;;) {  // then the largest such double
    const double up = std::nextafter(c, HUGE_VAL);
    if (!at_most_sigma(up)) return c;
    c = up;
  }
}

// ---- Algorithm 3: the discrete Gaussian -------------------------------------------------------

struct DiscreteGaussian::Impl {
  DiscreteGaussianScale scale;
  U256 num;         // ≤ 2⁸⁴
  std::uint64_t t;  // ⌊σ⌋ + 1 ≤ 2⁴² + 1
  U256 den_t;       // den·t ≤ √(num·den) + den < 2⁶⁵
  U256 gamma_den;   // 2·num·den·t² ≤ 2(num + √(num·den))² < 2¹⁷⁰
  // The 64-bit path, when num < 2³², den·t < 2³² and gamma_den < 2⁶⁴: for a ≤ narrow_max_a,
  // a·den·t < 2³², so |a·den·t − num| < 2³² and its square < 2⁶⁴. Integer scales up to
  // s ≈ 55 000 qualify (s = 1000: every |Y| < 4.2·10⁶ takes it, i.e. all draws in practice);
  // other draws and larger scales take the 256-bit path.
  bool narrow = false;
  std::uint64_t num64 = 0, den_t64 = 0, gamma_den64 = 0, narrow_max_a = 0;

  explicit Impl(const DiscreteGaussianScale& s) : scale(s) {
    num = (U256(s.num_high()) << 64) | U256(s.num_low());
    const U256 den(s.den());
    // ⌊σ⌋ = ⌊√⌊num/den⌋⌋ (n ≤ √x ⇔ n² ≤ ⌊x⌋ for integers n): an exact integer square root.
    const U256 floor_sigma = mp::sqrt(U256(num / den));
    t = static_cast<std::uint64_t>(floor_sigma) + 1;
    den_t = den * t;
    gamma_den = U256(2) * num * den * t * t;
    constexpr std::uint64_t k32 = std::uint64_t{1} << 32;
    if (num < k32 && den_t < k32 && gamma_den <= kMax64) {
      narrow = true;
      num64 = static_cast<std::uint64_t>(num);
      den_t64 = static_cast<std::uint64_t>(den_t);
      gamma_den64 = static_cast<std::uint64_t>(gamma_den);
      narrow_max_a = (k32 - 1) / den_t64;
    }
  }

  // Bernoulli(exp(−(a − σ²/t)²/(2σ²))) = Bernoulli(exp(−(a·den·t − num)²/(2·num·den·t²))).
  bool accept(BitPool& bits, std::uint64_t a) const {
    if (narrow && a <= narrow_max_a) {
      const std::uint64_t x = a * den_t64;
      const std::uint64_t diff = x >= num64 ? x - num64 : num64 - x;
      return exp_minus(bits, diff * diff, gamma_den64);
    }
    const U256 x = U256(a) * den_t;  // a < 2⁶³: < 2¹²⁸
    const U256 diff = x >= num ? U256(x - num) : U256(num - x);
    return exp_minus(bits, U256(diff * diff), gamma_den);  // < 2²⁵⁶ over < 2¹⁷⁰
  }
};

DiscreteGaussian::DiscreteGaussian(const DiscreteGaussianScale& scale)
    : impl_(std::make_shared<const Impl>(scale)) {}

std::int64_t DiscreteGaussian::sample(WordSource words) const {
  BitPool bits(words);
  for (;;) {
    const std::int64_t y = laplace(bits, impl_->t);
    // |y| ≤ 2⁶³ − 1 (laplace never returns INT64_MIN), so the negation is defined.
    const std::uint64_t a = static_cast<std::uint64_t>(y < 0 ? -y : y);
    if (impl_->accept(bits, a)) return y;
  }
}

const DiscreteGaussianScale& DiscreteGaussian::scale() const {
  return impl_->scale;
}

std::uint64_t DiscreteGaussian::laplace_scale() const {
  return impl_->t;
}

// ---- Free functions ---------------------------------------------------------------------------

bool bernoulli_exp_minus(WordSource words, std::uint64_t num, std::uint64_t den) {
  if (den == 0) throw ConfigError("bernoulli_exp_minus: the denominator of gamma must be >= 1");
  BitPool bits(words);
  return exp_minus(bits, num, den);
}

std::int64_t sample_discrete_laplace(WordSource words, std::uint64_t t) {
  check_laplace_scale(t);
  BitPool bits(words);
  return laplace(bits, t);
}

}  // namespace dpmcmc
