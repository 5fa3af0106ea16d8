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
  // Linear's centred release narrows its range to about 4σ, which is not known beforehand: its
  // ratios are those of the declared range (an upper bound).
  const auto ratios =
      release_noise_ratios(glm, n, z, pilots > 0 && glm.family != GlmFamily::linear);
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
        "information at beta = 0{}) {:.2g} to {:.2g} times the rows' own; a feature whose "
        "values fill a tenth of its declared range carries a tenth of that information, so "
        "the noise's share of its sd is ten times larger",
        pilots > 0 ? ", a centred release's widest range" : "", lo, hi);
  }
  reasons.push_back(
      fmt::format("{} release{} ({} pilot{} first), the final one with noise "
                  "multiplier {:.3g}{}",
                  pilots + 1, pilots > 0 ? "s" : "", pilots, pilots == 1 ? "" : "s", z, width));
  // linear and normal with sigma sampled: the rows' own sd of Σ x·t is √n·σ·…, and σ is not
  // known before the rows are read; the ratios above take σ as a quarter of y's declared range.
  // On the calibration grid (y on ±8, σ = 1, n = 10⁴, ε = 1) advise said 1.32 at σ = 4 and the
  // runs gave 4.5: at σ = 1 the noise's share is 4× larger (3.6 by this count; the noise of XᵀX,
  // in proportion to the coefficients, adds the rest).
  const bool gaussian = glm.family == GlmFamily::linear || glm.family == GlmFamily::normal;
  if (gaussian && !glm.sigma && !ratios.empty()) {
    const double guess = 0.25 * (glm.y_high - glm.y_low);
    double hi = 0.0;
    for (double r : ratios) hi = std::max(hi, std::sqrt(1.0 + 16.0 * r * r));
    reasons.push_back(fmt::format(
        "sigma unknown: these ratios take sigma = {:.3g} (a quarter of y's declared range); the "
        "noise's share grows as 1/sigma, so at sigma = {:.3g} the ratio is about {:.2g}, and "
        "more where coefficients are large (the noise of the released x x')",
        guess, 0.25 * guess, hi));
  }
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
          "poisson: from 50 000 rows, or where epsilon * sqrt(n) >= 300, pilot releases "
          "re-centre the likelihood's expansion; otherwise its one release models the "
          "covariates as Gaussian, and strong effects of far from Gaussian covariates come out "
          "shrunk (user guide)");
    if (family == GlmFamily::linear)
      nss.reasons.push_back(
          "linear: where epsilon * n >= 5000 one pilot release (two from 1e4) finds the fit "
          "and sigma, and the final release centres the residuals there and clips them at about 3 "
          "sigma: its "
          "noise then follows sigma, not y's declared range");
    if (n && budget) nss.expected_sd_ratio = nss_sd_ratios(glm, *n, *budget, nss.reasons);
    out.push_back(std::move(nss));
  }
  const bool gaussian = family == GlmFamily::linear || family == GlmFamily::normal;
  // dp-sgld as measured on the calibration grid (experiments/results/calibration-grid, 3 data
  // sets per cell at n = 1e4 and 1e5, eps = 1 and 4).
  if (family == GlmFamily::logistic || family == GlmFamily::probit) {
    out.push_back(
        {"dp-sgld",
         "usable",
         {"noise follows the budget; on the calibration grid's logistic regressions its means "
          "landed 0.05-0.18 posterior sds from the non-private ones at n = 1e4 (eps 4) and "
          "1e5, but its chains disagreed there (R-hat 1.04-1.33), and at n = 1e4, eps 1 it was "
          "3.5 sds off; earlier runs at n = 1e6 gave R-hat 1.02: compare two runs before "
          "relying on it",
          family == GlmFamily::logistic
              ? "a discretised Langevin diffusion: a step bias remains"
              : "not measured on probit: check its R-hat and compare with a second run"},
         {},
         std::nullopt});
  } else if (!gaussian) {
    out.push_back(
        {"dp-sgld",
         "not recommended",
         {"on the calibration grid's poisson regressions (n = 1e4 and 1e5, eps 1 and 4) its "
          "means were 12-124 posterior sds off, R-hat 4.4-4.7, and at n = 1e4, eps 1 the budget "
          "bought 4 iterations per chain (the count bound makes its gradient clip large)"},
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
