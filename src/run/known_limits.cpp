#include "run/known_limits.hpp"

#include <fmt/format.h>

#include <limits>

#include "run/release_once_job.hpp"

namespace dpmcmc {

KnownLimits known_limits(const KnownLimitsInput& in) {
  KnownLimits out;
  if (const auto noise = penalty_noise_and_clip(in.sampler, in.params, in.n)) {
    out.reach = penalty_reach(in.iterations, noise->first, noise->second, in.glm, in.n);
    if (out.reach->draws_per_chain < kReachDrawsNeeded)
      out.warnings.push_back(
          {"reach", "sampler", out.reach->draws_per_chain, kReachDrawsNeeded,
           describe_reach(*out.reach, in.chains),
           fmt::format("{}`dpmcmc advise` ranks the samplers for your n and budget; for this "
                       "sampler the draws grow as n, as 1/--chains and as the square of the "
                       "budget's Gaussian mu (a larger --epsilon)",
                       in.release_once_fits
                           ? fmt::format("--sampler {}, which spends the budget on one release "
                                         "and then samples freely; ",
                                         kReleaseOnceSampler)
                           : std::string())});
  }
  const bool gaussian = in.glm.family == GlmFamily::linear || in.glm.family == GlmFamily::normal;
  if (gaussian && !in.glm.sigma && (in.sampler == "dp-sgld" || in.sampler == "dp-sgnht")) {
    out.warnings.push_back(
        {"scale_bias", "log_sigma", std::numeric_limits<double>::quiet_NaN(), 0.0,
         fmt::format("{} clips each row's gradient, and the log sigma part -1 + r^2/sigma^2 is "
                     "skewed (at least -1, unbounded above): clipping cuts its upper tail, so "
                     "log_sigma comes out too small, by many posterior sds",
                     in.sampler),
         fmt::format("--sampler {} (its noise-aware posterior clips nothing), or --sigma with a "
                     "value known from public sources (the coefficients' gradients are not "
                     "skewed)",
                     kReleaseOnceSampler)});
  }
  return out;
}

}  // namespace dpmcmc
