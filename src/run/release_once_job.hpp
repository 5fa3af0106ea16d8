// The job of `dpmcmc sample --sampler dp-nss` ("release once, sample forever";
// models/noisy_statistics.hpp): a regression family's clipped sufficient statistics are released
// once through PrivateData with Gaussian noise calibrated to the whole budget, and NUTS then
// samples the posterior given the release for --iter/--warmup iterations, as long as the user
// wants: the chains see only the released vector, so they are post-processing and cost nothing
// more (their draws, lp__, timings and diagnostics are all publishable).
//
// The release's noise multiplier z is the smallest for which the certified planner allows the one
// release within (ε, δ) — z = 1/√(2 μ_max(ε, δ)) for the exact Gaussian PLD, raised by 1 % steps
// until the planner (with the discrete noise's share of δ) agrees. The privacy section of
// report.json is the planner's (planned against recorded, per accountant) plus the released
// statistic itself, which is public. The rows' clip and impute counts go to DIR.curator/.
// The run keeps no checkpoints: rerun it (the release is the same for the same seed and key).
#pragma once

#include <cstdint>

#include "models/glm.hpp"
#include "run/sample_job.hpp"

namespace dpmcmc {

inline constexpr const char* kReleaseOnceSampler = "dp-nss";

// The pilot releases of a logistic regression by default (none for the other families), and
// their share of the budget (of zCDP's ρ): release_once_job.cpp says how they were measured.
std::uint64_t default_pilot_releases(GlmFamily family, std::size_t n);
inline constexpr double kDefaultPilotShare = 0.3;

// UsageError unless the spec is a linear, normal, logistic or poisson (with its intercept) user
// model with --epsilon.
SampleOutcome run_release_once_job(const SampleSpec& spec);

}  // namespace dpmcmc
