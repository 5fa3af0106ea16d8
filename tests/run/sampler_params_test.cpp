// The hyperparameter keys each sampler reads (run/sampler_params.hpp): the list `dpmcmc sample`
// and experiment specs check options against. It must hold every key a preset sets for the
// sampler, and every key it lists must really be read (a malformed value of it is refused);
// otherwise a user's option would be refused although used, or accepted although ignored.
#include "run/sampler_params.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <set>

#include "core/error.hpp"
#include "models/presets.hpp"
#include "run/private_samplers.hpp"
#include "run/sample_job.hpp"
#include "run/sampler_descriptors.hpp"

namespace dpmcmc {
namespace {

using nlohmann::json;

// Every key a preset sets for a sampler is one the sampler reads (else it is dead config), and
// every entry is named after a sampler.
TEST(SamplerKeys, PresetEntriesHoldOnlyKeysTheirSamplerReads) {
  const auto names = sampler_names();
  for (const auto& p : presets()) {
    for (const auto& [sampler, entry] : p.samplers.items()) {
      EXPECT_NE(std::find(names.begin(), names.end(), sampler), names.end())
          << p.name << ": entry " << sampler;
      const auto keys = sampler_keys(sampler);
      for (const auto& [k, v] : entry.items()) {
        if (k == "source") continue;
        EXPECT_TRUE(keys.count(k)) << p.name << ", " << sampler << ": key " << k;
      }
    }
  }
  for (const auto& sampler : names) EXPECT_FALSE(sampler_keys(sampler).empty()) << sampler;
  EXPECT_TRUE(sampler_keys("slice").empty());
}

// A preset's recommended `sample` options (Preset::run_defaults) name non-private samplers (a
// private run's length is its budget's) and hold only the options to_spec reads, each in range,
// with a source.
TEST(SamplerKeys, PresetRunDefaultsAreValidOptionsOfNonPrivateSamplers) {
  int entries = 0;
  for (const auto& p : presets()) {
    for (const auto& [sampler, e] : p.run_defaults.items()) {
      ++entries;
      SCOPED_TRACE(p.name + " " + sampler);
      EXPECT_NE(find_sampler(sampler), nullptr);
      EXPECT_FALSE(is_private_sampler(sampler));
      EXPECT_TRUE(e.contains("source") && e.at("source").is_string());
      for (const auto& [k, v] : e.items()) {
        if (k == "iter" || k == "warmup") {
          EXPECT_TRUE(v.is_number_integer() && v.get<std::int64_t>() >= 1) << k;
        } else if (k == "target_accept") {
          EXPECT_TRUE(v.is_number() && v.get<double>() > 0.0 && v.get<double>() < 1.0);
        } else if (k == "metric") {
          EXPECT_TRUE(v == "diag" || v == "dense");
        } else {
          EXPECT_EQ(k, "source");
        }
      }
    }
  }
  EXPECT_GT(entries, 0);
}

// A shared preset entry gives a sampler only the defaults it reads: dp-fast-mh-full, always on
// the full batch, does not inherit dp-fast-mh's λ and K.
TEST(SamplerKeys, SharedDefaultsAreRestrictedToTheKeysRead) {
  const Preset& p = find_preset("mixture-fastmh-2d");
  ASSERT_TRUE(p.samplers.at("dp-fast-mh").contains("lambda"));
  const json full = sampler_params(p, "dp-fast-mh-full", json::object());
  EXPECT_FALSE(full.contains("lambda"));
  EXPECT_FALSE(full.contains("max_batch"));
  EXPECT_EQ(full.at("proposal_sd"), p.samplers.at("dp-fast-mh").at("proposal_sd"));
  EXPECT_TRUE(sampler_params(p, "dp-fast-mh", json::object()).contains("lambda"));
}

// Whether building `sampler` from `overrides` on preset `p` (private samplers: for the preset's
// n rows; the others on at most 500 simulated rows) succeeds.
bool builds(const std::string& sampler, const Preset& p, const json& overrides) {
  const auto model = p.make_model();
  try {
    const json params = sampler_params(p, sampler, overrides);
    if (const auto* entry = find_private_sampler(sampler)) {
      (void)entry->build_private(sampler, params, *model, p.n);
    } else {
      const auto n =
          p.load_data ? std::nullopt : std::optional<std::size_t>(std::min<std::size_t>(p.n, 500));
      const Dataset data = simulate_preset(p, *model, 1, n);
      (void)kernel_factory(sampler, params, *model, data);
    }
  } catch (const Error&) {
    return false;
  }
  return true;
}

// For every sampler and every key any sampler reads: a malformed value breaks the build exactly
// when the key is in the sampler's list. A key read but not listed would be refused although
// used; a key listed but not read would be accepted and ignored.
TEST(SamplerKeys, ASamplerReadsExactlyItsListedKeys) {
  std::set<std::string> every_key;
  for (const auto& sampler : sampler_names()) every_key.merge(sampler_keys(sampler));
  for (const auto& sampler : sampler_names()) {
    // The number of data owners has no preset default.
    const json base = sampler == "dp-penalty-shared" ? json{{"owners", 2}} : json::object();
    // The first preset with defaults for it and a model it can use.
    const Preset* preset = nullptr;
    for (const auto& p : presets()) {
      if (builds(sampler, p, base)) {
        preset = &p;
        break;
      }
    }
    ASSERT_NE(preset, nullptr) << sampler << " builds on no preset";
    const auto listed = sampler_keys(sampler);
    for (const auto& key : every_key) {
      json bad = base;
      bad[key] = json::array({"not", "a", "value"});
      EXPECT_EQ(!builds(sampler, *preset, bad), listed.count(key) == 1)
          << sampler << " on " << preset->name << ", key " << key;
    }
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
  // An unknown name passes (refused with the list of names elsewhere), so every known sampler
  // must read some key for the check to apply to it.
  EXPECT_NO_THROW(check_sampler_keys("dp-penalti", json{{"A", 1.0}}));
  for (const auto& sampler : sampler_names())
    EXPECT_FALSE(sampler_keys(sampler).empty()) << sampler;
  try {
    check_sampler_keys("dp-penalty", json{{"tau", 1.0}, {"A", 0.1}});
    FAIL() << "an unread key was accepted";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("--thermostat (key 'A')"), std::string::npos) << what;
    EXPECT_NE(what.find("'dp-penalty'"), std::string::npos) << what;
    EXPECT_NE(what.find("--proposal-sd"), std::string::npos) << what;
    EXPECT_EQ(what.find("spec"), std::string::npos) << what;
  }
  // dp-fast-mh's free_branch and row_bound have no option: listed apart, after the options.
  try {
    check_sampler_keys("dp-fast-mh", json{{"tau", 1.0}});
    FAIL() << "an unread key was accepted";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("--max-batch, --proposal-sd; in an experiment spec also 'free_branch', "
                        "'row_bound'"),
              std::string::npos)
        << what;
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

namespace dpmcmc {
namespace {

// The descriptors and the hyperparameter table agree: every key a descriptor lists is in the
// table (so it has a kind, an option and help), every table entry is read by some sampler (no
// dead option), and each descriptor builds its sampler one way.
TEST(SamplerDescriptors, ListOnlyTabledKeysAndBuildOneWay) {
  std::set<std::string> tabled, read;
  for (const auto& p : param_table()) EXPECT_TRUE(tabled.insert(p.key).second) << p.key;
  for (const auto& d : sampler_descriptors()) {
    EXPECT_NE(d.build == nullptr, d.build_private == nullptr) << d.name;
    EXPECT_FALSE(d.summary.empty()) << d.name;
    for (const auto& key : d.params) {
      EXPECT_TRUE(tabled.count(key)) << d.name << ": " << key;
      read.insert(key);
    }
    EXPECT_EQ(find_sampler(d.name), &d);
  }
  EXPECT_EQ(read, tabled);
  EXPECT_EQ(find_sampler("slice"), nullptr);
  EXPECT_EQ(find_private_sampler("hmc"), nullptr);
  EXPECT_NE(find_private_sampler("dp-hmc"), nullptr);
}

}  // namespace
}  // namespace dpmcmc
