#include "run/sampler_advice.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "privacy/gaussian_pld.hpp"
#include "privacy/iteration_templates.hpp"
#include "run/release_once_job.hpp"

namespace dpmcmc {
namespace {

// dp-nss's expected posterior sd over the rows', per coefficient (the header), or nothing for
// poisson, whose pull on β is not a sum of per-row scores of known variance at β = 0.
std::vector<std::pair<std::string, double>> nss_sd_ratios(const GlmSpec& glm, std::size_t n,
                                                          const Budget& budget,
                                                          std::vector<std::string>& reasons) {
  std::vector<std::pair<std::string, double>> out;
  const std::uint64_t pilots = default_pilot_releases(glm, n, budget);
  const double mu_max = gaussian_pld_max_mu(budget.epsilon, budget.delta);
  const double z = staged_noise(1.0 / std::sqrt(2.0 * mu_max), pilots, kDefaultPilotShare).final;
  const auto ratios = release_noise_ratios(glm, n, z, pilots > 0);
  for (std::size_t j = 0; j < ratios.size(); ++j)
    out.emplace_back(glm.coefficient_names[j], std::sqrt(1.0 + ratios[j] * ratios[j]));
  std::string width;
  if (!out.empty()) {
    double lo = INFINITY, hi = 0.0;
    for (const auto& [name, r] : out) {
      lo = std::min(lo, r);
      hi = std::max(hi, r);
    }
    width = fmt::format(
        "; expected posterior sd (features spread evenly over their bounds, the rows' "
        "information at beta = 0{}) {:.2g} to {:.2g} times the rows' own",
        pilots > 0 ? ", a centred release's widest range" : "", lo, hi);
  }
  reasons.push_back(
      fmt::format("{} release{} ({} pilot{} first), the final one with noise "
                  "multiplier {:.3g}{}",
                  pilots + 1, pilots > 0 ? "s" : "", pilots, pilots == 1 ? "" : "s", z, width));
  return out;
}

}  // namespace

std::vector<SamplerAdvice> advise_samplers(const GlmSpec& glm, bool intercept,
                                           std::optional<std::size_t> n,
                                           std::optional<Budget> budget, int chains) {
  std::vector<SamplerAdvice> out;
  const GlmFamily family = glm.family;
  if (has_released_statistic(family, intercept)) {
    SamplerAdvice nss{kReleaseOnceSampler, "recommended", {}, {}, std::nullopt};
    nss.reasons.push_back(
        "spends the budget on releases of the sufficient statistics, then samples the "
        "noise-aware posterior given them as long as you like: its chains converge whatever "
        "epsilon buys, and its intervals are as wide as the noise makes them");
    if (family == GlmFamily::logistic)
      nss.reasons.push_back(
          "logistic: where the release resolves the coefficients (`dpmcmc advise` says how many), "
          "pilot releases re-centre the likelihood's quadratic expansion near the answer; the "
          "expansion at 0 alone shrinks large effects, and the run warns where it cannot be "
          "trusted");
    if (family == GlmFamily::poisson)
      nss.reasons.push_back(
          "poisson: from 50 000 rows pilot releases re-centre the likelihood's expansion; "
          "below, its one release models the covariates as Gaussian, and strong effects of far "
          "from Gaussian covariates come out shrunk at large epsilon (user guide)");
    if (n && budget) nss.expected_sd_ratio = nss_sd_ratios(glm, *n, *budget, nss.reasons);
    out.push_back(std::move(nss));
  }
  const bool gaussian = family == GlmFamily::linear || family == GlmFamily::normal;
  if (!gaussian) {
    out.push_back(
        {"dp-sgld",
         "usable",
         {"noise follows the budget; on logistic regression at n = 1e5 and 1e6 its means landed "
          "within 0.1-0.3 posterior sds at every epsilon from 0.5 to 4",
          family == GlmFamily::logistic
              ? "a discretised Langevin diffusion: a step bias remains, and it was not measured "
                "below n = 1e5"
              : "not measured on this family: check its R-hat and compare with a second run"},
         {},
         std::nullopt});
  }
  for (const char* name : {"dp-penalty", "dp-hmc"}) {
    SamplerAdvice a{name,
                    "not recommended",
                    {"starts at 0 on a user model, and the budget bounds the sum of its squared "
                     "moves: its chains hardly leave the start (R-hat 2.8-4.5 measured at n = "
                     "2000 to 200 000)"},
                    {},
                    std::nullopt};
    if (n && budget) {
      a.reach = penalty_reach(glm, *n, *budget, chains);
      a.reasons.push_back(describe_reach(*a.reach, chains));
    }
    out.push_back(std::move(a));
  }
  return out;
}

nlohmann::json advice_json(const std::vector<SamplerAdvice>& advice) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& a : advice) {
    nlohmann::json ratios = nlohmann::json::object();
    for (const auto& [name, r] : a.expected_sd_ratio) ratios[name] = r;
    out.push_back({{"sampler", a.sampler},
                   {"verdict", a.verdict},
                   {"reasons", a.reasons},
                   {"expected_sd_ratio", ratios}});
    if (a.reach) out.back()["reach"] = reach_json(*a.reach);
  }
  return out;
}

}  // namespace dpmcmc
