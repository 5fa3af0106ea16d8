#include "models/user_model.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include <fmt/format.h>

#include "core/error.hpp"
#include "data/npy_reader.hpp"
#include "models/original_units.hpp"

namespace dpmcmc {
namespace {

using nlohmann::json;

void check_target(GlmFamily family, const ColumnSchema& target, const std::string& schema) {
  const ColumnType t = target.type;
  const bool ok = (family == GlmFamily::logistic || family == GlmFamily::probit)
                      ? t == ColumnType::binary
                  : family == GlmFamily::poisson ? t == ColumnType::count
                                                 : t == ColumnType::real || t == ColumnType::count;
  if (!ok) {
    const char* want = (family == GlmFamily::logistic || family == GlmFamily::probit) ? "binary"
                       : family == GlmFamily::poisson                                 ? "count"
                                                      : "real or count";
    throw UsageError(
        fmt::format("--model {}: the target '{}' is {} in {}; the {} family needs a {} "
                    "target",
                    to_string(family), target.name, to_string(t), schema, to_string(family), want));
  }
}

// Family defaults of the priors (models/coefficient_prior.hpp), overridden by --prior in order.
void set_priors(const UserModelSpec& spec, const Design& d, GlmSpec& g) {
  const bool gaussian = g.family == GlmFamily::linear || g.family == GlmFamily::normal;
  // Scale of the linear predictor: 1 on the logit/probit/log scale, y's half-range for linear.
  const double y_scale = gaussian ? 0.5 * (d.y_high - d.y_low) : 1.0;
  const double y_mid = gaussian ? 0.5 * (d.y_high + d.y_low) : 0.0;
  for (const auto& name : d.coefficient_names) {
    const bool intercept = name == "intercept";
    g.coefficient_priors.push_back({ScalarPrior::Kind::normal, 1.0, intercept ? y_mid : 0.0,
                                    (intercept ? 10.0 : 2.5) * y_scale});
  }
  g.sigma_prior = {ScalarPrior::Kind::half_normal, 1.0, 0.0, d.y_high - d.y_low};
  for (const auto& text : spec.priors) {
    const PriorOption o = parse_prior_option(text);
    if (o.target == "sigma") {
      if (!gaussian || spec.sigma)
        throw UsageError(fmt::format("--prior {}: sigma is not a parameter here ({})", text,
                                     gaussian ? "--sigma fixes it" : "the family has none"));
      g.sigma_prior = o.prior;
      continue;
    }
    bool found = false;
    for (std::size_t j = 0; j < d.coefficient_names.size(); ++j) {
      const bool all = o.target.empty() && d.coefficient_names[j] != "intercept";
      if (all || d.coefficient_names[j] == o.target) {
        g.coefficient_priors[j] = o.prior;
        found = true;
      }
    }
    if (!found && o.target.empty())
      throw UsageError(
          fmt::format("--prior {}: applies to every coefficient but the intercept, "
                      "and the model has none (name one: intercept=..., sigma=...)",
                      text));
    if (!found && !o.target.empty())
      throw UsageError(fmt::format("--prior {}: no parameter '{}'; the parameters are {}{}", text,
                                   o.target, fmt::join(d.coefficient_names, ", "),
                                   gaussian && !spec.sigma ? ", sigma" : ""));
  }
}

}  // namespace

namespace {

bool gaussian_family(const GlmSpec& g) {
  return g.family == GlmFamily::linear || g.family == GlmFamily::normal;
}

double sigma_guess(const GlmSpec& g) {
  return g.sigma.value_or(0.25 * (g.y_high - g.y_low));
}

}  // namespace

double user_model_clip(const GlmSpec& g) {
  return glm_lipschitz_guess(g) * g.row_norm_bound;
}

std::vector<double> user_model_sd_floors(const GlmSpec& g, std::size_t n) {
  const double c = gaussian_family(g)               ? sigma_guess(g)
                   : g.family == GlmFamily::poisson ? 1.0
                   : g.family == GlmFamily::probit  ? std::sqrt(std::numbers::pi / 2.0)
                                                    : 2.0;
  std::vector<double> out;
  for (std::size_t j = 0; j < g.coefficient_names.size(); ++j) {
    const double b =
        j < g.column_bounds.size() && g.column_bounds[j] > 0.0 ? g.column_bounds[j] : 1.0;
    out.push_back(c / (b * std::sqrt(static_cast<double>(n))));
  }
  return out;
}

json user_model_sampler_defaults(const GlmSpec& g, std::size_t n, int dim) {
  const double c = gaussian_family(g) ? sigma_guess(g) : g.family == GlmFamily::poisson ? 1.0 : 2.0;
  const double s0 = c / std::sqrt(static_cast<double>(n));
  const double walk = 2.38 * s0 / std::sqrt(static_cast<double>(dim));
  const double one = 2.38 * s0;
  const double clip = user_model_clip(g);
  const std::string src = "derived from the schema's public bounds and n (models/user_model.hpp)";
  const double batch = static_cast<double>(std::clamp<std::size_t>(n / 10, 1, 1000));
  json s = {
      {"rwmh", {{"proposal_sd", walk}, {"source", src}}},
      {"hmc", {{"step_size", 0.5 * s0}, {"steps", 10}, {"source", src}}},
      {"dp-penalty", {{"tau", 0.3}, {"proposal_sd", walk}, {"clip", clip}, {"source", src}}},
      {"dp-penalty-ocu", {{"tau", 0.3}, {"proposal_sd", one}, {"clip", clip}, {"source", src}}},
      {"dp-penalty-minibatch",
       {{"tau", 1.0},
        {"proposal_sd", walk},
        {"clip", clip},
        {"batch_size", batch},
        {"source", src}}},
      {"dp-penalty-minibatch-ocu",
       {{"tau", 1.0},
        {"proposal_sd", one},
        {"clip", clip},
        {"batch_size", batch},
        {"source", src}}},
      {"dp-hmc",
       {{"tau_l", 0.3},
        {"tau_g", 1.0},
        {"steps", 3},
        {"step_size", 0.5 * s0},
        {"clip_l", clip},
        {"clip_g", clip},
        {"mass", 1.0},
        {"source", src}}}};
  // Stochastic-gradient Langevin and Nosé–Hoover steps (samplers/dp_sgld.hpp, dp_sgnht.hpp;
  // their step_size option is η₀ = n·h). The posterior precision is at most about R²/s0² along
  // any direction (each row's curvature in its linear predictor ≈ 1/c², ‖x‖ ≤ R), so the SGLD
  // step h = 0.2·s0²/R² keeps h·λ ≤ 0.2 (Euler–Maruyama is stable for hλ < 4; the variance is
  // inflated by ≤ 5 %). The release's noise multiplier is m = 2b/(n·√h·C): h is lowered, if need
  // be, until m ≥ 2, so that one step does not spend a typical budget by itself (a Poisson count
  // bound of 20 makes C = 20R and m ≈ 0.7 at n = 1000 otherwise). SGNHT: h' = √(0.2·h) and
  // A = 2h'/h, which give its release SGLD's multiplier (each step spends alike) and an initial
  // friction A·h' = 0.4, whatever h.
  const double big_r = g.row_norm_bound;
  const double n_rows = static_cast<double>(n);
  const double h_cap = batch / (n_rows * clip);  // √h at which m = 2b/(n√h·C) = 2
  const double h = std::min(0.2 * s0 * s0 / (big_r * big_r), h_cap * h_cap);
  const double h_thermostat = std::sqrt(0.2 * h);
  s["dp-sgld"] = {
      {"batch_size", batch}, {"clip", clip}, {"step_size", n_rows * h}, {"source", src}};
  s["dp-sgnht"] = {{"batch_size", batch},
                   {"clip", clip},
                   {"step_size", n_rows * h_thermostat},
                   {"A", 2.0 * h_thermostat / h},
                   {"source", src}};
  // The penalty algorithm for exponential families (models/glm_expfam.hpp): its τ follows the
  // budget like dp-penalty's (run/noise_from_budget.hpp); its test's noise σ‖η(θ′) − η(θ)‖ grows
  // with the step as the plain penalty's does, so it starts from the same proposal (warmup
  // adaptation tunes it). Like the plain penalty it pays per tested move: on small data at ε ≈ 1
  // its chains stay near their start (experiments/results/linear-coverage/README.md).
  if (gaussian_family(g))
    s["dp-penalty-expfam"] = {{"tau", 0.3}, {"alpha", 0.5}, {"proposal_sd", walk}, {"source", src}};
  if (g.family == GlmFamily::logistic) {
    s["tunamh"] = {{"proposal_sd", walk}, {"lambda", 10.0}, {"source", src}};
    s["dp-fast-mh"] = {{"proposal_sd", walk}, {"epsilon", 0.01},  {"delta", 1e-10},
                       {"lambda", 10.0},      {"max_batch", 225}, {"source", src}};
  }
  return s;
}

std::vector<std::string> user_model_samplers(GlmFamily family) {
  GlmSpec g;
  g.family = family;
  std::vector<std::string> names = {"nuts"};
  const json defaults = user_model_sampler_defaults(g, 1000, 1);
  for (auto it = defaults.begin(); it != defaults.end(); ++it) names.push_back(it.key());
  // Release once, sample forever (models/noisy_statistics.hpp; run/release_once_job.hpp).
  if (has_released_statistic(family)) names.push_back("dp-nss");
  return names;
}

bool has_released_statistic(GlmFamily family, bool intercept) {
  return family != GlmFamily::probit && (family != GlmFamily::poisson || intercept);
}

UserModel make_user_model(const UserModelSpec& spec) {
  const DataSchema schema = spec.schema_doc
                                ? parse_schema(*spec.schema_doc, spec.schema_file.string())
                                : load_schema(spec.schema_file);
  // The family and the schema are checked before the private rows are read.
  check_target(parse_glm_family(spec.family), schema.target(), schema.source);
  // The schema names its columns; a .npy array has none (data/npy_reader.hpp).
  if (!spec.data_text && is_npy_file(spec.data_file))
    throw UsageError(fmt::format(
        "--data {}: a .npy array has no column names for the schema to refer to; with --schema "
        "give a CSV file with a header (a preset reads .npy files)",
        spec.data_file.string()));
  auto design = std::make_shared<const Design>(
      spec.data_text ? parse_design(*spec.data_text, spec.data_file.string(), schema)
                     : load_design(spec.data_file, schema));
  return make_user_model(spec, schema, std::move(design));
}

UserModel make_user_model(const UserModelSpec& spec, const DataSchema& schema,
                          std::shared_ptr<const Design> design) {
  const GlmFamily family = parse_glm_family(spec.family);
  check_target(family, schema.target(), schema.source);
  const Design& d = *design;
  if (family == GlmFamily::normal && d.coefficient_names != std::vector<std::string>{"intercept"})
    throw UsageError(
        fmt::format("--model normal: the mean and sd of '{}' take no features and an "
                    "intercept; {} declares {} (mark features \"ignored\", or use "
                    "--model linear)",
                    schema.target().name, schema.source, fmt::join(d.coefficient_names, ", ")));
  if (spec.sigma && family != GlmFamily::linear && family != GlmFamily::normal)
    throw UsageError(fmt::format("--sigma: the {} family has no sigma", spec.family));

  UserModel u;
  u.design = design;
  GlmSpec& g = u.glm;
  g.family = family;
  g.coefficient_names = d.coefficient_names;
  g.sigma = spec.sigma;
  g.column_bounds = d.column_bounds;
  g.row_norm_bound = d.row_norm_bound;
  g.y_low = d.y_low;
  g.y_high = d.y_high;
  set_priors(spec, d, g);
  const auto probe = make_glm_model(g);  // validates the spec

  Preset& p = u.preset;
  p.name = spec.family;
  p.n = d.data.rows();
  p.dim = probe->dim();
  p.description = fmt::format("{} of '{}' on {} ({} rows; schema {})",
                              glm_family_description(family), schema.target().name,
                              d.coefficient_names.size() == 1 && d.intercept
                                  ? std::string("an intercept")
                                  : fmt::format("{}", fmt::join(d.coefficient_names, ", ")),
                              p.n, schema.source);
  p.make_model = [g] { return std::unique_ptr<Model>(make_glm_model(g)); };
  p.load_data = [design] { return design->data; };
  p.true_theta = Vec::Zero(p.dim);
  p.start_centre = Vec::Zero(p.dim);
  const bool gaussian = family == GlmFamily::linear || family == GlmFamily::normal;
  if (gaussian) {
    if (d.intercept) p.start_centre(0) = 0.5 * (d.y_low + d.y_high);
    if (!spec.sigma) p.start_centre(p.dim - 1) = std::log(0.25 * (d.y_high - d.y_low));
  }
  p.start_sd = 0.1;
  p.delta = 0.1 / static_cast<double>(p.n);
  p.source = fmt::format("the user's data (see data.source) and schema {}", schema.source);
  p.samplers = user_model_sampler_defaults(g, p.n, p.dim);
  p.experiment = json::object();
  json priors = json::object();
  for (std::size_t j = 0; j < g.coefficient_names.size(); ++j)
    priors[g.coefficient_names[j]] = g.coefficient_priors[j].to_string();
  if (spec.sigma) priors["sigma"] = fmt::format("fixed at {}", *spec.sigma);
  if (probe->sampled_sigma()) priors["sigma"] = g.sigma_prior.to_string();
  p.details = {{"family", spec.family},
               {"target", schema.target().name},
               {"parameters", probe->param_names()},
               {"priors", priors},
               {"row_norm_bound", d.row_norm_bound},
               {"target_bounds", {d.y_low, d.y_high}},
               {"original_units", original_units(d, family).to_json()},
               {"schema", schema.document}};
  return u;
}

}  // namespace dpmcmc
