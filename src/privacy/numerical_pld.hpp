// Numerical privacy-loss distributions (the "Fourier accountant", issue "Privacy accounting
// toolkit", item 4; Koskela, Jälkö and Honkela 2020, cited as [KJH20] in
// [Raisa2021] Section 3.4). A release with dominating pair (P, Q) has privacy loss
// ℓ = log(P/Q)(X), X ~ P; composition adds independent losses, so the loss law of a composition
// is the convolution of the single laws, computed here by FFT (FFTW3). δ(ε) of the composition
// is δ(ε) = Pr[ℓ = +∞] + E[(1 − e^{ε−ℓ})₊] (Sommer, Meiser and Mohammadi 2019).
//
// Pairs (Δ = 1 after dividing σ by the sensitivity, z = σ/Δ; Q = N(0, z²), P = N(1, z²)):
//   plain Gaussian         (P, Q); symmetric, so add and remove coincide.
//   Poisson, add/remove    remove: (P', Q) with P' = (1−q)Q + qP;  add: (Q, P').
//                          The neighbouring pair (X, X') is the same for every release of a
//                          composition, so each direction is composed separately and the
//                          answer is the worse of the two (max δ, max ε).
//   WOR, substitute        the symmetric dominating pair (P_s, Q_s) of rdp.hpp
//                          (rdp_wor_subsampled_gaussian): loss law of P'‖Q on (0, ∞), its
//                          mirror image weighted by e^{−ℓ} (= the law of −log(P'/Q) under Q
//                          restricted to x > ½) on (−∞, 0), and an atom
//                          1 − P'(x > ½) − Q(x > ½) at 0. One composition suffices.
// Event lists mixing these kinds are composed in the same way (all events share one relation).
//
// ERROR BUDGET. Losses live on the grid ℓ_k = k·h (h = `interval`). Both discretisations use
// exact interval probabilities (normal CDFs of the loss-interval edges mapped back to the real
// line, evaluated on the accurate tail side):
//   * pessimistic ("pld-numerical-upper"): "connect the dots" (Doroshenko, Ghazi, Kamath, Kumar
//     and Manurangsi 2022): the mass of each bin (ℓ_{k−1}, ℓ_k] is split between its two ends so
//     that both distributions of the pair keep their mass; the resulting grid pair has the
//     chords of the (convex) hockey-stick curve as its curve, so it dominates the true pair for
//     every γ and so does its composition (dominating pairs compose). Mass beyond the upper
//     truncation goes to +∞ and mass below the lower truncation is moved up to the lowest kept
//     bin: moves that increase the loss, under which δ(ε) = E[(1 − e^{ε−ℓ})₊] (+∞ contributing
//     1) can only grow. The result is a certified upper bound whose discretisation error is of
//     second order in h (no systematic shift).
//   * optimistic ("pld-numerical-lower"): merging. The loss axis is cut into intervals J whose
//     merged pair (P(J), Q(J)) has its loss log(P(J)/Q(J)) exactly on a grid point; merging is
//     a post-processing (the output is quantised), so the merged pair, and the composition of
//     merged pairs, is dominated by the true one. Mass below the window is dropped and a rest
//     that cannot reach the next grid point is put at the grid point below it (moves that
//     decrease the loss or remove non-negative terms): a certified lower bound.
//   Contributions:
//   - discretisation: neither bound shifts the loss systematically; both are exact at the grid
//     points for one release and err at second order in h in between, so the gap between the
//     upper and the lower ε shrinks ~4× when h halves (tested) until it meets the floor set by
//     round-off and tails (~1e-4 in ε for 10⁴ releases at h = 1e-4, δ = 1e-5);
//   - truncation: per single release, `tail_mass` (default 1e-15) of probability on each side;
//     after every convolution, tails of total mass ≤ `tail_mass` on each side; optionally a hard
//     window [loss_min, loss_max]. For the upper bound all of it is accounted exactly, in the
//     +∞ atom (`infinity_mass`, which adds directly to δ) or by rounding up; for the lower bound
//     it is rounded down or dropped. Truncation never invalidates either bound; it only widens
//     the gap, and the +∞ mass is reported.
//   - wrap-around: none. Every convolution is a linear one: both operands are zero-padded to at
//     least la + lb − 1 before the FFT, so no mass can wrap around the circular buffer; k
//     identical releases are composed by repeated squaring, truncating after each product.
//   - floating point: the round-off of every convolution is bounded from the standard error
//     analysis of the FFT (Higham 2002, Theorem 24.2; details in numerical_pld_compose.cpp), as
//     an ℓ1 bound on the error of the output pmf, and accumulated in `roundoff_mass`; it is added
//     to the upper δ and subtracted from the lower δ. For 10⁴ compositions of the subsampled
//     Gaussian (q = 0.01, σ = 1, h = 1e-4) it is ~8e-9, for 10³ ~5e-11: δ targets within a few
//     times of it get loose upper bounds (down to ε = +∞); use the closed form or RDP there.
//     It grows with the number of bins and of squarings: 6.6e-7 (with the tails) for 6.1·10⁷
//     Poisson releases (q = 0.01, σ = 31.6), where δ = 1e-6 leaves the upper ε (15.0) barely
//     below RDP's (15.18). NumericalPldProfile::caveat reports it once it reaches δ.
// Hence the upper bound is certified: the discretised pair dominates the true one, tails are
// accounted exactly, nothing wraps around, and round-off is bounded and added.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "privacy/accountant.hpp"
#include "privacy/privacy_event.hpp"

namespace dpmcmc {

struct NumericalPldOptions {
  // Width h of a bin on the privacy-loss axis. With 1e-4 the upper and lower ε of 10⁴
  // compositions of a subsampled Gaussian (q = 0.01, σ = 1, δ = 1e-5) differ by ~6e-4.
  double interval = 1e-4;
  // Probability cut from each tail of every single-release PLD and of every intermediate
  // composition (accounted as described above).
  double tail_mass = 1e-15;
  // Optional hard window on the loss axis applied to every PLD (±∞: none).
  double loss_min = -std::numeric_limits<double>::infinity();
  double loss_max = std::numeric_limits<double>::infinity();
  // Largest number of bins a PLD may have; beyond, ConfigError (suggesting a larger interval).
  std::size_t max_bins = std::size_t{1} << 23;
};

// Throws ConfigError naming the option when the options are unusable.
void validate(const NumericalPldOptions& options);

enum class PldRounding { pessimistic, optimistic };

enum class PldDirection {
  remove,     // (P', Q): for q = 1 the plain Gaussian pair
  add,        // (Q, P')
  symmetric,  // the dominating pair of WOR subsampling under substitution
};

// A discretised privacy-loss distribution: pmf[i] is the probability of loss
// (min_index + i)·interval; infinity_mass that of loss +∞ (pessimistic PLDs only).
struct DiscretePld {
  double interval = 1e-4;
  PldRounding rounding = PldRounding::pessimistic;
  std::int64_t min_index = 0;
  std::vector<double> pmf{1.0};
  double infinity_mass = 0.0;
  double roundoff_mass = 0.0;  // bound on the ℓ1 round-off of the FFTs so far (see above)

  double loss(std::size_t i) const {
    return static_cast<double>(min_index + static_cast<std::int64_t>(i)) * interval;
  }
  // δ(ε) for ε ≥ 0 of this PLD, including its rounding allowance (added for pessimistic PLDs,
  // subtracted for optimistic ones); clamped to [0, 1].
  double delta(double epsilon) const;
  // The smallest ε ≥ 0 with delta(ε) ≤ δ; +∞ when the +∞ atom alone exceeds δ.
  double epsilon(double delta) const;
  // Total finite probability (1 − infinity_mass − what an optimistic PLD dropped).
  double finite_mass() const;
};

// The identity of composition (loss 0 with probability 1).
DiscretePld identity_pld(double interval, PldRounding rounding);

// Discretised PLD of one release of a Gaussian (q = 1) or subsampled Gaussian with noise
// multiplier z = σ/Δ, in the given direction. Throws ConfigError on invalid q, z or options.
DiscretePld subsampled_gaussian_pld(double q, double noise_multiplier, PldDirection direction,
                                    PldRounding rounding, const NumericalPldOptions& options);

// Linear convolution (FFT for large operands) followed by truncation; operands must share
// interval and rounding.
DiscretePld compose(const DiscretePld& a, const DiscretePld& b, const NumericalPldOptions& options);
// k-fold composition of a with itself by repeated squaring (k = 0 gives the identity).
DiscretePld self_compose(const DiscretePld& a, std::uint64_t k, const NumericalPldOptions& options);

// The composed PLDs of an event list: one per direction that must be checked.
class NumericalPldProfile : public PrivacyProfile {
 public:
  NumericalPldProfile(std::vector<DiscretePld> directions, PldRounding rounding);
  double epsilon(double delta) const override;  // max over directions
  double delta(double epsilon) const override;  // max over directions
  // Non-empty when the error allowance reaches δ: round-off plus the +∞ atom for the upper bound
  // (ε(δ) = +∞ however small the true ε), round-off for the lower bound (computed at δ + it),
  // and a lower bound of exactly 0 (a grid too coarse for the releases' losses).
  std::string caveat(double delta) const override;
  PldRounding rounding() const { return rounding_; }
  const std::vector<DiscretePld>& directions() const { return directions_; }

 private:
  std::vector<DiscretePld> directions_;
  PldRounding rounding_;
};

// "pld-numerical-upper" (pessimistic, certified upper bound) or "pld-numerical-lower"
// (optimistic, lower bound). Supports the Gaussian, Poisson add/remove and WOR substitute kinds
// (rdp_events.hpp).
class NumericalPldAccountant : public Accountant {
 public:
  explicit NumericalPldAccountant(PldRounding rounding, NumericalPldOptions options = {});
  std::string name() const override;
  BoundKind bound() const override;
  bool supports(const PrivacyEvent& event) const override;
  std::unique_ptr<PrivacyProfile> compose(std::span<const PrivacyEvent> events) const override;
  std::unique_ptr<NumericalPldProfile> compose_pld(std::span<const PrivacyEvent> events) const;
  const NumericalPldOptions& options() const { return options_; }

 private:
  // k identical releases, P^k, from the powers P^(2^j) of the release's PLD, multiplied in the
  // order self_compose uses, so the result is bit for bit self_compose's. The powers are kept:
  // a planner composes the same release at ~2 log₂ k counts, and all share them (issue 28:
  // "the numerical PLD once, cached by event signature").
  DiscretePld power(double q, double noise_multiplier, PldDirection direction,
                    std::uint64_t k) const;

  PldRounding rounding_;
  NumericalPldOptions options_;
  mutable std::mutex mutex_;
  mutable std::map<std::tuple<double, double, int>, std::vector<DiscretePld>> powers_;
};

}  // namespace dpmcmc
