#include "run/penalty_reach.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "models/user_model.hpp"
#include "privacy/gaussian_pld.hpp"

namespace dpmcmc {
namespace {

PenaltyReach reach_of(double travel, const GlmSpec& glm, std::size_t n) {
  const std::vector<double> floors = user_model_sd_floors(glm, n);
  double sum = 0.0;
  for (const double s : floors) sum += s * s;
  const double d = static_cast<double>(std::max<std::size_t>(1, floors.size()));
  const double s = std::sqrt(sum / d);
  const double draws = travel * travel / (2.0 * d * s * s);
  return {travel, s, draws,
          draws > 0.0 ? std::ceil(static_cast<double>(n) * kReachDrawsNeeded / draws) : INFINITY};
}

double number_or(const nlohmann::json& params, const char* key, double fallback) {
  return params.contains(key) && params[key].is_number() ? params[key].get<double>() : fallback;
}

}  // namespace

PenaltyReach penalty_reach(std::size_t iterations, double noise_multiplier, double clip,
                           const GlmSpec& glm, std::size_t n) {
  const double k = static_cast<double>(iterations);
  return reach_of(std::sqrt(k * kPenaltyMoveEfficiency) / (2.0 * clip * noise_multiplier), glm, n);
}

PenaltyReach penalty_reach(const GlmSpec& glm, std::size_t n, const Budget& budget, int chains) {
  const double mu = gaussian_pld_max_mu(budget.epsilon, budget.delta);
  const double travel =
      std::sqrt(kPenaltyMoveEfficiency * mu / (2.0 * static_cast<double>(chains))) /
      user_model_clip(glm);
  return reach_of(travel, glm, n);
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
  return fmt::format(
      "the budget bounds the squared moves of its accept test: each of {} chain{} travels at most "
      "about {:.2g} in all (root mean square, rescaled coefficients, whatever its length), where "
      "the posterior sds are at least about {:.2g}, so its worst-mixing coefficient makes at most "
      "about {:.2g} effective draws (the checks ask for {:.0f}; about {:.2g} rows would give "
      "them at this epsilon and delta)",
      chains, chains == 1 ? "" : "s", reach.travel, reach.sd_floor, reach.draws_per_chain,
      kReachDrawsNeeded, reach.rows_needed);
}

nlohmann::json reach_json(const PenaltyReach& reach) {
  return {{"travel", reach.travel},
          {"sd_floor", reach.sd_floor},
          {"draws_per_chain", reach.draws_per_chain},
          {"rows_needed", std::isfinite(reach.rows_needed) ? nlohmann::json(reach.rows_needed)
                                                           : nlohmann::json()}};
}

}  // namespace dpmcmc
