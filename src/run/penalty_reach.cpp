#include "run/penalty_reach.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "models/user_model.hpp"
#include "privacy/gaussian_pld.hpp"

namespace dpmcmc {
namespace {

PenaltyReach reach_of(double travel, const GlmSpec& glm, std::size_t n, bool grows_with_n) {
  const double s = user_model_sd_floor(glm, n);
  const double d = static_cast<double>(std::max<std::size_t>(1, glm.coefficient_names.size()));
  const double draws = travel * travel / (2.0 * d * s * s);
  PenaltyReach out{travel, s, draws, std::nullopt};
  // s² ∝ 1/n with T fixed: the draws grow as n.
  if (grows_with_n && draws > 0.0)
    out.rows_needed = std::ceil(static_cast<double>(n) * kReachDrawsNeeded / draws);
  return out;
}

double number_or(const nlohmann::json& params, const char* key, double fallback) {
  return params.contains(key) && params[key].is_number() ? params[key].get<double>() : fallback;
}

}  // namespace

PenaltyReach penalty_reach(std::size_t iterations, double noise_multiplier, double clip,
                           const GlmSpec& glm, std::size_t n, bool noise_follows_budget) {
  const double k = static_cast<double>(iterations);
  return reach_of(std::sqrt(k * kPenaltyMoveEfficiency) / (2.0 * clip * noise_multiplier), glm, n,
                  noise_follows_budget);
}

PenaltyReach penalty_reach(const GlmSpec& glm, std::size_t n, const Budget& budget, int chains) {
  const double mu = gaussian_pld_max_mu(budget.epsilon, budget.delta);
  const double travel =
      std::sqrt(kPenaltyMoveEfficiency * mu / (2.0 * static_cast<double>(chains))) /
      user_model_clip(glm);
  return reach_of(travel, glm, n, true);
}

std::optional<std::pair<double, double>> penalty_noise_and_clip(const std::string& sampler,
                                                                const nlohmann::json& params,
                                                                std::size_t n) {
  const double rows = static_cast<double>(n);
  if (sampler == "dp-penalty" || sampler == "dp-penalty-ocu" || sampler == "dp-penalty-gwmh") {
    const double m =
        number_or(params, "tau", NAN) * std::pow(rows, number_or(params, "alpha", 0.5));
    return std::pair{m, number_or(params, "clip", NAN)};
  }
  if (sampler == "dp-hmc")
    return std::pair{number_or(params, "tau_l", NAN) * std::sqrt(rows),
                     number_or(params, "clip_l", NAN)};
  return std::nullopt;
}

std::string describe_reach(const PenaltyReach& reach, int chains) {
  std::string rows;
  if (reach.rows_needed)
    rows = fmt::format("; about {:.2g} rows would give them at this budget", *reach.rows_needed);
  return fmt::format(
      "the budget bounds the squared moves of its accept test: each of {} chain{} travels at most "
      "about {:.2g} in all (root mean square, rescaled coefficients, whatever its length), where a "
      "posterior sd is at least about {:.2g}, so it makes at most about {:.2g} effective draws "
      "(the checks ask for {:.0f}{})",
      chains, chains == 1 ? "" : "s", reach.travel, reach.sd_floor, reach.draws_per_chain,
      kReachDrawsNeeded, rows);
}

nlohmann::json reach_json(const PenaltyReach& reach) {
  return {{"travel", reach.travel},
          {"sd_floor", reach.sd_floor},
          {"draws_per_chain", reach.draws_per_chain},
          {"rows_needed", reach.rows_needed ? nlohmann::json(*reach.rows_needed) : nullptr}};
}

}  // namespace dpmcmc
