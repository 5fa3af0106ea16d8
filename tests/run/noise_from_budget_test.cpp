// A user model's default noise from its budget (run/noise_from_budget.hpp): the scaled noise makes
// the planner, with every certified accountant, allow the target number of iterations per chain
// (within the discrete noise's share of δ), for the penalty (plain and for exponential families:
// the linear family's statistic) and DP HMC; a noise the caller set,
// and a subsampled sampler, are left alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "core/rng.hpp"
#include "models/user_model.hpp"
#include "run/noise_from_budget.hpp"
#include "run/private_plan.hpp"
#include "run/private_samplers.hpp"
#include "run/sampler_params.hpp"

namespace dpmcmc {
namespace {

// n rows of one feature and a binary target (logistic), or a real one in [-3, 3] (linear).
UserModel user_model(int n, const std::string& family = "logistic") {
  UserModelSpec spec;
  spec.family = family;
  spec.schema_file = "schema (test)";
  spec.data_file = "rows (test)";
  spec.schema_doc = nlohmann::json::parse(family == "linear" ? R"({"columns": [
    {"name": "a", "role": "feature", "type": "real", "bounds": [-1, 1]},
    {"name": "y", "role": "target", "type": "real", "bounds": [-3, 3]}]})"
                                                             : R"({"columns": [
    {"name": "a", "role": "feature", "type": "real", "bounds": [-1, 1]},
    {"name": "y", "role": "target", "type": "binary"}]})");
  Rng rng = make_rng(3, 0);
  std::string csv = "a,y\n";
  for (int i = 0; i < n; ++i) {
    csv.append(std::to_string(2.0 * rng.uniform() - 1.0)).push_back(',');
    if (family == "linear")
      csv.append(std::to_string(2.0 * rng.uniform() - 1.0));
    else
      csv.push_back(rng.uniform() < 0.5 ? '0' : '1');
    csv.push_back('\n');
  }
  spec.data_text = csv;
  return make_user_model(spec);
}

std::size_t planned_per_chain(const std::string& sampler, const nlohmann::json& params,
                              const Model& model, std::size_t n, const Budget& budget, int chains) {
  const auto setup = find_private_sampler(sampler)->build_private(sampler, params, model, n);
  const auto plan = plan_private_run(budget, setup.per_iteration, chains, {}, {},
                                     release_coordinates(model, setup));
  return plan.split.per_chain.front();
}

class NoiseFromBudget : public testing::TestWithParam<std::string> {};

TEST_P(NoiseFromBudget, TheBudgetAffordsTheTargetIterationsPerChain) {
  const std::string sampler = GetParam();
  // The penalty for exponential families needs the linear family's statistic.
  const UserModel user = user_model(500, sampler == "dp-penalty-expfam" ? "linear" : "logistic");
  const auto model = user.preset.make_model();
  const Budget budget{1.0, 1e-5};
  const int chains = 4;
  const auto defaults = sampler_params(user.preset, sampler, nlohmann::json::object());
  // The fixed defaults bought a handful of iterations: the reason for the scaling.
  EXPECT_LT(planned_per_chain(sampler, defaults, *model, 500, budget, 1), 50u);
  const auto scaled =
      noise_from_budget(*find_private_sampler(sampler), sampler, defaults, nlohmann::json::object(),
                        *model, 500, budget, chains, kBudgetTargetIterations);
  const std::size_t k = planned_per_chain(sampler, scaled, *model, 500, budget, chains);
  // The tightest certified accountant is the exact Gaussian PLD for these templates, so the plan
  // reaches the target up to the discrete Gaussian's share of δ (a fraction of a percent).
  EXPECT_LE(k, kBudgetTargetIterations);
  EXPECT_GE(k, kBudgetTargetIterations * 99 / 100);
  for (const char* key : {"tau", "tau_l", "tau_g"}) {
    if (defaults.contains(key)) {
      EXPECT_GT(scaled[key].get<double>(), defaults[key].get<double>()) << key;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(UserModelSamplers, NoiseFromBudget,
                         testing::Values("dp-penalty", "dp-penalty-ocu", "dp-hmc",
                                         "dp-penalty-expfam"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

// dp-penalty-expfam on a linear model releases the statistic (x xᵀ without the intercept's 1·1,
// x t, t²: 5 coordinates for an intercept and one feature), not the 3 parameters: the planner's
// discrete-noise δ must count those.
TEST(NoiseFromBudget, TheExpFamViewsStatisticCountsAsReleasedCoordinates) {
  const UserModel user = user_model(500, "linear");
  const auto model = user.preset.make_model();
  ASSERT_EQ(model->dim(), 3);
  const auto params = sampler_params(user.preset, "dp-penalty-expfam", nlohmann::json::object());
  const auto setup = find_private_sampler("dp-penalty-expfam")
                         ->build_private("dp-penalty-expfam", params, *model, 500);
  ASSERT_NE(setup.model_view, nullptr);
  EXPECT_EQ(release_coordinates(*model, setup), 5u);
  const auto plain =
      find_private_sampler("dp-penalty")
          ->build_private("dp-penalty", sampler_params(user.preset, "dp-penalty", {}), *model, 500);
  EXPECT_EQ(release_coordinates(*model, plain), 3u);
}

TEST(NoiseFromBudget, ANoiseTheCallerSetAndASubsampledSamplerAreLeftAlone) {
  const UserModel user = user_model(500);
  const auto model = user.preset.make_model();
  const Budget budget{1.0, 1e-5};
  const nlohmann::json overrides = {{"tau", 0.5}};
  const auto given = sampler_params(user.preset, "dp-penalty", overrides);
  EXPECT_EQ(noise_from_budget(*find_private_sampler("dp-penalty"), "dp-penalty", given, overrides,
                              *model, 500, budget, 4, kBudgetTargetIterations),
            given);
  const auto minibatch = sampler_params(user.preset, "dp-penalty-minibatch", {});
  EXPECT_EQ(noise_from_budget(*find_private_sampler("dp-penalty-minibatch"), "dp-penalty-minibatch",
                              minibatch, nlohmann::json::object(), *model, 500, budget, 4,
                              kBudgetTargetIterations),
            minibatch);
}

}  // namespace
}  // namespace dpmcmc
