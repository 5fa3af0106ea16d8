// The hyperparameter keys each sampler reads (run/sampler_params.hpp): the list `dpmcmc sample`
// and experiment specs check options against. It must hold every key a preset sets for the
// sampler, and every key it lists must really be read (a malformed value of it is refused);
// otherwise a user's option would be refused although used, or accepted although ignored.
#include "run/sampler_params.hpp"

#include <gtest/gtest.h>

#include <optional>

#include "core/error.hpp"
#include "models/presets.hpp"
#include "run/private_samplers.hpp"
#include "run/sample_job.hpp"

namespace dpmcmc {
namespace {

using nlohmann::json;

TEST(SamplerKeys, HoldEveryKeyOfThePresetsDefaults) {
  for (const auto& sampler : sampler_names()) {
    const auto keys = sampler_keys(sampler);
    EXPECT_FALSE(keys.empty()) << sampler;
    for (const auto& p : presets()) {
      const json defaults = sampler_params(p, sampler, json::object());
      for (const auto& [k, v] : defaults.items())
        EXPECT_TRUE(keys.count(k)) << sampler << " on " << p.name << ": key " << k;
    }
  }
  EXPECT_TRUE(sampler_keys("nuts").empty());
}

// For each private sampler, on the first preset where its defaults build: setting any listed key
// to a value of the wrong type must make the build fail, so the key is read. (The three
// non-private samplers read theirs in kernel_factory, covered by the CLI tests.)
TEST(SamplerKeys, EveryListedKeyOfAPrivateSamplerIsRead) {
  for (const auto& entry : private_samplers()) {
    // The number of data owners has no preset default.
    const json base = entry.name == "dp-penalty-shared" ? json{{"owners", 2}} : json::object();
    std::optional<std::string> built_on;
    for (const auto& p : presets()) {
      const auto model = p.make_model();
      try {
        (void)entry.build(entry.name, sampler_params(p, entry.name, base), *model, p.n);
      } catch (const Error&) {
        continue;  // no defaults for this sampler here, or a model it cannot use
      }
      built_on = p.name;
      for (const auto& key : sampler_keys(entry.name)) {
        json bad = base;
        bad[key] = json::array({"not", "a", "value"});
        EXPECT_THROW((void)entry.build(entry.name, sampler_params(p, entry.name, bad), *model, p.n),
                     Error)
            << entry.name << " on " << p.name << " ignores key " << key;
      }
      break;
    }
    EXPECT_TRUE(built_on.has_value()) << entry.name << " builds on no preset";
  }
}

TEST(SamplerKeys, OptionSpellings) {
  EXPECT_EQ(option_of("proposal_sd"), "--proposal-sd");
  EXPECT_EQ(option_of("tau_l"), "--tau-l");
  EXPECT_EQ(option_of("A"), "--thermostat");
  EXPECT_EQ(option_of("batch_size"), "--batch");
  EXPECT_EQ(option_of("randomized_step_size"), "--randomize-step");
  EXPECT_EQ(option_of("epsilon"), "--iteration-epsilon");
  EXPECT_EQ(option_of("row_bound"), "");
  EXPECT_EQ(key_name("tau"), "--tau");
  EXPECT_EQ(key_name("A"), "--thermostat (key 'A')");
  EXPECT_EQ(key_name("row_bound"), "key 'row_bound'");
}

TEST(SamplerKeys, CheckNamesTheUnreadKeyAndWhatTheSamplerReads) {
  EXPECT_NO_THROW(check_sampler_keys("dp-penalty", json{{"tau", 1.0}, {"clip", 2.0}}));
  try {
    check_sampler_keys("dp-penalty", json{{"tau", 1.0}, {"A", 0.1}});
    FAIL() << "an unread key was accepted";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("--thermostat (key 'A')"), std::string::npos) << what;
    EXPECT_NE(what.find("'dp-penalty'"), std::string::npos) << what;
    EXPECT_NE(what.find("--proposal-sd"), std::string::npos) << what;
  }
}

TEST(SamplerKeys, MalformedSwitchIsAUsageErrorNamingTheOption) {
  try {
    (void)bool_param(json{{"randomized_step_size", 1}}, "hmc", "randomized_step_size", false);
    FAIL() << "a number was accepted as true/false";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--randomize-step"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(bool_param(json::object(), "hmc", "randomized_step_size", true));
}

}  // namespace
}  // namespace dpmcmc
