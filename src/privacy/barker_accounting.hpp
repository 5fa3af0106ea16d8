// Privacy accounting of DP Barker ([Raisa2021] Section 3.3, Algorithm 3,
// Theorem 3.3; [Raisa2021short] Section 3.2, Theorem 7; after Heikkilä et al. 2019).
//
// WHAT IS RELEASED. One iteration draws a secret batch B of b rows without replacement (q = b/n),
// clips each tempered log-likelihood ratio r_j = clip(log p(x_j|θ′) − log p(x_j|θ), ±√b/n0)
// (n0 = nT; n0 = n when untempered) and releases
//   Y = λ + N(0, σ² − σ_b²),   λ = (nT/b) Σ_B r_j,   σ_b² = ((nT)²/b) · var_B(r)
// (var_B the population variance, 1/b Σ (r − r̄)²). V_corr is then added from the noise stream,
// which is post-processing. With u_j = nT·r_j ∈ [−√b, √b]:
//   * |Δλ| ≤ 2/√b under substitution of one row of B (the mean's sensitivity);
//   * 0 ≤ σ_b² = var_B(u)/b ≤ 1 (a population variance of values in [−√b, √b] is ≤ b), so the
//     noise variance v = σ² − σ_b² lies in [σ² − 1, σ²]: it is positive whenever σ² > 1;
//   * |Δσ_b²| ≤ 4(b−1)/b² < 5/b (the sup over substitute neighbours; the theorem uses 5/b).
// Y is a Gaussian whose MEAN AND VARIANCE depend on the data. It is not a Gaussian mechanism:
// its privacy-loss variable has a quadratic term, D_α is infinite once α v0 + (1−α) v1 ≤ 0 (for
// some neighbours as soon as α ≳ b/4), and no fixed-variance Gaussian pair dominates it in the
// hockey-stick sense. None of our Gaussian-family events (RDP, PLD, zCDP accountants) can
// therefore describe it truthfully, and the numerical PLD does not apply.
//
// THEOREM 3.3, written out. For σ² = 2 and integer 2 < α < b/5, one iteration is
// (α, ε(α))-RDP for the substitute relation with
//   ε′(α) = 5/(2b) + ln(2b/(b − 5α))/(2(α−1)) + 2α/(b − 5α)        (batch mechanism)
//   ε(α)  = 1/(α−1) · ln(1 + q²C(α,2) min{4(e^{ε′(2)} − 1), 2e^{ε′(2)}}
//                         + 2 Σ_{j=3}^{α} q^j C(α,j) e^{(j−1)ε′(j)})    (WBK19 Theorem 9)
// and k iterations are (α, kε(α))-RDP; Theorem 2.5 (Mironov) converts to
//   ε = kε(α) + ln(1/δ)/(α−1), minimised over the admissible integer orders.
// ε′ is the Rényi divergence of two Gaussians N(μ1, v1), N(μ0, v0):
//   α(μ1−μ0)²/(2v_α) + ln(v0^α v1^{1−α}/v_α)/(2(α−1)),  v_α = αv0 + (1−α)v1,
// bounded with (μ1−μ0)² ≤ 4/b, v1 ≥ 1, v0 ≤ 2, |v0 − v1| ≤ 5/b (so v_α ≥ 1 − 5α/b and
// v0/v1 ≤ 1 + 5/b ≤ e^{5/b}). The same steps with the noise variance σ² > 1 in place of 2
// (v ∈ [σ² − 1, σ²], m = σ² − 1) give the generalisation we implement:
//   ε′(α) = 5/(2bm) + ln(σ²b/(bm − 5α))/(2(α−1)) + 2α/(bm − 5α),   integer 2 < α < bm/5,
// which is Theorem 3.3's formula exactly at σ² = 2 (tested).
//
// HOW IT IS RECORDED. Since no Gaussian event is truthful, each iteration is recorded as one
// event of kind approximate_dp, label "barker_test", sampling without replacement at q = b/n,
// substitute relation, carrying
//   * epsilon, delta: a per-iteration (ε₁, δ₁)-DP certificate derived from Theorem 3.3 with
//     k = 1 at δ₁ = kBarkerEventDelta, so that the classical (ε, δ)-composition accountant, which
//     interprets every approximate_dp event, still gives a valid (loose) bound;
//   * sensitivity = 2/√b (|Δλ|) and noise_sd = σ (√ of the noise variance), from which the
//     "barker-rdp" accountant below recovers b and σ² and composes Theorem 3.3 in RDP.
// The planner then picks "barker-rdp" (it allows far more iterations than the classical route).
// "barker-rdp" is one of the built-in accountants (accountants.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "privacy/accountant.hpp"
#include "privacy/privacy_event.hpp"

namespace dpmcmc {

// δ₁ of the per-iteration (ε₁, δ₁) certificate carried by a Barker event.
inline constexpr double kBarkerEventDelta = 1e-12;

// ConfigError naming --noise-variance, --batch and n unless 1 < σ² < π²/3, 6 ≤ b ≤ n and
// Theorem 3.3 has at least one order (b(σ² − 1) > 15, i.e. b ≥ 16 at σ² = 2).
void validate_barker(double noise_variance, std::size_t batch, std::size_t n);

// The largest integer α with 5α < b(σ² − 1); orders 3 … this are admissible (0 if none).
std::uint64_t barker_max_order(std::size_t batch, double noise_variance);

// ε′(α) of the batch mechanism (generalised Theorem 3.3, see above); +∞ unless 5α < b(σ² − 1).
// Real α > 1 accepted (the theorem uses integers).
double barker_batch_rdp(double alpha, std::size_t batch, double noise_variance);

// ε(α) of one iteration (Theorem 3.3), integer α ≥ 2; +∞ outside the admissible orders.
// Evaluated in log space (the terms e^{(j−1)ε′(j)} overflow near α = b/5).
double barker_rdp(std::uint64_t alpha, double q, std::size_t batch, double noise_variance);

struct BarkerOptimum {
  double value = 0.0;       // ε (barker_epsilon) or δ (barker_delta)
  std::uint64_t order = 0;  // the integer α attaining it (0: no admissible order)
};

// ε(δ) of k iterations: min over integer 3 ≤ α ≤ barker_max_order of kε(α) + ln(1/δ)/(α−1)
// (Theorem 2.5). +∞ when there is no admissible order. k = 0 gives 0.
BarkerOptimum barker_epsilon(std::uint64_t k, double q, std::size_t batch, double noise_variance,
                             double delta);

// One iteration's RDP at the integer orders (index = α; +∞ at the inadmissible orders 0 … 2 and
// beyond barker_max_order): the curve barker_rdp reads. Computed in O(α_max²); callers that
// evaluate often (privacy/spend_meter.hpp) keep it.
std::vector<double> barker_rdp_curve(double q, std::size_t batch, double noise_variance);

// ε(δ) of k repetitions of a curve (index = α): min over 3 ≤ α of k·curve(α) + ln(1/δ)/(α−1)
// (Theorem 2.5), as barker_epsilon and the barker-rdp accountant convert.
BarkerOptimum barker_curve_epsilon(const std::vector<double>& curve, double k, double delta);

// The largest k with barker_epsilon(k, …) ≤ ε: max over the orders of
// ⌊(ε − ln(1/δ)/(α−1))/ε(α)⌋ (0 when no order allows one iteration).
std::uint64_t barker_iterations(double epsilon, double delta, double q, std::size_t batch,
                                double noise_variance);

// One iteration's release as an event (see "HOW IT IS RECORDED"). Validates as validate_barker.
PrivacyEvent dp_barker_event(double noise_variance, std::size_t batch, std::size_t n);
// {dp_barker_event(…)}: the per-iteration template for the planner.
std::vector<PrivacyEvent> dp_barker_template(double noise_variance, std::size_t batch,
                                             std::size_t n);

// The parameters a Barker event encodes, or false when `e` is not a well-formed Barker event.
struct BarkerEventParams {
  std::size_t batch = 0;
  double q = 0.0;
  double noise_variance = 0.0;
};
bool decode_barker_event(const PrivacyEvent& e, BarkerEventParams& out);

// The "barker-rdp" accountant: interprets Barker events only, composes their Theorem 3.3 RDP
// curves order by order (each event's count × ε(α), summed over events) on the integer orders
// admissible for every event, and converts with Theorem 2.5. A certified upper bound (as far as
// Theorem 3.3 is; its derivation is checked in docs/algorithms.md).
class BarkerRdpAccountant final : public Accountant {
 public:
  std::string name() const override { return "barker-rdp"; }
  BoundKind bound() const override { return BoundKind::upper_bound; }
  bool supports(const PrivacyEvent& event) const override;
  std::unique_ptr<PrivacyProfile> compose(std::span<const PrivacyEvent> events) const override;
};

}  // namespace dpmcmc
