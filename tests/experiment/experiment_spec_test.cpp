// Experiment spec parsing: a good spec with profiles, and every kind of bad key or value giving
// a ConfigError that names the file and the key.
#include <gtest/gtest.h>

#include <functional>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "experiment/experiment_runner.hpp"
#include "experiment/experiment_spec.hpp"

namespace dpmcmc {
namespace {

using nlohmann::json;

json good_spec() {
  return json::parse(R"({
    "name": "tiny",
    "description": "a test",
    "models": ["banana-tempered-2d", "circle"],
    "samplers": ["dp-penalty", "rwmh", "strong"],
    "params": {"strong": {"sampler": "dp-penalty-ocu", "tau": 0.5}, "rwmh": {"proposal_sd": 0.05}},
    "epsilons": [1, 2.5],
    "delta": "0.2/n",
    "repeats": 3,
    "chains": 2,
    "n": 5000,
    "iterations": {"warmup": 20, "samples": 30},
    "warmup_fraction": 0.25,
    "metrics": ["mean_error", "mmd"],
    "reference_draws": 300,
    "accountants": ["pld-gaussian"],
    "seed": 42,
    "profiles": {"quick": {"repeats": 1, "epsilons": [4], "n": 1000}}
  })");
}

TEST(ExperimentSpec, GoodSpecFullProfile) {
  const auto s = parse_experiment_spec(good_spec(), "tiny.json", "full");
  EXPECT_EQ(s.name, "tiny");
  EXPECT_EQ(s.kind, ExperimentKind::sample);
  ASSERT_EQ(s.models.size(), 2u);
  EXPECT_EQ(s.models[1], "circle");
  ASSERT_EQ(s.samplers.size(), 3u);
  EXPECT_EQ(s.samplers[0].sampler, "dp-penalty");
  EXPECT_TRUE(s.samplers[0].overrides.empty());
  EXPECT_EQ(s.samplers[1].overrides["proposal_sd"], 0.05);
  EXPECT_EQ(s.samplers[2].label, "strong");
  EXPECT_EQ(s.samplers[2].sampler, "dp-penalty-ocu");
  EXPECT_EQ(s.samplers[2].overrides, json({{"tau", 0.5}}));
  EXPECT_EQ(s.epsilons, (std::vector<double>{1.0, 2.5}));
  EXPECT_TRUE(s.delta.per_row);
  EXPECT_DOUBLE_EQ(s.delta.delta(1000), 0.2 / 1000);
  EXPECT_EQ(s.repeats, 3);
  EXPECT_EQ(s.chains, 2);
  EXPECT_EQ(s.n, std::optional<std::size_t>(5000));
  EXPECT_EQ(s.warmup, 20u);
  EXPECT_EQ(s.samples, 30u);
  EXPECT_DOUBLE_EQ(s.warmup_fraction, 0.25);
  EXPECT_EQ(s.metrics, (std::vector<std::string>{"mean_error", "mmd"}));
  EXPECT_EQ(s.reference_draws, 300u);
  EXPECT_EQ(s.accountants, (std::vector<std::string>{"pld-gaussian"}));
  EXPECT_EQ(s.seed, 42u);
  EXPECT_EQ(s.resolved["delta"], "0.2/n");
}

TEST(ExperimentSpec, QuickProfileOverrides) {
  const auto s = parse_experiment_spec(good_spec(), "tiny.json", "quick");
  EXPECT_EQ(s.repeats, 1);
  EXPECT_EQ(s.epsilons, (std::vector<double>{4.0}));
  EXPECT_EQ(s.n, std::optional<std::size_t>(1000));
  EXPECT_EQ(s.chains, 2);  // not overridden
  EXPECT_EQ(s.profile, "quick");
}

TEST(ExperimentSpec, NumericDeltaAndDefaults) {
  json d = good_spec();
  d["delta"] = 1e-6;
  for (const char* k : {"repeats", "chains", "n", "iterations", "metrics", "warmup_fraction"})
    d.erase(k);
  const auto s = parse_experiment_spec(d, "tiny.json", "full");
  EXPECT_FALSE(s.delta.per_row);
  EXPECT_DOUBLE_EQ(s.delta.delta(123), 1e-6);
  EXPECT_EQ(s.repeats, 1);
  EXPECT_FALSE(s.n.has_value());
  EXPECT_DOUBLE_EQ(s.warmup_fraction, 0.5);
  EXPECT_EQ(s.metrics.size(), 4u);
  // Absent, and then not in the resolved spec, so that older specs keep their cell hashes.
  EXPECT_FALSE(s.paired_starts);
  EXPECT_FALSE(s.resolved.contains("paired_starts"));
  d["paired_starts"] = true;
  const auto paired = parse_experiment_spec(d, "tiny.json", "full");
  EXPECT_TRUE(paired.paired_starts);
  EXPECT_EQ(paired.resolved.at("paired_starts"), true);
  // An explicit false is the default: the same resolved spec, so the same cell hashes.
  d["paired_starts"] = false;
  EXPECT_EQ(parse_experiment_spec(d, "tiny.json", "full").resolved, s.resolved);
  // A profile may set it.
  d["profiles"] = {{"quick", {{"paired_starts", true}}}};
  EXPECT_TRUE(parse_experiment_spec(d, "tiny.json", "quick").paired_starts);
  EXPECT_FALSE(parse_experiment_spec(d, "tiny.json", "full").paired_starts);
}

TEST(ExperimentSpec, AccountKind) {
  const json d = json::parse(R"({"kind": "account", "models": ["banana-flat-2d"],
      "samplers": ["dp-penalty", "dp-hmc"], "epsilons": [1, 2], "accountants": ["zcdp"]})");
  const auto s = parse_experiment_spec(d, "acc.json", "full");
  EXPECT_EQ(s.kind, ExperimentKind::account);
  EXPECT_EQ(s.samplers[1].sampler, "dp-hmc");
  EXPECT_EQ(s.name, "acc");  // from the file name
  // Sampling-only keys are refused, naming the key.
  json paired = d;
  paired["paired_starts"] = true;
  try {
    parse_experiment_spec(paired, "acc.json", "full");
    ADD_FAILURE() << "paired_starts accepted in an account spec";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("'paired_starts'"), std::string::npos) << e.what();
  }
}

// An audit spec: private samplers only, its iterations become the cells' sweep coordinate, and
// every bad key is named.
TEST(ExperimentSpec, AuditKind) {
  const json d = json::parse(R"({"kind": "audit", "models": ["banana-flat-2d"],
      "samplers": ["dp-penalty", "dp-hmc"], "epsilons": [1, 2], "delta": 1e-5, "seed": 3,
      "audit": {"iterations": [1, 4], "trials": 5000, "rows": 800}})");
  const auto s = parse_experiment_spec(d, "aud.json", "full");
  EXPECT_EQ(s.kind, ExperimentKind::audit);
  ASSERT_TRUE(s.sweep.has_value());
  EXPECT_EQ(s.sweep->param, "iterations");
  EXPECT_EQ(s.sweep->values, (std::vector<double>{1, 4}));
  EXPECT_EQ(s.audit.trials, 5000u);
  EXPECT_EQ(s.audit.chain_trials, 10000u);  // the default
  EXPECT_EQ(s.audit.rows, 800u);
  EXPECT_EQ(s.resolved["kind"], "audit");
  EXPECT_EQ(s.resolved["audit"]["iterations"], json({1, 4}));
  const auto cells = experiment_cells(s);
  ASSERT_EQ(cells.size(), 8u);  // 2 samplers × 2 ε × 2 k
  EXPECT_EQ(cells[0].key, "audit/banana-flat-2d/dp-penalty/iterations=1/1/NA");
  EXPECT_FALSE(cells[0].sampler.overrides.contains("iterations"));  // not a hyperparameter
  const std::vector<std::pair<std::function<void(json&)>, std::string>> bad = {
      {[](json& x) { x["samplers"][0] = "nuts"; }, "'samplers[0]'"},
      {[](json& x) { x["audit"]["trails"] = 5; }, "'audit.trails'"},
      {[](json& x) { x["audit"]["iterations"] = json::array(); }, "'audit.iterations'"},
      {[](json& x) { x["audit"]["confidence"] = 1.0; }, "'audit.confidence'"},
      {[](json& x) {
         x["sweep"] = {{"param", "tau"}, {"values", {1}}};
       },
       "'sweep'"},
      {[](json& x) { x["repeats"] = 2; }, "'repeats'"},
      {[](json& x) { x.erase("seed"); }, "'seed'"},
      {[](json& x) { x["kind"] = "sample"; }, "'audit'"},
  };
  for (const auto& [edit, key] : bad) {
    json x = d;
    edit(x);
    try {
      parse_experiment_spec(x, "aud.json", "full");
      ADD_FAILURE() << "accepted: " << x.dump();
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  }
}

// DP-SGLD / DP-SGNHT take batch_sampling (run/sgld_setup.hpp); the preflight checks its value.
TEST(ExperimentSpec, BatchSamplingOfTheStochasticGradientSamplers) {
  json d = json::parse(R"({"models": ["banana-dphmc-2d"], "samplers": ["dp-sgld", "dp-sgnht"],
      "params": {"dp-sgld": {"batch_sampling": "without_replacement"},
                 "dp-sgnht": {"batch_sampling": "poisson"}},
      "epsilons": [2], "seed": 1})");
  const auto s = parse_experiment_spec(d, "sg.json", "full");
  EXPECT_EQ(s.samplers[0].overrides.at("batch_sampling"), "without_replacement");
  EXPECT_EQ(s.samplers[1].overrides.at("batch_sampling"), "poisson");
  d["params"]["dp-sgld"]["batch_sampling"] = "sometimes";
  try {
    parse_experiment_spec(d, "sg.json", "full");
    ADD_FAILURE() << "batch_sampling 'sometimes' accepted";
  } catch (const ConfigError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("key 'params.dp-sgld'"), std::string::npos) << m;
    EXPECT_NE(m.find("without_replacement"), std::string::npos) << m;
  }
}

// Each mutation of the good spec must fail with a ConfigError naming the file and `key`.
struct BadCase {
  std::string what;
  std::function<void(json&)> mutate;
  std::string key;
};

TEST(ExperimentSpec, BadKeysAndValuesNameFileAndKey) {
  const std::vector<BadCase> cases = {
      {"unknown top key", [](json& d) { d["repeat"] = 2; }, "'repeat'"},
      {"unknown model", [](json& d) { d["models"][1] = "banana"; }, "'models[1]'"},
      {"models not a list", [](json& d) { d["models"] = "circle"; }, "'models'"},
      {"missing models", [](json& d) { d.erase("models"); }, "'models'"},
      {"unknown sampler", [](json& d) { d["samplers"][0] = "dp-magic"; }, "'samplers[0]'"},
      {"duplicate sampler", [](json& d) { d["samplers"][1] = "dp-penalty"; }, "'samplers[1]'"},
      {"alias to unknown sampler", [](json& d) { d["params"]["strong"]["sampler"] = "nope"; },
       "'params.strong.sampler'"},
      {"unknown hyperparameter", [](json& d) { d["params"]["rwmh"]["stepsize"] = 1; },
       "'params.rwmh.stepsize'"},
      {"params of an unlisted sampler", [](json& d) { d["params"]["hmc"] = json::object(); },
       "'params.hmc'"},
      {"bad hyperparameter value", [](json& d) { d["params"]["strong"]["tau"] = -1; },
       "'params.strong'"},
      {"epsilon zero", [](json& d) { d["epsilons"][1] = 0; }, "'epsilons[1]'"},
      {"epsilon text", [](json& d) { d["epsilons"][0] = "one"; }, "'epsilons[0]'"},
      {"epsilon beyond certification", [](json& d) { d["epsilons"][1] = 800; }, "'epsilons[1]'"},
      {"missing epsilons", [](json& d) { d.erase("epsilons"); }, "'epsilons'"},
      {"delta rule", [](json& d) { d["delta"] = "0.1/m"; }, "'delta'"},
      {"delta too big", [](json& d) { d["delta"] = 1.5; }, "'delta'"},
      {"repeats zero", [](json& d) { d["repeats"] = 0; }, "'repeats'"},
      {"chains negative", [](json& d) { d["chains"] = -2; }, "'chains'"},
      {"chains fractional", [](json& d) { d["chains"] = 1.5; }, "'chains'"},
      {"n one", [](json& d) { d["n"] = 1; }, "'n'"},
      {"iterations key", [](json& d) { d["iterations"]["burnin"] = 3; }, "'iterations.burnin'"},
      {"warmup fraction 1", [](json& d) { d["warmup_fraction"] = 1.0; }, "'warmup_fraction'"},
      {"paired starts not a boolean", [](json& d) { d["paired_starts"] = 1; }, "'paired_starts'"},
      {"unknown metric", [](json& d) { d["metrics"][0] = "ks"; }, "'metrics[0]'"},
      {"unknown accountant", [](json& d) { d["accountants"][0] = "moments"; }, "'accountants[0]'"},
      {"missing seed", [](json& d) { d.erase("seed"); }, "'seed'"},
      {"seed text", [](json& d) { d["seed"] = "abc"; }, "'seed'"},
      {"init wrong dimension",
       [](json& d) {
         d["init"] = {{"point", {1, 2, 3}}};
       },
       "'init.point'"},
      {"init unknown key",
       [](json& d) {
         d["init"] = {{"centre", {0, 0}}, {"sd", 1}};
       },
       "'init.sd'"},
      {"unknown profile", [](json& d) { d["profiles"]["medium"] = json::object(); },
       "'profiles.medium'"},
      {"profile key", [](json& d) { d["profiles"]["quick"]["seed"] = 3; }, "'profiles.quick.seed'"},
      {"bad value inside the applied profile",
       [](json& d) { d["profiles"]["full"]["repeats"] = 0; }, "'repeats'"},
      {"bad kind", [](json& d) { d["kind"] = "plot"; }, "'kind'"},
      {"account with chains",
       [](json& d) {
         d["kind"] = "account";
         d["samplers"] = {"dp-penalty"};
         d.erase("params");
       },
       "'repeats'"},
      {"name with a slash", [](json& d) { d["name"] = "a/b"; }, "'name'"},
      {"sweep not an object", [](json& d) { d["sweep"] = 3; }, "'sweep'"},
      {"sweep unknown key",
       [](json& d) {
         d["sweep"] = {{"param", "clip"}, {"values", {1}}, {"step", 2}};
       },
       "'sweep.step'"},
      {"sweep param a sampler lacks",
       [](json& d) {
         d["sweep"] = {{"param", "tau"}, {"values", {1, 2}}};  // rwmh has no tau
       },
       "'sweep.param'"},
      {"sweep value twice",
       [](json& d) {
         d["sweep"] = {{"param", "clip"}, {"values", {1, 1}}};
       },
       "'sweep.values[1]'"},
      {"sweep value text",
       [](json& d) {
         d["sweep"] = {{"param", "clip"}, {"values", {"big"}}};
       },
       "'sweep.values[0]'"},
      {"sweep of an unknown label",
       [](json& d) {
         d["sweep"] = {{"param", "clip"}, {"values", {1}}, {"samplers", {"hmc"}}};
       },
       "'sweep.samplers[0]'"},
      {"swept parameter fixed in params",
       [](json& d) {
         d["sweep"] = {{"param", "tau"}, {"values", {1}}, {"samplers", {"strong"}}};
       },
       "'params.strong.tau'"},
      {"iterations of a private label",
       [](json& d) {
         d["params"]["strong"]["iterations"] = {{"samples", 10}};
       },
       "'params.strong.iterations'"},
      {"label models not in the spec",
       [](json& d) {
         d["params"]["rwmh"]["models"] = {"circle", "banana-flat-2d"};
       },
       "'params.rwmh.models[1]'"},
      {"label models empty", [](json& d) { d["params"]["rwmh"]["models"] = json::array(); },
       "'params.rwmh.models'"},
      {"label models not a list", [](json& d) { d["params"]["rwmh"]["models"] = "circle"; },
       "'params.rwmh.models'"},
      {"label iterations key",
       [](json& d) {
         d["params"]["rwmh"]["iterations"] = {{"burn", 10}};
       },
       "'params.rwmh.iterations.burn'"},
  };
  for (const auto& c : cases) {
    json d = good_spec();
    c.mutate(d);
    try {
      parse_experiment_spec(d, "specs/tiny.json", "full");
      ADD_FAILURE() << c.what << ": no error";
    } catch (const ConfigError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("specs/tiny.json"), std::string::npos) << c.what << ": " << m;
      EXPECT_NE(m.find("key " + c.key), std::string::npos) << c.what << ": " << m;
    } catch (const std::exception& e) {
      ADD_FAILURE() << c.what << ": wrong exception type: " << e.what();
    }
  }
}

// The sweep (default: every label) and per-label iterations of non-private samplers.
TEST(ExperimentSpec, SweepAndLabelIterations) {
  json d = good_spec();
  d["sweep"] = {{"param", "clip"}, {"values", {0.5, 1000}}, {"samplers", {"rwmh", "strong"}}};
  d["params"]["rwmh"]["iterations"] = {{"samples", 3000}};
  auto s = parse_experiment_spec(d, "tiny.json", "full");
  ASSERT_TRUE(s.sweep.has_value());
  EXPECT_EQ(s.sweep->param, "clip");
  EXPECT_EQ(s.sweep->values, (std::vector<double>{0.5, 1000}));
  EXPECT_TRUE(s.sweep->sweeps("rwmh"));
  EXPECT_FALSE(s.sweep->sweeps("dp-penalty"));
  EXPECT_FALSE(s.samplers[1].warmup.has_value());
  EXPECT_EQ(s.samplers[1].samples, std::optional<std::size_t>(3000));
  EXPECT_FALSE(s.samplers[1].overrides.contains("iterations"));
  EXPECT_EQ(s.resolved["samplers"][1]["iterations"], json({{"warmup", 20}, {"samples", 3000}}));
  EXPECT_EQ(s.resolved["sweep"]["samplers"], json({"rwmh", "strong"}));
  d["sweep"].erase("samplers");
  s = parse_experiment_spec(d, "tiny.json", "full");
  EXPECT_EQ(s.sweep->labels, (std::vector<std::string>{"dp-penalty", "rwmh", "strong"}));
}

// A label restricted to some of the spec's models: not a hyperparameter, shown in the resolved
// spec. (A sampler without preset hyperparameters on the other models passes the preflight.)
TEST(ExperimentSpec, LabelModels) {
  json d = good_spec();
  d["samplers"].push_back("dp-barker");
  d["params"]["dp-barker"] = {{"models", {"banana-tempered-2d"}}};
  EXPECT_THROW(
      {
        json all = good_spec();
        all["samplers"].push_back("dp-barker");
        parse_experiment_spec(all, "tiny.json", "full");
      },
      ConfigError);  // the circle preset has no DP Barker hyperparameters
  const auto s = parse_experiment_spec(d, "tiny.json", "full");
  ASSERT_EQ(s.samplers.size(), 4u);
  EXPECT_EQ(s.samplers[3].models, (std::vector<std::string>{"banana-tempered-2d"}));
  EXPECT_TRUE(s.samplers[3].overrides.empty());
  EXPECT_TRUE(s.samplers[3].runs_on("banana-tempered-2d"));
  EXPECT_FALSE(s.samplers[3].runs_on("circle"));
  EXPECT_TRUE(s.samplers[0].runs_on("circle"));
  EXPECT_EQ(s.resolved["samplers"][3]["models"], json({"banana-tempered-2d"}));
  EXPECT_FALSE(s.resolved["samplers"][0].contains("models"));
}

TEST(ExperimentSpec, ProfileNameAndMissingFile) {
  EXPECT_THROW(parse_experiment_spec(good_spec(), "tiny.json", "medium"), UsageError);
  EXPECT_THROW(load_experiment_spec("/nonexistent/spec.json", "full"), NoInputError);
}

}  // namespace
}  // namespace dpmcmc

namespace dpmcmc {
namespace {

// "adapt": true on a label turns warmup adaptation on for its cells and changes their hash; a
// label without it (or with false) keeps the hash it had before the key existed.
TEST(ExperimentSpec, AdaptIsPerLabelAndHashedOnlyWhenOn) {
  nlohmann::json d = good_spec();
  const auto before = parse_experiment_spec(d, "tiny.json", "full");
  d["params"]["strong"]["adapt"] = true;
  d["params"]["rwmh"]["adapt"] = false;
  const auto after = parse_experiment_spec(d, "tiny.json", "full");
  ASSERT_EQ(after.samplers.size(), 3u);
  EXPECT_FALSE(after.samplers[0].adapt);
  EXPECT_FALSE(after.samplers[1].adapt);
  EXPECT_TRUE(after.samplers[2].adapt);
  EXPECT_FALSE(after.samplers[2].overrides.contains("adapt"));  // not a hyperparameter
  EXPECT_EQ(cell_hash(after, after.samplers[1]), cell_hash(before, before.samplers[1]));
  EXPECT_NE(cell_hash(after, after.samplers[2]), cell_hash(before, before.samplers[2]));
  d["params"]["strong"]["adapt"] = "yes";
  EXPECT_THROW(parse_experiment_spec(d, "tiny.json", "full"), ConfigError);
}

// "target_accept" sets the adaptation's target for a label that adapts, changes the cell hash,
// and is refused outside (0, 1) or without "adapt": true.
TEST(ExperimentSpec, TargetAcceptIsPerAdaptingLabel) {
  nlohmann::json d = good_spec();
  d["params"]["strong"]["adapt"] = true;
  const auto plain = parse_experiment_spec(d, "tiny.json", "full");
  d["params"]["strong"]["target_accept"] = 0.15;
  const auto aimed = parse_experiment_spec(d, "tiny.json", "full");
  ASSERT_TRUE(aimed.samplers[2].target_accept.has_value());
  EXPECT_DOUBLE_EQ(*aimed.samplers[2].target_accept, 0.15);
  EXPECT_FALSE(aimed.samplers[2].overrides.contains("target_accept"));
  EXPECT_FALSE(plain.samplers[2].target_accept.has_value());
  EXPECT_NE(cell_hash(aimed, aimed.samplers[2]), cell_hash(plain, plain.samplers[2]));
  for (const nlohmann::json& bad :
       {nlohmann::json(0.0), nlohmann::json(1.0), nlohmann::json("x")}) {
    d["params"]["strong"]["target_accept"] = bad;
    EXPECT_THROW(parse_experiment_spec(d, "tiny.json", "full"), ConfigError) << bad;
  }
  d["params"]["strong"]["target_accept"] = 0.3;
  d["params"]["strong"]["adapt"] = false;
  EXPECT_THROW(parse_experiment_spec(d, "tiny.json", "full"), ConfigError);
}

}  // namespace
}  // namespace dpmcmc
