// `dpmcmc account`: privacy accounting on its own (issue "Privacy accounting toolkit", CLI).
//   --mechanism gaussian|subsampled-gaussian …  --delta D → ε(δ) per accountant
//                                                --epsilon E → δ(ε) per accountant
//   --sampler S [--model M --n N, S's hyperparameters as in `sample`]
//                          --epsilon E [--delta D] → iterations allowed per accountant, and the
//                                                    schedule `sample` would run
//                          --iterations K [--delta D] → ε of K iterations per accountant
//   --sampler S --model FAMILY --schema FILE --n N: the same for a regression family, whose noise
//                          follows the schema, n and the budget as in `sample`; for dp-nss the
//                          noise of its releases (pilots and final) and ε per accountant
// The sampler path builds the same per-iteration template and plan as `sample`
// (run/private_samplers.hpp, run/private_plan.hpp), so its answer is the run's.
// One row per accountant with its bound kind (certified upper bound, lower bound, estimate) and
// run time; --json for machine-readable output. All privacy logic is in privacy/account_rows.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "cli/commands.hpp"
#include "cli/in_process.hpp"
#include "cli/options.hpp"
#include "cli/sampler_options.hpp"
#include "core/error.hpp"
#include "data/design.hpp"
#include "data/schema.hpp"
#include "models/glm.hpp"
#include "models/user_model.hpp"
#include "privacy/account_rows.hpp"
#include "privacy/budget.hpp"
#include "privacy/event_names.hpp"
#include "privacy/iteration_templates.hpp"
#include "run/noise_from_budget.hpp"
#include "run/penalty_reach.hpp"
#include "run/private_plan.hpp"
#include "run/private_samplers.hpp"
#include "run/release_once_job.hpp"
#include "run/sampler_advice.hpp"
#include "run/sampler_descriptors.hpp"
#include "run/sampler_params.hpp"

namespace dpmcmc::cli {
namespace {

struct AccountArgs {
  std::string mechanism, sampler, sampling = "none", relation;
  std::string model = "banana-tempered-2d";
  // A regression family (--model logistic, …): its public schema, priors and dp-nss's pilots,
  // as `sample` takes them (--sigma is linear's and normal's known σ there); no rows are read.
  std::string schema;
  std::vector<std::string> priors;
  std::optional<double> pilot_share;
  std::optional<std::uint64_t> pilot_releases;
  double sensitivity = 1.0, sigma = 0.0, q = 1.0;
  std::uint64_t compositions = 1;
  std::optional<double> epsilon, delta;
  std::optional<std::size_t> n;
  std::optional<std::uint64_t> iterations;
  std::optional<int> chains;  // default 1 for a preset, `sample`'s 4 for a regression family
  SamplerOptionValues sampler_options;
  std::vector<std::string> accountants;
  std::optional<double> pld_interval, pld_tail_mass;
  std::string rdp_conversion;
  std::vector<double> rdp_orders;
  bool json = false;
  // In-process callers (the Python module): the --json answer goes here instead of stdout.
  nlohmann::json* result = nullptr;
};

// The machine-readable answer, when asked for: true when it was given (printed or handed over).
bool give_json(const AccountArgs& a, const nlohmann::json& answer) {
  if (a.result != nullptr) {
    *a.result = answer;
    return true;
  }
  if (!a.json) return false;
  fmt::print("{}\n", answer.dump(2));
  return true;
}

AccountantOptions accountant_options(const AccountArgs& a) {
  AccountantOptions o = AccountantOptions::object();
  if (a.pld_interval) o["pld_interval"] = *a.pld_interval;
  if (a.pld_tail_mass) o["pld_tail_mass"] = *a.pld_tail_mass;
  if (!a.rdp_conversion.empty()) o["rdp_conversion"] = a.rdp_conversion;
  if (!a.rdp_orders.empty()) o["rdp_orders"] = a.rdp_orders;
  return o;
}

std::string number(double x) {
  if (std::isinf(x)) return "inf";
  return fmt::format("{:.8g}", x);
}

// Bad option values are usage errors naming the option (exit 64), as in `sample`.
void check_option_values(const AccountArgs& a) {
  if (a.epsilon) check_epsilon_option(*a.epsilon, "--epsilon");
  if (a.delta) check_delta_option(*a.delta, "--delta");
  if (!(a.q > 0.0 && a.q <= 1.0)) {
    throw UsageError(fmt::format("--q: expected a sampling rate in (0, 1], got {}", a.q));
  }
  for (const double order : a.rdp_orders) {
    if (!(std::isfinite(order) && order > 1.0)) {
      throw UsageError(fmt::format("--rdp-orders: expected finite orders > 1, got {}", order));
    }
  }
}

// One row per accountant: its ε (`epsilon`) or δ, under the column `heading`, or why it gave
// none.
void print_account_rows(const std::vector<AccountRow>& rows, const std::string& heading,
                        bool epsilon) {
  fmt::print("{:<22} {:<12} {:>16} {:>10}  {}\n", "accountant", "bound", heading, "seconds", "");
  for (const auto& r : rows) {
    if (!r.ok) {
      fmt::print("{:<22} {:<12} {:>16} {:>10}  {}\n", r.accountant, to_string(r.bound), "-", "-",
                 r.message);
      continue;
    }
    fmt::print("{:<22} {:<12} {:>16} {:>10.4f}  {}\n", r.accountant, to_string(r.bound),
               number(epsilon ? r.epsilon : r.delta), r.seconds, r.message);
  }
}

void run_mechanism(const AccountArgs& a) {
  if (a.epsilon.has_value() == a.delta.has_value()) {
    throw UsageError(
        "account --mechanism: give exactly one of --delta (to get epsilon) or "
        "--epsilon (to get delta)");
  }
  if (!(a.sigma > 0) || !std::isfinite(a.sigma)) {
    throw UsageError(fmt::format("--sigma: expected a finite noise sd > 0, got {}", a.sigma));
  }
  if (a.compositions < 1) throw UsageError("--compositions: expected ≥ 1, got 0");
  ReleaseSpec spec;
  spec.mechanism = parse_mechanism(a.mechanism);
  spec.sampling = parse_sampling(a.sampling);
  spec.sampling_rate = a.q;
  spec.noise_sd = a.sigma;
  spec.sensitivity = a.sensitivity;
  spec.compositions = a.compositions;
  if (!a.relation.empty()) spec.relation = parse_neighbouring(a.relation);
  const auto events = release_events(spec);
  const AccountQuery query =
      a.delta ? AccountQuery::epsilon_at(*a.delta) : AccountQuery::delta_at(*a.epsilon);
  const auto rows = account_rows(events, query, a.accountants, accountant_options(a));
  if (give_json(a, account_rows_to_json(rows))) return;
  fmt::print(
      "{} x {} (sigma {}, sensitivity {}{})\n", a.compositions, a.mechanism, a.sigma, a.sensitivity,
      spec.sampling == Sampling::none ? "" : fmt::format(", {} sampling q = {}", a.sampling, a.q));
  print_account_rows(rows,
                     a.delta ? fmt::format("eps(delta={:g})", *a.delta)
                             : fmt::format("delta(eps={:g})", *a.epsilon),
                     a.delta.has_value());
}

// The sampler's per-iteration template, as `sample` builds it.
struct SamplerTemplate {
  std::vector<PrivacyEvent> per_iteration;
  std::size_t n = 0, coordinates = 1;
  double delta = 0.0;
  // A regression family's penalty or DP HMC run: its noise multiplier and clip, for the reach
  // of its chains (run/penalty_reach.hpp).
  std::optional<GlmSpec> glm;
  std::optional<std::pair<double, double>> noise_and_clip;
};

bool is_family(const std::string& model) {
  const auto& families = glm_family_names();
  return std::find(families.begin(), families.end(), model) != families.end();
}

// A regression family from its public schema and row count, as `sample` builds it from the rows
// (run/sample_job.cpp), with nothing read but the schema.
UserModel family_model(const AccountArgs& a) {
  if (a.schema.empty() || !a.n)
    throw UsageError(fmt::format(
        "--model '{}' is a regression family: give its public --schema FILE and the row count "
        "--n N (the noise and iterations follow them and the budget; no rows are read)",
        a.model));
  if (*a.n < 1) throw UsageError("--n: expected the number of data rows >= 1, got 0");
  const DataSchema schema = load_schema(a.schema);
  const std::optional<double> sigma = a.sigma > 0.0 ? std::optional<double>(a.sigma) : std::nullopt;
  const UserModelSpec spec{a.model, a.schema, "", a.priors, sigma, {}, {}};
  UserModel user =
      make_user_model(spec, schema, std::make_shared<const Design>(empty_design(schema)));
  user.preset.n = *a.n;
  user.preset.delta = 0.1 / static_cast<double>(*a.n);
  user.preset.samplers = user_model_sampler_defaults(user.glm, *a.n, user.preset.dim);
  return user;
}

int chains_of(const AccountArgs& a) {
  const int chains = a.chains.value_or(is_family(a.model) ? 4 : 1);
  if (chains < 1) throw UsageError(fmt::format("--chains: expected >= 1, got {}", chains));
  return chains;
}

SamplerTemplate sampler_template(const AccountArgs& a) {
  const SamplerDescriptor* entry = &iterated_private_sampler(a.sampler, "account");
  const bool family = is_family(a.model);
  const std::optional<UserModel> user =
      family ? std::optional<UserModel>(family_model(a)) : std::nullopt;
  const Preset& preset = user ? user->preset : find_preset(a.model);
  const auto model = preset.make_model();
  SamplerTemplate t;
  t.n = a.n.value_or(preset.n);
  if (t.n < 1) throw UsageError("--n: expected the number of data rows >= 1, got 0");
  const nlohmann::json overrides = sampler_overrides(a.sampler_options, a.sampler);
  auto params = sampler_params(preset, a.sampler, overrides);
  t.delta = a.delta.value_or(default_delta(preset, t.n, true));
  check_delta_option(t.delta, "--delta");
  if (user) {
    // A user model's default noise follows its budget, as in `sample` (run/noise_from_budget.hpp).
    const auto scaled = [&](double epsilon) {
      return noise_from_budget(*entry, a.sampler, params, overrides, *model, t.n,
                               {epsilon, t.delta}, chains_of(a), kBudgetTargetIterations);
    };
    if (a.epsilon) {
      params = scaled(*a.epsilon);
    } else if (scaled(1.0) != params) {
      throw UsageError(fmt::format(
          "--iterations: sampler '{}' on model '{}' scales its noise to the budget, so the cost "
          "of k iterations depends on epsilon; give --epsilon (the iterations it allows), or fix "
          "the noise with the sampler's options (`dpmcmc sample --help`)",
          a.sampler, a.model));
    }
  }
  const PrivateSamplerSetup setup = entry->build_private(a.sampler, params, *model, t.n);
  if (user) {
    t.glm = user->glm;
    t.noise_and_clip = penalty_noise_and_clip(a.sampler, params, t.n);
  }
  t.per_iteration = setup.per_iteration;
  t.coordinates = release_coordinates(*model, setup);
  return t;
}

void print_plan_rows(const std::vector<PlanRow>& rows) {
  fmt::print("{:<22} {:<12} {:>12} {:>14} {:>10}\n", "accountant", "bound", "iterations",
             "eps spent", "seconds");
  for (const auto& r : rows) {
    if (!r.ok) {
      fmt::print("{:<22} {:<12} {:>12} {:>14} {:>10}  {}\n", r.accountant, to_string(r.bound), "-",
                 "-", "-", r.message);
      continue;
    }
    fmt::print("{:<22} {:<12} {:>12} {:>14} {:>10.4f}{}\n", r.accountant, to_string(r.bound),
               r.iterations, number(r.epsilon_spent), r.seconds,
               r.tightest ? "  <- tightest certified" : "");
  }
}

// "How many iterations does (ε, δ) allow": the planner's answer and every accountant's, at the
// accountants' share of δ (the rest is the discrete noise's, run/private_plan.hpp).
void run_sampler_budget(const AccountArgs& a, const SamplerTemplate& t) {
  const int chains = chains_of(a);
  const AccountantOptions options = accountant_options(a);
  const PrivateRunPlan plan = plan_private_run({*a.epsilon, t.delta}, t.per_iteration, chains,
                                               a.accountants, options, t.coordinates);
  const auto rows =
      plan_rows({*a.epsilon, plan.accountant_delta}, t.per_iteration, a.accountants, options);
  std::optional<PenaltyReach> reach;
  if (t.glm && t.noise_and_clip && !plan.split.per_chain.empty())
    reach = penalty_reach(plan.split.per_chain.front(), t.noise_and_clip->first,
                          t.noise_and_clip->second, *t.glm, t.n);
  nlohmann::json out{{"sampler", a.sampler},
                     {"model", a.model},
                     {"n", t.n},
                     {"budget", {{"epsilon", *a.epsilon}, {"delta", t.delta}}},
                     {"delta_accountants", plan.accountant_delta},
                     {"delta_discretisation", plan.discretisation_delta},
                     {"planned_by", plan.tightest.best.accountant},
                     {"iterations_allowed", plan.tightest.best.iterations},
                     {"iterations_per_chain", plan.split.per_chain},
                     {"accountants", plan_rows_to_json(rows)}};
  if (reach) out["reach"] = reach_json(*reach);
  if (give_json(a, out)) return;
  fmt::print(
      "{} on {} (n = {}): iterations allowed by (epsilon {:g}, delta {:g}); the accountants "
      "use delta {:.6g}, the discrete noise adds {:.3g}\n",
      a.sampler, a.model, t.n, *a.epsilon, t.delta, plan.accountant_delta,
      plan.discretisation_delta);
  print_plan_rows(rows);
  fmt::print("`sample` with {} chain(s) runs {} iteration(s) per chain (planned by {})\n", chains,
             fmt::join(plan.split.per_chain, ", "), plan.tightest.best.accountant);
  if (reach) fmt::print("reach: {}\n", describe_reach(*reach, chains));
}

// "What does k iterations cost": ε at the accountants' share of δ, per accountant.
void run_sampler_iterations(const AccountArgs& a, const SamplerTemplate& t) {
  if (*a.iterations < 1) throw UsageError("--iterations: expected >= 1, got 0");
  const double accountant_delta = t.delta - std::ldexp(t.delta, -10);
  const auto events = repeat_iterations(t.per_iteration, *a.iterations);
  const auto rows = account_rows(events, AccountQuery::epsilon_at(accountant_delta), a.accountants,
                                 accountant_options(a));
  const DiscreteNoiseShare share = discrete_noise_share(t.per_iteration, t.coordinates);
  double best = std::numeric_limits<double>::infinity();
  for (const auto& r : rows) {
    if (r.ok && r.bound == BoundKind::upper_bound) best = std::min(best, r.epsilon);
  }
  const double discretisation =
      std::isfinite(best) ? discretisation_delta_of(share, *a.iterations, t.coordinates, best)
                          : 0.0;
  if (give_json(a, {{"sampler", a.sampler},
                    {"model", a.model},
                    {"n", t.n},
                    {"iterations", *a.iterations},
                    {"delta", t.delta},
                    {"delta_accountants", accountant_delta},
                    {"delta_discretisation", discretisation},
                    {"accountants", account_rows_to_json(rows)}}))
    return;
  fmt::print(
      "{} on {} (n = {}): epsilon of {} iteration(s) at delta {:.6g} (the accountants' share of "
      "{:g}; the discrete noise adds {:.3g} at the tightest epsilon)\n",
      a.sampler, a.model, t.n, *a.iterations, accountant_delta, t.delta, discretisation);
  print_account_rows(rows, "epsilon", true);
}

// dp-nss (run/release_once_job.hpp): what the budget buys is the noise of its releases, not
// iterations; the chains that follow are free. The plan is the job's, and the expected posterior
// sd beside the rows' is `advise`'s.
void run_release_once(const AccountArgs& a) {
  if (!a.epsilon)
    throw UsageError(fmt::format(
        "--sampler {}: releases the sufficient statistics once and then samples for free: give "
        "--epsilon (the noise it buys), not --iterations",
        kReleaseOnceSampler));
  if (!is_family(a.model))
    throw UsageError(fmt::format(
        "--sampler {}: releases a regression family's sufficient statistics; give --model "
        "linear, normal, logistic or poisson with --schema and --n (`dpmcmc advise` ranks the "
        "samplers for them)",
        kReleaseOnceSampler));
  const UserModel user = family_model(a);
  if (!has_released_statistic(user.glm.family, user.design->intercept))
    throw UsageError(fmt::format(
        "--sampler {}: model '{}' has no released statistic here (`dpmcmc advise` ranks the "
        "samplers that fit it)",
        kReleaseOnceSampler, a.model));
  const Budget budget{*a.epsilon, a.delta.value_or(0.1 / static_cast<double>(*a.n))};
  check_delta_option(budget.delta, "--delta");
  const ReleaseOncePlan planned = plan_release_once(user.glm, *a.n, budget, a.pilot_releases,
                                                    a.pilot_share, a.accountants, nullptr);
  const PrivateRunPlan& plan = planned.plan;
  const auto rows =
      account_rows(plan.per_iteration, AccountQuery::epsilon_at(plan.accountant_delta),
                   a.accountants, accountant_options(a));
  const auto advice = advise_samplers(user.glm, user.design->intercept, *a.n, budget);
  nlohmann::json expected = nlohmann::json::object();
  for (const auto& s : advice) {
    if (s.sampler != kReleaseOnceSampler) continue;
    for (const auto& [name, r] : s.expected_sd_ratio) expected[name] = r;
  }
  if (give_json(
          a, {{"sampler", a.sampler},
              {"model", a.model},
              {"n", *a.n},
              {"budget", {{"epsilon", budget.epsilon}, {"delta", budget.delta}}},
              {"delta_accountants", plan.accountant_delta},
              {"delta_discretisation", plan.discretisation_delta},
              {"planned_by", plan.tightest.best.accountant},
              {"pilot_releases", planned.pilots},
              {"pilot_share",
               planned.pilots > 0 ? nlohmann::json(planned.share) : nlohmann::json(nullptr)},
              {"noise_multiplier_pilot",
               planned.pilots > 0 ? nlohmann::json(planned.noise.pilot) : nlohmann::json(nullptr)},
              {"noise_multiplier_final", planned.noise.final},
              {"expected_sd_ratio", expected},
              {"accountants", account_rows_to_json(rows)}}))
    return;
  fmt::print(
      "{} on {} (n = {}, schema {}): epsilon {:g}, delta {:g} buy {} pilot release(s){} and the "
      "final release, noise multiplier {:.4g} (sd over sensitivity); the chains that follow are "
      "post-processing and free\n",
      a.sampler, a.model, *a.n, a.schema, budget.epsilon, budget.delta, planned.pilots,
      planned.pilots > 0 ? fmt::format(" (share {:g} of the budget, noise multiplier {:.4g} each)",
                                       planned.share, planned.noise.pilot)
                         : std::string(),
      planned.noise.final);
  print_account_rows(rows, "epsilon spent", true);
  if (!expected.empty()) {
    std::vector<std::string> cells;
    for (const auto& [name, r] : expected.items())
      cells.push_back(fmt::format("{} {:.2f}", name, r.get<double>()));
    fmt::print(
        "expected posterior sd over the rows' posterior sd (`dpmcmc advise`, at beta = 0): {}\n",
        fmt::join(cells, ", "));
  }
}

void run_sampler(const AccountArgs& a) {
  if (a.sampler == kReleaseOnceSampler) {
    run_release_once(a);
    return;
  }
  if (a.iterations.has_value() == a.epsilon.has_value()) {
    throw UsageError(
        "account --sampler: give --epsilon (iterations a budget allows) or --iterations (epsilon "
        "of that many iterations), not both");
  }
  const SamplerTemplate t = sampler_template(a);
  if (a.iterations) {
    run_sampler_iterations(a, t);
  } else {
    run_sampler_budget(a, t);
  }
}

void add_account_options(CLI::App* cmd, AccountArgs* a) {
  auto* mech = cmd->add_option("--mechanism", a->mechanism, "gaussian or subsampled-gaussian")
                   ->check(CLI::IsMember({"gaussian", "subsampled-gaussian"}));
  std::vector<std::string> names;
  for (const auto& name : private_sampler_names()) names.push_back(name);
  auto* sampler = cmd->add_option("--sampler,--algorithm", a->sampler,
                                  fmt::format("Private sampler ({}): iterations a budget allows, "
                                              "or epsilon of --iterations; --algorithm is an "
                                              "older name",
                                              fmt::join(names, ", ")));
  mech->excludes(sampler);
  cmd->add_option("--sensitivity", a->sensitivity, "L2 sensitivity Delta")->capture_default_str();
  cmd->add_option("--sigma", a->sigma,
                  "Noise standard deviation sigma (--mechanism); with --sampler on the linear "
                  "or normal family, a known sigma as in `sample`");
  cmd->add_option("--compositions", a->compositions, "Number of identical releases")
      ->capture_default_str();
  cmd->add_option("--sampling", a->sampling, "none, poisson or without-replacement")
      ->capture_default_str();
  cmd->add_option("--q", a->q, "Sampling rate q in (0, 1]")->capture_default_str();
  cmd->add_option(
      "--relation", a->relation,
      "add-remove or substitute (default: substitute for without-replacement, else add-remove)");
  cmd->add_option("--epsilon", a->epsilon,
                  "epsilon: the query (mechanism) or the budget (sampler)");
  cmd->add_option("--delta", a->delta,
                  "delta: the query (mechanism) or the budget (sampler; default as in `sample`: "
                  "the preset's at its n, else 0.1/n)");
  cmd->add_option("--model", a->model,
                  "sampler: model preset whose defaults fill the sampler's "
                  "hyperparameters (see `dpmcmc models`), or a regression family (logistic, "
                  "probit, poisson, linear, normal) with --schema and --n")
      ->capture_default_str();
  cmd->add_option("--n", a->n, "sampler: number of data rows (default: the preset's n)");
  cmd->add_option("--chains", a->chains,
                  "sampler: chains sharing the budget (default 1; a regression family 4, as "
                  "`sample`)");
  cmd->add_option("--schema", a->schema,
                  "sampler, --model a regression family: its public schema (JSON); no rows are "
                  "read");
  cmd->add_option("--prior", a->priors, "sampler, regression family: priors, as for `sample`");
  cmd->add_option("--pilot-releases", a->pilot_releases,
                  "dp-nss: pilot releases (default: as `sample` chooses them)");
  cmd->add_option("--pilot-share", a->pilot_share,
                  "dp-nss: the pilots' share of the budget (default 0.3)");
  cmd->add_option("--iterations", a->iterations,
                  "sampler: total iterations whose epsilon to compute (instead of --epsilon)");
  add_sampler_options(*cmd, a->sampler_options);
  cmd->add_option("--accountants", a->accountants, "Accountants to use (default: all that apply)")
      ->delimiter(',');
  cmd->add_option("--pld-interval", a->pld_interval,
                  "Numerical PLD: discretisation interval of the privacy loss");
  cmd->add_option("--pld-tail-mass", a->pld_tail_mass, "Numerical PLD: truncated tail mass");
  cmd->add_option("--rdp-conversion", a->rdp_conversion,
                  "RDP to (eps, delta): improved or classical");
  cmd->add_option("--rdp-orders", a->rdp_orders, "RDP: the order grid (comma-separated orders > 1)")
      ->delimiter(',');
  cmd->add_flag("--json", a->json, "Machine-readable output");
  cmd->footer("Accountants: " + [] {
    std::string s;
    for (const auto& n : accountant_names()) s += (s.empty() ? "" : ", ") + n;
    return s;
  }());
}

void run_account(const AccountArgs& a) {
  check_option_values(a);
  if (!a.mechanism.empty()) {
    run_mechanism(a);
  } else if (!a.sampler.empty()) {
    run_sampler(a);
  } else {
    throw UsageError(
        "account: give --mechanism (epsilon or delta of releases) or --sampler (iterations "
        "allowed, or epsilon of --iterations)");
  }
}

}  // namespace

void add_account_command(CLI::App& app) {
  auto a = std::make_shared<AccountArgs>();
  auto* cmd = app.add_subcommand(
      "account", "Privacy accounting: epsilon(delta), delta(epsilon), iterations allowed");
  add_account_options(cmd, a.get());
  cmd->callback([a] { run_account(*a); });
}

nlohmann::json account_in_process(const std::vector<std::string>& args) {
  AccountArgs a;
  CLI::App app;
  add_account_options(app.add_subcommand("account"), &a);
  const auto lock = parse_in_process(app, "account", args);
  nlohmann::json answer;
  a.result = &answer;
  run_account(a);
  return answer;
}

}  // namespace dpmcmc::cli
