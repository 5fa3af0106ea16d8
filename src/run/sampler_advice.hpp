// Which private sampler fits a regression on the user's data, from public inputs only (the
// family, the schema, n, ε, δ and the priors): `dpmcmc advise` prints the ranking and `sample
// --sampler auto` runs its first entry (issue 60). Nothing here reads a row, so advice costs no
// privacy.
//
// The ranking rests on what was measured on the user-model path (docs/user-guide.md, "Choosing
// a private sampler"; experiments/results/calibration-grid):
//  1. dp-nss where the family has a released statistic (linear, normal, logistic; poisson with
//     its intercept): its noise-aware posterior is a function of one release, so its chains
//     converge whatever ε buys, and its intervals are as wide as the noise makes them. Its
//     expected sd, relative to the rows' posterior at β = 0, is √(1 + r_j²) with r_j the
//     release's noise sd on b_j over b_j's sampling sd, √(n E[x_j²] v), E[x_j²] = B_j²/3 for
//     features spread evenly over their bounds and v the per-row variance of the target at
//     β = 0 (¼ for logistic, σ² for linear with σ guessed at a quarter of y's range).
//  2. dp-sgld for logistic and probit: its noise follows the budget; on the calibration grid
//     at n = 10⁴–10⁵ its means were close (0.05–0.18 sds where ε or n is large) but its chains
//     disagreed (R-hat 1.04–1.33). For poisson it was 12–124 sds off (not recommended); its
//     step bias makes linear regression's σ far too small, so it is not offered there.
//  3. the penalty family and dp-hmc start at 0 on a user model and their budget bounds the sum
//     of squared moves (run/penalty_reach.hpp, which the reasons quote in numbers): their chains
//     hardly leave the start (R-hat 2.8–4.5 at n = 2000 to 200 000), so they are listed as not
//     recommended.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "models/glm.hpp"
#include "privacy/budget.hpp"
#include "run/penalty_reach.hpp"

namespace dpmcmc {

struct SamplerAdvice {
  std::string sampler;
  std::string verdict;  // "recommended", "usable" or "not recommended"
  std::vector<std::string> reasons;
  // dp-nss: the expected posterior sd over the rows' posterior sd, per coefficient (β = 0).
  std::vector<std::pair<std::string, double>> expected_sd_ratio;
  // The penalty family and dp-hmc: how far the budget lets a chain move.
  std::optional<PenaltyReach> reach;
};

// The ranking, best first. `n` and `budget` inform the reasons only (the order is the family's);
// none: the ranking without numbers (`sample --sampler auto` before the rows are read). `chains`:
// how many chains share the budget.
std::vector<SamplerAdvice> advise_samplers(const GlmSpec& glm, bool intercept,
                                           std::optional<std::size_t> n,
                                           std::optional<Budget> budget, int chains = 4);

nlohmann::json advice_json(const std::vector<SamplerAdvice>& advice);

}  // namespace dpmcmc
