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
#include <optional>
#include <string>
#include <vector>

#include "models/glm.hpp"
#include "privacy/budget.hpp"
#include "privacy/iteration_templates.hpp"
#include "run/private_plan.hpp"
#include "run/sample_job.hpp"

namespace dpmcmc {

inline constexpr const char* kReleaseOnceSampler = "dp-nss";

// The release's noise sd on each Σ x_j t over that sum's sampling sd, for the statistic at 0
// released with noise multiplier z, each doubled when `centred` (y − σ(η₀) spans up to twice the
// range of y − ½): public, from the schema's bounds and n, with the features spread evenly over
// their bounds (E x_j² = B_j²/3) and the target's variance at β = 0 (¼ for logistic, σ² for
// linear with σ guessed at a quarter of y's range). Empty for poisson.
std::vector<double> release_noise_ratios(const GlmSpec& glm, std::size_t n, double noise_multiplier,
                                         bool centred = false);
// The pilot releases by default: logistic from the largest ratio r of one release of the whole
// budget, none when r > 1.2 (a pilot would be mostly noise), 2 down to r = 0.15, 3 below;
// poisson 2 from 50 000 rows or where ε√n ≥ 300; linear 1 where εn ≥ 5000 and 2 from 10⁴ (its
// residuals centred and clipped near the pilot's fit); none for normal (release_once_job.cpp says
// how this was measured). Then their share of the budget (of zCDP's ρ), and the most a run may ask
// for.
std::uint64_t default_pilot_releases(const GlmSpec& glm, std::size_t n, const Budget& budget);
inline constexpr double kDefaultPilotShare = 0.3;
inline constexpr std::uint64_t kMaxPilotReleases = 16;
// Passes of dp-nss's chains without --iter/--warmup: 4× the draws each (1000, 4000, 16000).
inline constexpr int kMaxChainPasses = 3;

// The plan of the releases for a budget, as the job makes it (and `dpmcmc account --sampler
// dp-nss` shows it): the pilots (given, or default_pilot_releases) and their share, the noise
// multipliers of the pilots and of the final release, and the certified planner's plan of them.
// UsageError for pilots the family does not take or a share outside (0, 1); ConfigError when no
// noise level plans within the budget.
struct ReleaseOncePlan {
  PrivateRunPlan plan;
  StagedNoise noise;
  std::uint64_t pilots = 0;
  double share = 0.0;
};
ReleaseOncePlan plan_release_once(const GlmSpec& glm, std::size_t n, const Budget& budget,
                                  std::optional<std::uint64_t> pilot_releases,
                                  std::optional<double> pilot_share,
                                  const std::vector<std::string>& accountants, PlanMemo* memo);

// UsageError unless the spec is a linear, normal, logistic or poisson (with its intercept) user
// model with --epsilon.
SampleOutcome run_release_once_job(const SampleSpec& spec);

}  // namespace dpmcmc
