// What a release released, as a type: the kinds of release the private samplers make (one per
// mechanism of private_data.hpp and the kernels' own), so that events, allowances and the
// accountants tell them apart by an enum, never by comparing label strings. The names are the
// "label" values of run reports and event files (event_json.hpp).
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace dpmcmc {

enum class ReleaseKind {
  other,        // an event read from a file without a label (`dpmcmc account --events`)
  llr_sum,      // penalty test: noisy clipped log-likelihood-ratio sum over all rows
  grad_sum,     // DP HMC: noisy clipped gradient sum over all rows
  grad_batch,   // DP-SGLD / DP-SGNHT: noisy clipped gradient sum over a secret batch
  llr_batch,    // minibatch DP penalty: corrected ratio over a batch without replacement
  barker_test,  // DP Barker: minibatch Barker test with V_corr
  fastmh,       // DP-Fast MH: one iteration's certified (ε, δ)
  suff_stat,    // noisy sufficient statistic (exponential families)
};

inline constexpr std::array<ReleaseKind, 8> kReleaseKinds = {
    ReleaseKind::other,      ReleaseKind::llr_sum,   ReleaseKind::grad_sum,
    ReleaseKind::grad_batch, ReleaseKind::llr_batch, ReleaseKind::barker_test,
    ReleaseKind::fastmh,     ReleaseKind::suff_stat};

// "llr_sum", "grad_sum", …; "" for other.
std::string_view release_kind_name(ReleaseKind kind);
// Inverse of release_kind_name for the named kinds; nullopt for any other text.
std::optional<ReleaseKind> parse_release_kind(std::string_view name);

}  // namespace dpmcmc
