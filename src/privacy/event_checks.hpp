// Validation of privacy events and of event lists against an accountant. Accountants call these
// at the top of compose() so that a bad event (σ ≤ 0, q ∉ (0, 1], …) or one they cannot
// interpret is reported with its position and description instead of producing a silent NaN.
#pragma once

#include <span>
#include <string_view>

#include "privacy/accountant.hpp"
#include "privacy/privacy_event.hpp"

namespace dpmcmc {

// Throws ConfigError unless the event is well formed:
// - Gaussian kinds: 0 < Δ < ∞, 0 < σ < ∞;
// - gaussian: sampling none and q = 1; subsampled_gaussian: sampling poisson or
//   without_replacement and q ∈ (0, 1];
// - approximate_dp: 0 ≤ ε < ∞, 0 ≤ δ < 1;
// - count ≥ 1.
// `where` prefixes the message, e.g. "event #3 of the run log".
void validate_event(const PrivacyEvent& event, std::string_view where = "privacy event");

// Validates every event and throws ConfigError naming the first one `accountant` does not
// support (its index and description).
void check_supported(const Accountant& accountant, std::span<const PrivacyEvent> events);

// Throws ConfigError when the events mix neighbouring relations: each event's guarantee (its Δ,
// or its (ε, δ)) holds for its own relation, and add/remove and substitute guarantees do not
// compose into a guarantee for either relation. `who` names the caller in the message.
void check_single_relation(std::span<const PrivacyEvent> events, std::string_view who);

// True when every event is valid and supported by the accountant, and all share one relation.
bool supports_all(const Accountant& accountant, std::span<const PrivacyEvent> events);

// Σ count·Δ²/(2σ²) over Gaussian events: both the mean μ of the composed Gaussian privacy-loss
// distribution ([RaisaKoskelaHonkela2021] Theorem 2.4) and the zCDP ρ of the composition (for a
// Gaussian release the two coincide). The caller checks that every event is a plain Gaussian.
double gaussian_half_inverse_square_sum(std::span<const PrivacyEvent> events);

}  // namespace dpmcmc
