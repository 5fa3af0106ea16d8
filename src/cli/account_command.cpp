// `dpmcmc account`: privacy accounting on its own (issue "Privacy accounting toolkit", CLI).
//   --mechanism gaussian|subsampled-gaussian …  --delta D → ε(δ) per accountant
//                                                --epsilon E → δ(ε) per accountant
//   --algorithm dp-penalty|dp-hmc … --epsilon E --delta D → iterations allowed per accountant
// One row per accountant with its bound kind (certified upper bound, lower bound, estimate) and
// run time; --json for machine-readable output. All privacy logic is in privacy/account_rows.
#include <fmt/format.h>

#include <cmath>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "privacy/account_rows.hpp"
#include "privacy/event_names.hpp"
#include "privacy/iteration_templates.hpp"

namespace dpmcmc::cli {
namespace {

struct AccountArgs {
  std::string mechanism, algorithm, sampling = "none", relation;
  double sensitivity = 1.0, sigma = 0.0, q = 1.0;
  std::uint64_t compositions = 1;
  std::optional<double> epsilon, delta;
  double n = 0, tau = 0, alpha = 0.5, tau_l = 0, tau_g = 0;
  std::uint64_t steps = 0;
  std::vector<std::string> accountants;
  std::optional<double> pld_interval, pld_tail_mass;
  std::string rdp_conversion;
  std::vector<double> rdp_orders;
  bool json = false;
};

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

void check_budget_values(const AccountArgs& a) {
  if (a.epsilon && !(std::isfinite(*a.epsilon) && *a.epsilon > 0)) {
    throw UsageError(fmt::format("--epsilon: expected a finite number > 0, got {}", *a.epsilon));
  }
  if (a.delta && !(*a.delta > 0 && *a.delta < 1)) {
    throw UsageError(fmt::format("--delta: expected a number in (0, 1), got {}", *a.delta));
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
  if (a.json) {
    fmt::print("{}\n", account_rows_to_json(rows).dump(2));
    return;
  }
  fmt::print(
      "{} x {} (sigma {}, sensitivity {}{})\n", a.compositions, a.mechanism, a.sigma, a.sensitivity,
      spec.sampling == Sampling::none ? "" : fmt::format(", {} sampling q = {}", a.sampling, a.q));
  fmt::print("{:<22} {:<12} {:>16} {:>10}  {}\n", "accountant", "bound",
             a.delta ? fmt::format("eps(delta={:g})", *a.delta)
                     : fmt::format("delta(eps={:g})", *a.epsilon),
             "seconds", "");
  for (const auto& r : rows) {
    if (!r.ok) {
      fmt::print("{:<22} {:<12} {:>16} {:>10}  {}\n", r.accountant, to_string(r.bound), "-", "-",
                 r.message);
      continue;
    }
    fmt::print("{:<22} {:<12} {:>16} {:>10.4f}  {}\n", r.accountant, to_string(r.bound),
               number(a.delta ? r.epsilon : r.delta), r.seconds, r.message);
  }
}

void run_algorithm(const AccountArgs& a) {
  if (!a.epsilon || !a.delta) {
    throw UsageError("account --algorithm: give the budget as --epsilon and --delta");
  }
  if (!(a.n >= 1))
    throw UsageError(fmt::format("--n: expected the number of data rows ≥ 1, got {}", a.n));
  std::vector<PrivacyEvent> tmpl;
  if (a.algorithm == "dp-penalty") {
    if (!(a.tau > 0)) throw UsageError("--tau: expected > 0 (noise multiplier of DP penalty)");
    tmpl = dp_penalty_template(a.tau, a.n, a.alpha);
  } else if (a.algorithm == "dp-hmc") {
    if (!(a.tau_l > 0)) throw UsageError("--tau-l: expected > 0 (log-likelihood noise multiplier)");
    if (!(a.tau_g > 0)) throw UsageError("--tau-g: expected > 0 (gradient noise multiplier)");
    if (a.steps < 1) throw UsageError("--steps: expected the leapfrog steps L ≥ 1");
    tmpl = dp_hmc_template(a.tau_l, a.tau_g, a.steps, a.n);
  } else {
    throw UsageError(
        fmt::format("--algorithm: unknown '{}'; expected dp-penalty or dp-hmc", a.algorithm));
  }
  const auto rows =
      plan_rows(Budget{*a.epsilon, *a.delta}, tmpl, a.accountants, accountant_options(a));
  if (a.json) {
    fmt::print("{}\n", plan_rows_to_json(rows).dump(2));
    return;
  }
  fmt::print("{}: iterations allowed by (epsilon {:g}, delta {:g}) with n = {:g}\n", a.algorithm,
             *a.epsilon, *a.delta, a.n);
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

}  // namespace

void add_account_command(CLI::App& app) {
  auto a = std::make_shared<AccountArgs>();
  auto* cmd = app.add_subcommand(
      "account", "Privacy accounting: epsilon(delta), delta(epsilon), iterations allowed");
  auto* mech = cmd->add_option("--mechanism", a->mechanism, "gaussian or subsampled-gaussian");
  auto* algo = cmd->add_option("--algorithm", a->algorithm,
                               "dp-penalty or dp-hmc: iterations allowed by a budget");
  mech->excludes(algo);
  cmd->add_option("--sensitivity", a->sensitivity, "L2 sensitivity Delta")->capture_default_str();
  cmd->add_option("--sigma", a->sigma, "Noise standard deviation sigma");
  cmd->add_option("--compositions", a->compositions, "Number of identical releases")
      ->capture_default_str();
  cmd->add_option("--sampling", a->sampling, "none, poisson or without-replacement")
      ->capture_default_str();
  cmd->add_option("--q", a->q, "Sampling rate q in (0, 1]")->capture_default_str();
  cmd->add_option(
      "--relation", a->relation,
      "add-remove or substitute (default: substitute for without-replacement, else add-remove)");
  cmd->add_option("--epsilon", a->epsilon,
                  "epsilon: the query (mechanism) or the budget (algorithm)");
  cmd->add_option("--delta", a->delta, "delta: the query (mechanism) or the budget (algorithm)");
  cmd->add_option("--n", a->n, "algorithm: number of data rows");
  cmd->add_option("--tau", a->tau, "dp-penalty: noise multiplier tau");
  cmd->add_option("--alpha", a->alpha, "dp-penalty: exponent of n in the noise (tau n^alpha)")
      ->capture_default_str();
  cmd->add_option("--tau-l", a->tau_l, "dp-hmc: log-likelihood noise multiplier");
  cmd->add_option("--tau-g", a->tau_g, "dp-hmc: gradient noise multiplier");
  cmd->add_option("--steps", a->steps, "dp-hmc: leapfrog steps L");
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
  cmd->callback([a] {
    check_budget_values(*a);
    if (!a->mechanism.empty()) {
      run_mechanism(*a);
    } else if (!a->algorithm.empty()) {
      run_algorithm(*a);
    } else {
      throw UsageError(
          "account: give --mechanism (epsilon or delta of releases) or --algorithm (iterations "
          "allowed)");
    }
  });
}

}  // namespace dpmcmc::cli
