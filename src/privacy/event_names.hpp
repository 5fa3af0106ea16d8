// Names of the privacy event vocabulary (mechanism, sampling, neighbouring relation) as used in
// JSON run reports and on the command line, and a one-line human description of an event for
// error messages. Parsing accepts both spellings users meet: "subsampled-gaussian" (command line)
// and "subsampled_gaussian" (JSON).
#pragma once

#include <string>
#include <string_view>

#include "privacy/privacy_event.hpp"

namespace dpmcmc {

// Canonical names: "gaussian", "subsampled_gaussian", "approximate_dp"; "none", "poisson",
// "without_replacement"; "add_remove", "substitute".
const char* to_string(Mechanism m);
const char* to_string(Sampling s);
const char* to_string(Neighbouring r);

// Inverse of to_string; '-' and '_' are interchangeable. Throws ConfigError naming `what` (the
// option or JSON key the text came from) and the accepted names.
Mechanism parse_mechanism(std::string_view text, std::string_view what = "mechanism");
Sampling parse_sampling(std::string_view text, std::string_view what = "sampling");
Neighbouring parse_neighbouring(std::string_view text, std::string_view what = "relation");

// e.g. "gaussian(σ/Δ=4, substitute, ×1000, llr_sum)"; used to name events in error messages.
std::string describe(const PrivacyEvent& event);

}  // namespace dpmcmc
