#include "experiment/experiment_spec.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <tuple>
#include <utility>

#include "core/error.hpp"
#include "experiment/experiment_template.hpp"
#include "io/run_report.hpp"
#include "models/presets.hpp"
#include "privacy/accountants.hpp"
#include "privacy/budget.hpp"
#include "run/private_samplers.hpp"
#include "run/sample_job.hpp"
#include "run/sampler_descriptors.hpp"
#include "run/sampler_params.hpp"

namespace dpmcmc {
namespace {

using nlohmann::json;

// Keys a spec may hold at the top level, and those a profile may override.
const std::vector<std::string> kTopKeys = {
    "name",    "description",     "kind",        "models",        "samplers",
    "params",  "epsilons",        "delta",       "repeats",       "chains",
    "n",       "iterations",      "init",        "paired_starts", "warmup_fraction",
    "metrics", "reference_draws", "accountants", "seed",          "profiles",
    "sweep",   "noise_key_file",  "audit",       "fixed_data"};
const std::vector<std::string> kProfileKeys = {
    "models",        "samplers",        "params",    "epsilons",        "delta",
    "repeats",       "chains",          "n",         "iterations",      "init",
    "paired_starts", "warmup_fraction", "metrics",   "reference_draws", "accountants",
    "sweep",         "audit",           "fixed_data"};
// Keys that only mean something when sampling.
const std::vector<std::string> kSampleOnlyKeys = {
    "repeats", "chains",          "iterations",      "init",      "paired_starts",
    "metrics", "warmup_fraction", "reference_draws", "fixed_data"};
// sym_kl is recorded only when listed: adding it to the default list would change the spec hash
// of every spec without "metrics" and so refuse to resume their results.
const std::vector<std::string> kMetrics = {"mmd",           "mean_error", "cov_error",
                                           "test_accuracy", "rhat",       "sym_kl"};

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw ConfigError(fmt::format("{}: key '{}': {}", file_, key, what));
  }

  static std::string shown(const json& v) {
    std::string s = v.dump();
    return s.size() > 60 ? s.substr(0, 57) + "..." : s;
  }

  std::string string(const json& v, const std::string& key) const {
    if (!v.is_string() || v.get<std::string>().empty())
      fail(key, fmt::format("expected a non-empty string, got {}", shown(v)));
    return v.get<std::string>();
  }

  double positive(const json& v, const std::string& key) const {
    if (!v.is_number() || !(v.get<double>() > 0) || !std::isfinite(v.get<double>()))
      fail(key, fmt::format("expected a finite number > 0, got {}", shown(v)));
    return v.get<double>();
  }

  std::uint64_t whole(const json& v, const std::string& key, std::uint64_t min) const {
    if (!(v.is_number_unsigned() || (v.is_number_integer() && v.get<long long>() >= 0)) ||
        v.get<std::uint64_t>() < min)
      fail(key, fmt::format("expected a whole number ≥ {}, got {}", min, shown(v)));
    return v.get<std::uint64_t>();
  }

  std::vector<std::string> strings(const json& v, const std::string& key) const {
    if (!v.is_array()) fail(key, fmt::format("expected an array of strings, got {}", shown(v)));
    std::vector<std::string> out;
    for (std::size_t i = 0; i < v.size(); ++i) {
      out.push_back(string(v[i], fmt::format("{}[{}]", key, i)));
      if (std::count(out.begin(), out.end(), out.back()) > 1)
        fail(fmt::format("{}[{}]", key, i), fmt::format("'{}' is listed twice", out.back()));
    }
    return out;
  }

  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

json apply_profile(const json& doc, const Reader& r, const std::string& profile) {
  if (profile != "full" && profile != "quick") {
    throw UsageError(fmt::format("--profile: expected quick or full, got '{}'", profile));
  }
  json merged = doc;
  merged.erase("profiles");
  if (!doc.contains("profiles")) return merged;
  const json& profiles = doc.at("profiles");
  if (!profiles.is_object())
    r.fail("profiles", "expected an object {\"quick\": {…}, \"full\": {…}}");
  for (const auto& [name, body] : profiles.items()) {
    const std::string key = "profiles." + name;
    if (name != "quick" && name != "full") r.fail(key, "expected a profile named quick or full");
    if (!body.is_object()) r.fail(key, "expected an object of keys to override");
    for (const auto& [k, v] : body.items()) {
      if (std::find(kProfileKeys.begin(), kProfileKeys.end(), k) == kProfileKeys.end()) {
        r.fail(key + "." + k, fmt::format("a profile cannot set this key; allowed: {}",
                                          fmt::join(kProfileKeys, ", ")));
      }
      if (name == profile) merged[k] = v;
    }
  }
  return merged;
}

DeltaRule parse_delta(const json& v, const Reader& r) {
  DeltaRule rule;
  if (v.is_number()) {
    const double d = v.get<double>();
    if (!(d > 0 && d < 1)) r.fail("delta", fmt::format("expected a number in (0, 1), got {}", d));
    rule.per_row = false;
    rule.value = d;
    return rule;
  }
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    const auto slash = s.find("/n");
    if (slash != std::string::npos && slash + 2 == s.size()) {
      try {
        std::size_t used = 0;
        const double c = std::stod(s.substr(0, slash), &used);
        if (used == slash && c > 0 && std::isfinite(c)) {
          rule.per_row = true;
          rule.value = c;
          return rule;
        }
      } catch (const std::exception&) {
      }
    }
  }
  r.fail("delta",
         fmt::format("expected a number in (0, 1) or a rule \"C/n\" (e.g. \"0.1/n\"), got {}",
                     Reader::shown(v)));
}

Vec parse_vector(const json& v, const Reader& r, const std::string& key) {
  if (!v.is_array() || v.empty()) r.fail(key, "expected a non-empty array of numbers");
  Vec out(static_cast<Eigen::Index>(v.size()));
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_number() || !std::isfinite(v[i].get<double>()))
      r.fail(fmt::format("{}[{}]", key, i),
             fmt::format("expected a number, got {}", Reader::shown(v[i])));
    out(static_cast<Eigen::Index>(i)) = v[i].get<double>();
  }
  return out;
}

InitRule parse_init(const json& v, const Reader& r) {
  InitRule rule;
  if (v.is_string() && v.get<std::string>() == "preset") return rule;
  if (!v.is_object())
    r.fail("init", fmt::format("expected \"preset\", {{\"centre\": […], \"spread\": s}} or "
                               "{{\"point\": […]}}, got {}",
                               Reader::shown(v)));
  for (const auto& [k, x] : v.items()) {
    if (k != "centre" && k != "spread" && k != "point")
      r.fail("init." + k, "unknown key; expected centre, spread or point");
  }
  if (v.contains("point")) {
    if (v.contains("centre") || v.contains("spread"))
      r.fail("init.point", "give either point or centre/spread, not both");
    rule.kind = InitRule::Kind::point;
    rule.centre = parse_vector(v.at("point"), r, "init.point");
    return rule;
  }
  if (!v.contains("centre")) r.fail("init.centre", "missing (the centre of the starting points)");
  rule.kind = InitRule::Kind::centre;
  rule.centre = parse_vector(v.at("centre"), r, "init.centre");
  if (v.contains("spread")) {
    const json& s = v.at("spread");
    if (!s.is_number() || !(s.get<double>() >= 0) || !std::isfinite(s.get<double>()))
      r.fail("init.spread", fmt::format("expected a finite number ≥ 0, got {}", Reader::shown(s)));
    rule.spread = s.get<double>();
  }
  return rule;
}

// {"warmup": W, "samples": S}; a key left out keeps its default.
std::pair<std::size_t, std::size_t> parse_iterations(const json& it, const Reader& r,
                                                     const std::string& key, std::size_t warmup,
                                                     std::size_t samples) {
  if (!it.is_object()) r.fail(key, "expected {\"warmup\": W, \"samples\": S}");
  for (const auto& [k, v] : it.items()) {
    if (k == "warmup") {
      warmup = r.whole(v, key + ".warmup", 0);
    } else if (k == "samples") {
      samples = r.whole(v, key + ".samples", 4);
    } else {
      r.fail(key + "." + k, "unknown key; expected warmup or samples");
    }
  }
  return {warmup, samples};
}

// "sweep": {"param": P, "values": [v, …], "samplers": [labels]} (samplers optional: all). P must
// be a hyperparameter every swept label's sampler takes and that its params do not fix already.
SweepSpec parse_sweep(const json& v, const Reader& r, const std::vector<SamplerChoice>& samplers) {
  if (!v.is_object())
    r.fail("sweep", "expected {\"param\": NAME, \"values\": [numbers], \"samplers\": [labels]}");
  for (const auto& [k, x] : v.items()) {
    if (k != "param" && k != "values" && k != "samplers")
      r.fail("sweep." + k, "unknown key; expected param, values or samplers");
  }
  SweepSpec sweep;
  if (!v.contains("param")) r.fail("sweep.param", "missing (the hyperparameter to sweep)");
  sweep.param = r.string(v.at("param"), "sweep.param");
  if (!v.contains("values")) r.fail("sweep.values", "missing (the values of the hyperparameter)");
  const json& values = v.at("values");
  if (!values.is_array() || values.empty())
    r.fail("sweep.values", "expected a non-empty array of numbers");
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::string key = fmt::format("sweep.values[{}]", i);
    if (!values[i].is_number() || !std::isfinite(values[i].get<double>()))
      r.fail(key, fmt::format("expected a finite number, got {}", Reader::shown(values[i])));
    sweep.values.push_back(values[i].get<double>());
    if (std::count(sweep.values.begin(), sweep.values.end(), sweep.values.back()) > 1)
      r.fail(key, "this value is listed twice");
  }
  if (v.contains("samplers")) {
    sweep.labels = r.strings(v.at("samplers"), "sweep.samplers");
    if (sweep.labels.empty()) r.fail("sweep.samplers", "expected at least one sampler label");
  } else {
    for (const auto& c : samplers) sweep.labels.push_back(c.label);
  }
  for (std::size_t i = 0; i < sweep.labels.size(); ++i) {
    const std::string& label = sweep.labels[i];
    const auto it = std::find_if(samplers.begin(), samplers.end(),
                                 [&](const SamplerChoice& c) { return c.label == label; });
    if (it == samplers.end())
      r.fail(fmt::format("sweep.samplers[{}]", i),
             fmt::format("no sampler of label '{}' in 'samplers'", label));
    const auto allowed = sampler_keys(it->sampler);
    if (!allowed.count(sweep.param))
      r.fail("sweep.param", fmt::format("sampler '{}' (label '{}') has no hyperparameter '{}'; it "
                                        "takes {}",
                                        it->sampler, label, sweep.param, fmt::join(allowed, ", ")));
    if (it->overrides.contains(sweep.param))
      r.fail(fmt::format("params.{}.{}", label, sweep.param),
             "this hyperparameter is swept (key 'sweep'): remove it from the label's params");
  }
  return sweep;
}

std::vector<SamplerChoice> parse_samplers(const json& doc, const Reader& r, ExperimentKind kind,
                                          const std::vector<std::string>& models) {
  const auto labels = r.strings(doc.at("samplers"), "samplers");
  if (labels.empty()) r.fail("samplers", "expected at least one sampler");
  json params = json::object();
  if (doc.contains("params")) {
    params = doc.at("params");
    if (!params.is_object())
      r.fail("params", "expected an object: sampler label → hyperparameters");
    for (const auto& [label, body] : params.items()) {
      if (std::find(labels.begin(), labels.end(), label) == labels.end())
        r.fail("params." + label, "no sampler of this label in 'samplers'");
    }
  }
  const auto known = sampler_names();
  std::vector<SamplerChoice> out;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    SamplerChoice c;
    c.label = labels[i];
    c.sampler = c.label;
    const std::string pkey = "params." + c.label;
    if (params.contains(c.label)) {
      const json& body = params.at(c.label);
      if (!body.is_object()) r.fail(pkey, "expected an object of hyperparameters");
      if (body.contains("sampler")) c.sampler = r.string(body.at("sampler"), pkey + ".sampler");
      if (body.contains("iterations")) {
        // A key left out keeps the spec's value (kUnset marks it; the cell falls back).
        constexpr std::size_t kUnset = std::numeric_limits<std::size_t>::max();
        const auto [warmup, samples] =
            parse_iterations(body.at("iterations"), r, pkey + ".iterations", kUnset, kUnset);
        if (warmup != kUnset) c.warmup = warmup;
        if (samples != kUnset) c.samples = samples;
        if (!c.warmup && !c.samples) r.fail(pkey + ".iterations", "expected warmup and/or samples");
      }
      if (body.contains("models")) {
        c.models = r.strings(body.at("models"), pkey + ".models");
        if (c.models.empty()) r.fail(pkey + ".models", "expected at least one model");
        for (std::size_t m = 0; m < c.models.size(); ++m) {
          if (std::find(models.begin(), models.end(), c.models[m]) == models.end())
            r.fail(fmt::format("{}.models[{}]", pkey, m),
                   fmt::format("'{}' is not in the spec's models ({})", c.models[m],
                               fmt::join(models, ", ")));
        }
      }
      if (body.contains("adapt")) {
        if (!body.at("adapt").is_boolean()) r.fail(pkey + ".adapt", "expected true or false");
        c.adapt = body.at("adapt").get<bool>();
      }
      if (body.contains("target_accept")) {
        const json& t = body.at("target_accept");
        if (!t.is_number() || !(t.get<double>() > 0.0 && t.get<double>() < 1.0))
          r.fail(pkey + ".target_accept", "expected a number in (0, 1)");
        if (!c.adapt) r.fail(pkey + ".target_accept", "needs \"adapt\": true");
        c.target_accept = t.get<double>();
      }
      for (const auto& [k, v] : body.items()) {
        if (k != "sampler" && k != "iterations" && k != "models" && k != "adapt" &&
            k != "target_accept")
          c.overrides[k] = v;
      }
    }
    const bool accepted = kind == ExperimentKind::account ? has_release_template(c.sampler)
                          : kind == ExperimentKind::audit
                              ? find_private_sampler(c.sampler) != nullptr
                              : std::find(known.begin(), known.end(), c.sampler) != known.end();
    if (!accepted) {
      const std::string where =
          c.sampler == c.label ? fmt::format("samplers[{}]", i) : pkey + ".sampler";
      if (kind == ExperimentKind::audit) {
        r.fail(where, fmt::format("'{}' is not a private sampler; an audit takes one of {}",
                                  c.sampler, fmt::join(private_sampler_names(), ", ")));
      }
      if (kind == ExperimentKind::account) {
        std::vector<std::string> names;
        for (const auto& name : private_sampler_names()) names.push_back(name);
        if (find_private_sampler("dp-hmc") == nullptr) names.push_back("dp-hmc");
        r.fail(where, fmt::format("'{}' has no release template; expected one of {}", c.sampler,
                                  fmt::join(names, ", ")));
      }
      r.fail(where, fmt::format("unknown sampler '{}'; `dpmcmc sample` accepts {}", c.sampler,
                                fmt::join(known, ", ")));
    }
    if ((c.warmup || c.samples) &&
        (kind != ExperimentKind::sample || experiment_sampler_is_private(c.sampler)))
      r.fail(pkey + ".iterations",
             fmt::format("only non-private samplers take iterations ('{}' runs what the budget "
                         "allows)",
                         c.sampler));
    const auto allowed = sampler_keys(c.sampler);
    for (const auto& [k, v] : c.overrides.items()) {
      if (!allowed.count(k)) {
        r.fail(pkey + "." + k, fmt::format("sampler '{}' has no hyperparameter '{}'; it takes {}",
                                           c.sampler, k, fmt::join(allowed, ", ")));
      }
    }
    out.push_back(std::move(c));
  }
  return out;
}

// Builds every (model, sampler) pair once so that bad hyperparameters, starting points of the
// wrong dimension or a model a sampler cannot use are reported before the first cell runs.
void preflight(const ExperimentSpec& spec, const Reader& r) {
  for (std::size_t i = 0; i < spec.models.size(); ++i) {
    const Preset& preset = find_preset(spec.models[i]);
    const std::size_t n = spec.n.value_or(preset.n);
    const auto model = preset.make_model();
    if (spec.init.kind != InitRule::Kind::preset && spec.init.centre.size() != model->dim()) {
      r.fail(spec.init.kind == InitRule::Kind::point ? "init.point" : "init.centre",
             fmt::format("expected {} numbers for model '{}', got {}", model->dim(), preset.name,
                         spec.init.centre.size()));
    }
    for (const auto& c : spec.samplers) {
      if (!c.runs_on(spec.models[i])) continue;
      const std::string where = "params." + c.label;
      try {
        json overrides = c.overrides;
        // One value stands for all: the swept key must be present for the sampler to build
        // (an audit's sweep, its iterations, is not a hyperparameter).
        if (spec.sweep && spec.sweep->sweeps(c.label) && spec.kind != ExperimentKind::audit)
          overrides[spec.sweep->param] = spec.sweep->values.front();
        const json params = sampler_params(preset, c.sampler, overrides);
        if (spec.kind != ExperimentKind::sample || find_private_sampler(c.sampler)) {
          (void)release_template(c.sampler, params, preset, n);
        } else if (c.sampler == "rwmh") {
          (void)vector_param(params, c.sampler, "proposal_sd", model->dim());
        } else if (c.sampler == "hmc") {
          (void)number_param(params, c.sampler, "step_size");
          (void)count_param(params, c.sampler, "steps");
        }
        if ((c.sampler == "rwmh" || c.sampler == "hmc") && params.contains("clip"))
          (void)number_param(params, c.sampler, "clip");
      } catch (const Error& e) {
        r.fail(where,
               fmt::format("sampler '{}' on model '{}': {}", c.sampler, preset.name, e.what()));
      }
    }
  }
}

}  // namespace

bool SamplerChoice::runs_on(const std::string& model) const {
  return models.empty() || std::find(models.begin(), models.end(), model) != models.end();
}

bool SweepSpec::sweeps(const std::string& label) const {
  return std::find(labels.begin(), labels.end(), label) != labels.end();
}

double DeltaRule::delta(std::size_t n) const {
  return per_row ? value / static_cast<double>(n) : value;
}

std::string DeltaRule::text() const {
  return per_row ? fmt::format("{}/n", value) : fmt::format("{}", value);
}

const char* experiment_kind_name(ExperimentKind kind) {
  switch (kind) {
    case ExperimentKind::sample:
      return "sample";
    case ExperimentKind::account:
      return "account";
    case ExperimentKind::audit:
      return "audit";
  }
  return "sample";
}

bool experiment_sampler_is_private(const std::string& sampler) {
  return is_private_sampler(sampler) || sampler == "dp-hmc";
}

namespace {

// Each of `names` (read from `key`) must be one of `known`: else the error names key[i].
void require_known(const Reader& r, const std::vector<std::string>& names,
                   const std::vector<std::string>& known, const std::string& key,
                   const std::string& what) {
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (std::find(known.begin(), known.end(), names[i]) == known.end())
      r.fail(fmt::format("{}[{}]", key, i), fmt::format("unknown {} '{}'; expected one of {}", what,
                                                        names[i], fmt::join(known, ", ")));
  }
}

// name, description and kind.
void parse_identity(const json& d, const Reader& r, ExperimentSpec& spec) {
  spec.name = d.contains("name") ? r.string(d.at("name"), "name") : spec.file.stem().string();
  for (char ch : spec.name) {
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_'))
      r.fail("name", fmt::format("expected letters, digits, '-' or '_' (it names the output "
                                 "directory), got '{}'",
                                 spec.name));
  }
  if (d.contains("description")) spec.description = r.string(d.at("description"), "description");
  if (d.contains("kind")) {
    const std::string k = r.string(d.at("kind"), "kind");
    if (k == "sample") {
      spec.kind = ExperimentKind::sample;
    } else if (k == "account") {
      spec.kind = ExperimentKind::account;
    } else if (k == "audit") {
      spec.kind = ExperimentKind::audit;
    } else {
      r.fail("kind", fmt::format("expected sample, account or audit, got '{}'", k));
    }
  }
  if (spec.kind != ExperimentKind::sample) {
    for (const auto& k : kSampleOnlyKeys) {
      if (d.contains(k))
        r.fail(k, fmt::format("does not apply to an experiment of kind '{}'",
                              experiment_kind_name(spec.kind)));
    }
  }
  if (spec.kind == ExperimentKind::audit && d.contains("sweep"))
    r.fail("sweep", "an audit's sweep is its \"audit\": {\"iterations\": [...]}");
  if (spec.kind != ExperimentKind::audit && d.contains("audit"))
    r.fail("audit", "applies to an experiment of kind 'audit' only");
}

// "audit": {"iterations": [k, …], "trials": N, "chain_trials": M, "pilot_trials": P, "rows": R,
// "confidence": C},
// every key optional; the iterations become the cells' sweep coordinate.
void parse_audit(const json& d, const Reader& r, ExperimentSpec& spec) {
  AuditGrid& a = spec.audit;
  if (d.contains("audit")) {
    const json& j = d.at("audit");
    if (!j.is_object()) r.fail("audit", "expected an object of audit settings");
    for (const auto& [k, v] : j.items()) {
      const std::string key = "audit." + k;
      if (k == "iterations") {
        if (!v.is_array() || v.empty()) r.fail(key, "expected a non-empty array of whole numbers");
        a.iterations.clear();
        for (std::size_t i = 0; i < v.size(); ++i)
          a.iterations.push_back(r.whole(v[i], fmt::format("{}[{}]", key, i), 1));
      } else if (k == "trials") {
        a.trials = r.whole(v, key, 8);
      } else if (k == "chain_trials") {
        a.chain_trials = r.whole(v, key, 8);
      } else if (k == "pilot_trials") {
        a.pilot_trials = r.whole(v, key, 8);
      } else if (k == "rows") {
        a.rows = r.whole(v, key, 2);
      } else if (k == "confidence") {
        const double c = r.positive(v, key);
        if (!(c < 1.0)) r.fail(key, "expected a number in (0, 1)");
        a.confidence = c;
      } else {
        r.fail(key,
               "unknown key; expected iterations, trials, chain_trials, pilot_trials, rows or "
               "confidence");
      }
    }
  }
  SweepSpec sweep;
  sweep.param = "iterations";
  for (const auto k : a.iterations) sweep.values.push_back(static_cast<double>(k));
  for (const auto& c : spec.samplers) sweep.labels.push_back(c.label);
  spec.sweep = sweep;
}

// The grid: models, samplers, epsilons, delta, repeats, chains, n, iterations and the sweep.
void parse_grid(const json& d, const Reader& r, ExperimentSpec& spec) {
  if (!d.contains("models")) r.fail("models", "missing (the model presets to run)");
  spec.models = r.strings(d.at("models"), "models");
  if (spec.models.empty()) r.fail("models", "expected at least one model preset");
  require_known(r, spec.models, preset_names(), "models", "model preset");
  if (!d.contains("samplers")) r.fail("samplers", "missing (the samplers to run)");
  spec.samplers = parse_samplers(d, r, spec.kind, spec.models);
  const bool any_private =
      spec.kind != ExperimentKind::sample ||
      std::any_of(spec.samplers.begin(), spec.samplers.end(),
                  [](const SamplerChoice& c) { return experiment_sampler_is_private(c.sampler); });
  if (d.contains("epsilons")) {
    const json& e = d.at("epsilons");
    if (!e.is_array() || e.empty()) r.fail("epsilons", "expected a non-empty array of numbers > 0");
    for (std::size_t i = 0; i < e.size(); ++i) {
      spec.epsilons.push_back(r.positive(e[i], fmt::format("epsilons[{}]", i)));
      // Refused here, naming the spec's key, rather than by every cell as if an option were bad.
      if (spec.epsilons.back() > kMaxEpsilon)
        r.fail(fmt::format("epsilons[{}]", i),
               fmt::format("expected at most {} (the largest ε dpmcmc certifies), got {}",
                           kMaxEpsilon, spec.epsilons.back()));
      if (std::count(spec.epsilons.begin(), spec.epsilons.end(), spec.epsilons.back()) > 1)
        r.fail(fmt::format("epsilons[{}]", i), "this epsilon is listed twice");
    }
  } else if (any_private) {
    r.fail("epsilons", "missing (the privacy budgets of the private samplers)");
  }
  if (d.contains("delta")) spec.delta = parse_delta(d.at("delta"), r);
  if (d.contains("repeats"))
    spec.repeats = static_cast<int>(r.whole(d.at("repeats"), "repeats", 1));
  if (d.contains("chains")) spec.chains = static_cast<int>(r.whole(d.at("chains"), "chains", 1));
  if (d.contains("n")) spec.n = r.whole(d.at("n"), "n", 2);
  if (d.contains("iterations")) {
    std::tie(spec.warmup, spec.samples) =
        parse_iterations(d.at("iterations"), r, "iterations", spec.warmup, spec.samples);
  }
  if (d.contains("sweep")) spec.sweep = parse_sweep(d.at("sweep"), r, spec.samplers);
  if (spec.kind == ExperimentKind::audit) parse_audit(d, r, spec);
}

// How each cell runs and is measured: init, paired_starts, fixed_data, warmup_fraction, metrics,
// reference_draws, accountants, noise_key_file and seed.
void parse_cell_settings(const json& d, const Reader& r, ExperimentSpec& spec) {
  if (d.contains("init")) spec.init = parse_init(d.at("init"), r);
  if (d.contains("paired_starts")) {
    const json& p = d.at("paired_starts");
    if (!p.is_boolean())
      r.fail("paired_starts", fmt::format("expected true or false, got {}", Reader::shown(p)));
    spec.paired_starts = p.get<bool>();
  }
  if (d.contains("fixed_data")) {
    const json& f = d.at("fixed_data");
    if (!f.is_boolean())
      r.fail("fixed_data", fmt::format("expected true or false, got {}", Reader::shown(f)));
    spec.fixed_data = f.get<bool>();
  }
  if (d.contains("warmup_fraction")) {
    const json& w = d.at("warmup_fraction");
    if (!w.is_number() || !(w.get<double>() >= 0 && w.get<double>() < 1))
      r.fail("warmup_fraction",
             fmt::format("expected a number in [0, 1), got {}", Reader::shown(w)));
    spec.warmup_fraction = w.get<double>();
  }
  if (d.contains("metrics")) {
    spec.metrics = r.strings(d.at("metrics"), "metrics");
    if (spec.metrics.empty()) r.fail("metrics", "expected at least one metric");
    require_known(r, spec.metrics, kMetrics, "metrics", "metric");
  }
  if (d.contains("reference_draws"))
    spec.reference_draws = r.whole(d.at("reference_draws"), "reference_draws", 2);
  if (d.contains("accountants")) {
    spec.accountants = r.strings(d.at("accountants"), "accountants");
    require_known(r, spec.accountants, accountant_names(), "accountants", "accountant");
  }
  if (d.contains("noise_key_file")) {
    spec.noise_key_file =
        spec.file.parent_path() / r.string(d.at("noise_key_file"), "noise_key_file");
  }
  if (d.contains("seed")) {
    spec.seed = r.whole(d.at("seed"), "seed", 0);
  } else if (spec.kind != ExperimentKind::account) {
    r.fail("seed", "missing (an experiment must be reproducible: give a whole number)");
  }
}

// The spec as it resolved (written beside the results as spec.json; its parts key the cells'
// hashes).
json resolved_spec(const ExperimentSpec& spec) {
  json samplers = json::array();
  for (const auto& c : spec.samplers) {
    samplers.push_back({{"label", c.label}, {"sampler", c.sampler}, {"overrides", c.overrides}});
    if (!c.models.empty()) samplers.back()["models"] = c.models;
    if (c.adapt) samplers.back()["adapt"] = true;
    if (c.target_accept) samplers.back()["target_accept"] = *c.target_accept;
    if (c.warmup || c.samples) {
      samplers.back()["iterations"] = {{"warmup", c.warmup.value_or(spec.warmup)},
                                       {"samples", c.samples.value_or(spec.samples)}};
    }
  }
  json resolved = {{"name", spec.name},
                   {"description", spec.description},
                   {"kind", experiment_kind_name(spec.kind)},
                   {"profile", spec.profile},
                   {"file", spec.file.string()},
                   {"models", spec.models},
                   {"samplers", samplers},
                   {"epsilons", spec.epsilons},
                   {"delta", spec.delta.text()},
                   {"n", spec.n ? json(*spec.n) : json(nullptr)},
                   {"accountants", spec.accountants},
                   {"seed", spec.seed}};
  if (spec.sweep) {
    resolved["sweep"] = {{"param", spec.sweep->param},
                         {"values", spec.sweep->values},
                         {"samplers", spec.sweep->labels}};
  }
  if (spec.kind == ExperimentKind::audit) {
    resolved["audit"] = {{"iterations", spec.audit.iterations},
                         {"trials", spec.audit.trials},
                         {"chain_trials", spec.audit.chain_trials},
                         {"pilot_trials", spec.audit.pilot_trials},
                         {"rows", spec.audit.rows},
                         {"confidence", spec.audit.confidence}};
  }
  if (spec.kind == ExperimentKind::sample) {
    json init = "preset";
    if (spec.init.kind == InitRule::Kind::point) init = {{"point", json_array(spec.init.centre)}};
    if (spec.init.kind == InitRule::Kind::centre)
      init = {{"centre", json_array(spec.init.centre)}, {"spread", spec.init.spread}};
    resolved["repeats"] = spec.repeats;
    resolved["chains"] = spec.chains;
    resolved["iterations"] = {{"warmup", spec.warmup}, {"samples", spec.samples}};
    resolved["init"] = init;
    // Only when set, so that specs without the key keep their cell hashes.
    if (spec.paired_starts) resolved["paired_starts"] = true;
    if (spec.fixed_data) resolved["fixed_data"] = true;
    resolved["warmup_fraction"] = spec.warmup_fraction;
    resolved["metrics"] = spec.metrics;
    resolved["reference_draws"] = spec.reference_draws;
  }
  return resolved;
}

}  // namespace

ExperimentSpec parse_experiment_spec(const json& doc, const std::filesystem::path& file,
                                     const std::string& profile) {
  const Reader r(file.string());
  if (!doc.is_object()) throw ConfigError(fmt::format("{}: expected an object of keys", r.file()));
  for (const auto& [k, v] : doc.items()) {
    if (std::find(kTopKeys.begin(), kTopKeys.end(), k) == kTopKeys.end())
      r.fail(k, fmt::format("unknown key; expected one of {}", fmt::join(kTopKeys, ", ")));
  }
  const json d = apply_profile(doc, r, profile);
  ExperimentSpec spec;
  spec.file = file;
  spec.profile = profile;
  parse_identity(d, r, spec);
  parse_grid(d, r, spec);
  parse_cell_settings(d, r, spec);
  preflight(spec, r);
  spec.resolved = resolved_spec(spec);
  return spec;
}

ExperimentSpec load_experiment_spec(const std::filesystem::path& file, const std::string& profile) {
  if (!std::filesystem::exists(file))
    throw NoInputError(fmt::format("{}: no such experiment spec", file.string()));
  std::ifstream in(file);
  if (!in) throw NoInputError(fmt::format("{}: cannot read the file", file.string()));
  std::stringstream buffer;
  buffer << in.rdbuf();
  json doc;
  try {
    doc = json::parse(buffer.str());
  } catch (const json::parse_error& e) {
    throw ConfigError(fmt::format("{}: invalid JSON: {}", file.string(), e.what()));
  }
  return parse_experiment_spec(doc, file, profile);
}

}  // namespace dpmcmc
