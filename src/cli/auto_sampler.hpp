// `sample --sampler auto`: the first choice of `dpmcmc advise` (run/sampler_advice.hpp), chosen
// from the family and the schema before anything is parsed further, so that the chosen sampler's
// options are checked as if it had been named.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>

#include "cli/sample_args.hpp"

namespace dpmcmc::cli {

inline constexpr const char* kAutoSampler = "auto";

// With --sampler auto: sets a.sampler to the advice's first entry and returns why (for the
// report and the printout); otherwise nothing. `schema_doc`: the schema in memory (Python), else
// a.schema is read. UsageError without a regression family and schema.
std::optional<nlohmann::json> resolve_auto_sampler(SampleArgs& a,
                                                   const std::optional<nlohmann::json>& schema_doc);

}  // namespace dpmcmc::cli
