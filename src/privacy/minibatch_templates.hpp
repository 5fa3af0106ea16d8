// Privacy analysis of the minibatch DP penalty ([Raisa2021] Section 3.4, Lemma 3.4,
// Theorem 3.5): the exact sensitivity of its released value and its per-iteration template.
//
// SENSITIVITY (derivation; also docs/algorithms.md, "Minibatch DP penalty: sensitivity").
// Batch B of b rows, β = clip bound (L‖θ′ − θ‖₂), r_x ∈ [−β, β] the clipped log-likelihood
// ratios, R = Σ_B r_x, a = nT/b. The released value before noise is
//   f(B) = a·R − ½a²(Σ_B r_x² − R²/b).
// Substitute neighbours B = B* ∪ {x}, B′ = B* ∪ {x′} share b − 1 rows with sum S = R(B*),
// |S| ≤ (b−1)β; the Σ r² of B* cancels. With r = r_x, r′ = r_x′, d = r − r′, s = r + r′,
// using r² − r′² = ds and (S+r)² − (S+r′)² = 2Sd + ds:
//   σ_b²(B) − σ_b²(B′) = a²[ds − (2Sd + ds)/b] = a²·d·[(b−1)s − 2S]/b,
//   f(B) − f(B′)       = a·d·[1 − (a/2b)((b−1)s − 2S)].
// The constraint |r|, |r′| ≤ β is |d| + |s| ≤ 2β. For fixed |d| = u, |s| = v the bracket is
// largest in modulus when S = ∓(b−1)β opposes s: 1 + (a(b−1)/2b)(v + 2β) (the other sign gives
// at most (a(b−1)/2b)(v + 2β) − 1, smaller). With v = 2β − u,
//   |Δf| ≤ a·u·[1 + (a(b−1)/2b)(4β − u)],
// increasing in u on [0, 2β] (its maximiser u* = b/(a(b−1)) + 2β lies beyond 2β), so the
// supremum is at u = 2β, v = 0 (r = β, r′ = −β, S = (b−1)β), where it is attained:
//   c = sup |Δf| = 2aβ + 2a²(b−1)β²/b = 2nTβ/b + 2(b−1)(nT)²β²/b³.
// The first term is Δλ of Theorem 3.5 and the second is the exact sup of ½|Δσ_b²| taken alone
// (u(v + 2β) ≤ 4β² at the same point), so the joint supremum equals the sum of the separate
// ones: the two worst cases coincide and c is tight. Lemma 3.4 bounds ½Δσ_b² by
// 3(b−1)(nT)²β²/b³ (its proof bounds |r² − r′²| and |R(B*)||r′ − r| separately), 3/2 times the
// exact value; Theorem 3.5's c is therefore loose by a constant factor in its second term, and
// we calibrate the noise to the exact c above. Tested against brute-force maximisation over
// (r, r′, S) grids (tests/privacy/private_data_batch_test.cpp).
//
// NOISE. As in Theorem 3.5 the noise variance is σ² = τc² (τ multiplies c²: docs/references.md,
// thesis minibatch penalty), i.e. the noise multiplier σ/c is √τ — not τn^α as in the full-data
// penalty. Subsampling (WOR, q = b/n, substitute relation) then amplifies the per-release
// (α, α/(2τ))-RDP of the batch mechanism (Theorem 3.5, via WBK19 Theorem 9).
#pragma once

#include <cstddef>
#include <vector>

#include "privacy/privacy_event.hpp"

namespace dpmcmc {

// c = 2aβ + 2a²(b−1)β²/b with a = nT/b, β = bound: the exact substitute-neighbour sensitivity of
// λ − ½σ_b² (see above). No validation (callers check n, T, b, β > 0).
double minibatch_penalty_sensitivity(double n, double temperature, std::size_t batch, double bound);

// One iteration of the minibatch DP penalty: one subsampled Gaussian event, without
// replacement, substitute relation, q = b/n, unit sensitivity, noise √τ, label "llr_batch".
// ConfigError (naming τ, the batch size and n) unless τ > 0 finite, n ≥ 1 and 1 ≤ b ≤ n.
std::vector<PrivacyEvent> dp_penalty_minibatch_template(double tau, std::size_t batch,
                                                        std::size_t n);

}  // namespace dpmcmc
