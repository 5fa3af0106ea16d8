// The accountant registry and the result rows of `dpmcmc account`.
#include "privacy/accountants.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "privacy/account_rows.hpp"
#include "privacy/gaussian_pld.hpp"
#include "privacy/iteration_templates.hpp"
#include "privacy/zcdp_iterations.hpp"

namespace dpmcmc {
namespace {

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

PrivacyEvent gaussian(double sigma, std::uint64_t count) {
  PrivacyEvent e;
  e.noise_sd = sigma;
  e.count = count;
  return e;
}

TEST(Registry, CreatesBuiltInsByName) {
  const auto names = accountant_names();
  for (const char* n : {"pld-gaussian", "zcdp", "classical"}) {
    ASSERT_TRUE(contains(names, n)) << n;
    EXPECT_EQ(make_accountant(n)->name(), n);
  }
  // Names are unique (a second one-line registration of the same name would shadow the first).
  auto sorted = names;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end());
  EXPECT_THROW(make_accountant("moments"), UsageError);
  try {
    make_accountant("moments");
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("pld-gaussian"), std::string::npos);
  }
  EXPECT_THROW(make_accountant("zcdp", nlohmann::json::array()), ConfigError);
}

TEST(Registry, ListsAccountantsSupportingAnEventList) {
  const std::vector<PrivacyEvent> g{gaussian(2.0, 10)};
  const auto for_gaussian = accountants_supporting(g);
  EXPECT_TRUE(contains(for_gaussian, "pld-gaussian"));
  EXPECT_TRUE(contains(for_gaussian, "zcdp"));
  EXPECT_FALSE(contains(for_gaussian, "classical"));
  PrivacyEvent a;
  a.mechanism = Mechanism::approximate_dp;
  a.epsilon = 0.1;
  const std::vector<PrivacyEvent> approx{a};
  const auto for_approx = accountants_supporting(approx);
  EXPECT_TRUE(contains(for_approx, "classical"));
  EXPECT_FALSE(contains(for_approx, "pld-gaussian"));
  EXPECT_FALSE(contains(for_approx, "zcdp"));
  // Mixed relations: no accountant composes them.
  std::vector<PrivacyEvent> mixed{gaussian(2.0, 1), gaussian(2.0, 1)};
  mixed[1].relation = Neighbouring::substitute;
  EXPECT_TRUE(accountants_supporting(mixed).empty());
}

TEST(Registry, RuntimeRegistration) {
  register_accountant({"test-zcdp-copy", "a second zCDP for this test",
                       [](const AccountantOptions& o) { return make_accountant("zcdp", o); }});
  EXPECT_TRUE(contains(accountant_names(), "test-zcdp-copy"));
  EXPECT_THROW(
      register_accountant({"zcdp", "duplicate",
                           [](const AccountantOptions& o) { return make_accountant("zcdp", o); }}),
      ConfigError);
}

TEST(AccountRows, EpsilonForEachAccountant) {
  // `account --mechanism gaussian --sensitivity 1 --sigma 4 --compositions 1000 --delta 1e-5`.
  const std::vector<PrivacyEvent> events{gaussian(4.0, 1000)};
  const std::vector<std::string> names{"pld-gaussian", "zcdp", "classical"};
  const auto rows = account_rows(events, AccountQuery::epsilon_at(1e-5), names);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_TRUE(rows[0].ok);
  EXPECT_DOUBLE_EQ(rows[0].epsilon, gaussian_pld_epsilon(1000.0 / 32.0, 1e-5));
  EXPECT_EQ(rows[0].delta, 1e-5);
  EXPECT_TRUE(rows[1].ok);
  EXPECT_NEAR(rows[1].epsilon, 1000.0 / 32 + 2 * std::sqrt(1000.0 / 32 * std::log(1e5)), 1e-9);
  EXPECT_FALSE(rows[2].ok);
  EXPECT_NE(rows[2].message.find("cannot interpret"), std::string::npos);
  const auto json = account_rows_to_json(rows);
  ASSERT_EQ(json.size(), 3u);
  EXPECT_EQ(json[0]["accountant"], "pld-gaussian");
  EXPECT_EQ(json[0]["bound"], "upper bound");
  EXPECT_DOUBLE_EQ(json[0]["epsilon"].get<double>(), rows[0].epsilon);

  const auto by_eps = account_rows(events, AccountQuery::delta_at(1.0), names);
  EXPECT_DOUBLE_EQ(by_eps[0].delta, gaussian_pld_delta(1000.0 / 32.0, 1.0));
  EXPECT_THROW(account_rows(events, AccountQuery{1e-5, 1.0}, names), UsageError);
  EXPECT_THROW(account_rows(events, AccountQuery{}, names), UsageError);
  EXPECT_THROW(account_rows(events, AccountQuery::epsilon_at(1.5), names), ConfigError);
  EXPECT_THROW(account_rows(events, AccountQuery::delta_at(0.0), names), ConfigError);
  const std::vector<std::string> unknown{"nope"};
  EXPECT_THROW(account_rows(events, AccountQuery::epsilon_at(1e-5), unknown), UsageError);
  // Every registered accountant by default, one row each.
  EXPECT_EQ(account_rows(events, AccountQuery::epsilon_at(1e-5)).size(), accountant_names().size());
}

TEST(AccountRows, ReleaseSpecBuildsValidatedEvents) {
  ReleaseSpec spec;
  spec.mechanism = Mechanism::subsampled_gaussian;
  spec.sampling = Sampling::without_replacement;
  spec.sampling_rate = 0.01;
  spec.noise_sd = 2.0;
  spec.compositions = 10000;
  const auto events = release_events(spec);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].relation, Neighbouring::substitute);
  EXPECT_EQ(events[0].count, 10000u);
  spec.sampling = Sampling::poisson;
  EXPECT_EQ(release_events(spec)[0].relation, Neighbouring::add_remove);
  auto message_of = [](const ReleaseSpec& s) {
    try {
      release_events(s);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  ReleaseSpec bad = spec;
  bad.sampling_rate = 0.0;
  EXPECT_NE(message_of(bad).find("q must be in (0, 1]"), std::string::npos);
  bad = spec;
  bad.noise_sd = -1;
  EXPECT_NE(message_of(bad).find("σ (sigma)"), std::string::npos);
  bad = spec;
  bad.compositions = 0;
  EXPECT_NE(message_of(bad).find("compositions"), std::string::npos);
  bad = spec;
  bad.sampling = Sampling::none;
  EXPECT_NE(message_of(bad).find("needs sampling"), std::string::npos);
  bad = ReleaseSpec{};
  bad.sampling_rate = 0.5;
  EXPECT_NE(message_of(bad).find("whole dataset"), std::string::npos);
}

TEST(AccountRows, PlanRowsCompareZcdpWithTheTightAccountant) {
  // `account --sampler dp-penalty --n 100000 --epsilon 4 --delta 1e-6 --tau 0.1 --alpha 0.5`.
  const std::vector<std::string> names{"zcdp", "pld-gaussian", "classical"};
  const auto rows = plan_rows({4.0, 1e-6}, dp_penalty_template(0.1, 1e5), names);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_TRUE(rows[0].ok);
  EXPECT_EQ(rows[0].iterations, dp_penalty_iterations_zcdp(4.0, 1e-6, 0.1, 1e5));
  EXPECT_FALSE(rows[0].tightest);
  EXPECT_TRUE(rows[1].ok);
  EXPECT_TRUE(rows[1].tightest);
  EXPECT_GT(rows[1].iterations, rows[0].iterations);
  EXPECT_FALSE(rows[2].ok);
  const auto json = plan_rows_to_json(rows);
  EXPECT_EQ(json[1]["tightest"], true);
  EXPECT_EQ(json[1]["iterations"].get<std::uint64_t>(), rows[1].iterations);
  // A budget too small for one iteration: rows still come back, each with the reason.
  const auto none = plan_rows({0.01, 1e-6}, dp_penalty_template(0.001, 1e5), names);
  ASSERT_EQ(none.size(), 3u);
  for (const auto& r : none) {
    EXPECT_FALSE(r.ok);
    EXPECT_FALSE(r.message.empty());
  }
}

}  // namespace
}  // namespace dpmcmc
