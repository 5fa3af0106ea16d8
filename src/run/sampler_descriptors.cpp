#include "run/sampler_descriptors.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <memory>

#include "core/error.hpp"
#include "models/presets.hpp"
#include "privacy/accountants.hpp"
#include "privacy/owner_group.hpp"
#include "privacy/private_data.hpp"
#include "run/barker_setup.hpp"
#include "run/dp_hmc_setup.hpp"
#include "run/fastmh_setup.hpp"
#include "run/minibatch_setup.hpp"
#include "run/release_once_job.hpp"
#include "run/sampler_params.hpp"
#include "run/sgld_setup.hpp"
#include "samplers/tuning.hpp"

namespace dpmcmc {

const std::vector<SamplerDescriptor>& sampler_descriptors() {
  using P = std::vector<std::string>;
  const P penalty = {"proposal_sd", "tau", "clip", "alpha"};
  const P minibatch = {"proposal_sd", "tau", "clip", "batch_size"};
  const P sg = {"batch_sampling", "batch_size", "step_size", "clip"};
  const P fastmh = {"proposal_sd", "epsilon",     "delta",    "lambda",
                    "max_batch",   "free_branch", "row_bound"};
  static const std::vector<SamplerDescriptor> all = {
      {"rwmh",
       "random-walk Metropolis; with --clip the clipped ratio without noise ([Raisa2021] "
       "Section 6.2)",
       {"proposal_sd", "clip"},
       "",
       nullptr,
       setup_rwmh},
      {"hmc",
       "Hamiltonian Monte Carlo, fixed step and steps; optional Halton step, --clip",
       {"step_size", "steps", "mass", "randomized_step_size", "clip"},
       "",
       nullptr,
       setup_hmc,
       AcceptanceCheck::low_only},
      {"nuts",
       "No-U-Turn Sampler, multinomial, as Stan's (the default; adapts with --adapt true)",
       {"step_size", "mass", "max_depth"},
       "hmc",
       nullptr,
       setup_nuts,
       AcceptanceCheck::low_only},
      {"tunamh",
       "TunaMH: exact minibatch MH with Poisson batches ([ZhangZhang2023] Algorithm 1)",
       {"proposal_sd", "lambda"},
       "",
       nullptr,
       setup_tunamh},
      {"dp-penalty",
       "DP penalty, Gaussian random walk ([Raisa2021] Section 3.1)",
       penalty,
       "",
       setup_dp_penalty,
       nullptr,
       AcceptanceCheck::random_walk,
       {"tau"}},
      {"dp-penalty-ocu",
       "DP penalty, one-component updates ([Raisa2021] Section 3.1)",
       penalty,
       "",
       setup_dp_penalty,
       nullptr,
       AcceptanceCheck::random_walk,
       {"tau"}},
      {"dp-penalty-gwmh",
       "DP penalty, guided walk on one component ([Raisa2021] Section 3.1)",
       penalty,
       "dp-penalty-ocu",
       setup_dp_penalty,
       nullptr,
       AcceptanceCheck::random_walk,
       {"tau"}},
      {"dp-penalty-minibatch",
       "DP penalty on a batch without replacement ([Raisa2021] Section 3.4)",
       minibatch,
       "",
       setup_dp_penalty_minibatch,
       nullptr,
       AcceptanceCheck::random_walk,
       {"tau"}},
      {"dp-penalty-minibatch-ocu",
       "minibatch DP penalty, one-component updates",
       minibatch,
       "",
       setup_dp_penalty_minibatch,
       nullptr,
       AcceptanceCheck::random_walk,
       {"tau"}},
      {"dp-penalty-minibatch-gwmh",
       "minibatch DP penalty, guided walk on one component",
       minibatch,
       "dp-penalty-minibatch-ocu",
       setup_dp_penalty_minibatch,
       nullptr,
       AcceptanceCheck::random_walk,
       {"tau"}},
      {"dp-penalty-shared",
       "DP penalty with the rows split among N data owners ([Yildirim2020] Algorithm 2)",
       {"proposal_sd", "tau", "clip", "alpha", "owners"},
       "dp-penalty",
       setup_dp_penalty_shared,
       nullptr,
       AcceptanceCheck::random_walk,
       {"tau"}},
      {"dp-penalty-expfam",
       "penalty on noisy sufficient statistics ([Yildirim2020] Algorithm 3)",
       {"proposal_sd", "tau", "alpha"},
       "",
       setup_dp_penalty_expfam,
       nullptr,
       AcceptanceCheck::random_walk,
       {"tau"}},
      {"dp-hmc",
       "DP Hamiltonian Monte Carlo, L + 1 noisy gradients ([Raisa2021] Algorithm 4)",
       {"tau_l", "tau_g", "clip_l", "clip_g", "step_size", "steps", "mass", "randomized_step_size"},
       "",
       setup_dp_hmc,
       nullptr,
       AcceptanceCheck::low_only,
       {"tau_l", "tau_g"}},
      {"dp-barker",
       "DP Barker: minibatch Barker test with V_corr ([Raisa2021] Section 3.3)",
       {"proposal_sd", "batch_size", "noise_variance"},
       "",
       setup_dp_barker,
       nullptr,
       AcceptanceCheck::random_walk,
       {"batch_size"}},
      {"dp-sgld",
       "DP stochastic-gradient Langevin dynamics, Poisson batches",
       sg,
       "",
       setup_dp_sgld,
       nullptr,
       AcceptanceCheck::none,
       {"clip"}},
      {"dp-sgnht",
       "DP stochastic-gradient Nose-Hoover thermostat, Poisson batches",
       {"batch_sampling", "batch_size", "step_size", "clip", "A"},
       "",
       setup_dp_sgnht,
       nullptr,
       AcceptanceCheck::none,
       {"clip"}},
      {"dp-fast-mh",
       "DP-Fast MH: TunaMH minibatches with Gaussian noise ([ZhangZhang2023] Algorithm 2)",
       fastmh,
       "",
       setup_dp_fast_mh,
       nullptr,
       AcceptanceCheck::random_walk,
       {"epsilon"}},
      {"dp-fast-mh-full",
       "DP-Fast MH, full-batch variant ([ZhangZhang2023] Algorithm 2)",
       {"proposal_sd", "epsilon", "delta", "free_branch", "row_bound"},
       "dp-fast-mh",
       setup_dp_fast_mh,
       nullptr,
       AcceptanceCheck::random_walk,
       {"epsilon"}},
  };
  return all;
}

const SamplerDescriptor* find_sampler(std::string_view name) {
  for (const auto& d : sampler_descriptors()) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

const SamplerDescriptor* find_private_sampler(const std::string& name) {
  const SamplerDescriptor* d = find_sampler(name);
  return d != nullptr && d->is_private() ? d : nullptr;
}

namespace {

std::vector<std::string> names_where(int which) {  // 0 all, 1 private, 2 non-private
  std::vector<std::string> names;
  for (const auto& d : sampler_descriptors()) {
    if (which == 0 || (which == 1) == d.is_private()) names.push_back(d.name);
  }
  return names;
}

}  // namespace

std::vector<std::string> sampler_names() {
  return names_where(0);
}
std::vector<std::string> private_sampler_names() {
  return names_where(1);
}
std::vector<std::string> baseline_sampler_names() {
  return names_where(2);
}

KernelFactory kernel_factory(const std::string& sampler, const nlohmann::json& params,
                             const Model& model, const Dataset& data) {
  const SamplerDescriptor* d = find_sampler(sampler);
  if (d == nullptr) {  // a typo: every sampler is a candidate, private or not
    throw UsageError(
        fmt::format("--sampler: unknown sampler '{}'; available: {}, {} (`dpmcmc samplers` "
                    "describes them)",
                    sampler, fmt::join(sampler_names(), ", "), kReleaseOnceSampler));
  }
  if (d->build == nullptr) {
    throw UsageError(fmt::format("--sampler: unknown non-private sampler '{}'; available: {}",
                                 sampler, fmt::join(baseline_sampler_names(), ", ")));
  }
  return d->build(sampler, params, model, data);
}

const Preset& defaults_preset(const SamplerDescriptor& d) {
  for (const auto& p : presets()) {
    if (!p.load_data && p.samplers.contains(d.defaults_entry())) return p;
  }
  throw ConfigError(fmt::format("sampler '{}': no preset has its defaults", d.name));
}

nlohmann::json with_unset_counts(const SamplerDescriptor& d, nlohmann::json params) {
  for (const auto& p : param_table()) {
    const bool listed = std::find(d.params.begin(), d.params.end(), p.key) != d.params.end();
    if (listed && p.kind == ParamKind::count && !params.contains(p.key)) params[p.key] = 2;
  }
  return params;
}

SamplerFacts sampler_facts(const SamplerDescriptor& d) {
  const Preset* preset = &defaults_preset(d);
  const auto model = preset->make_model();
  const Dataset data = simulate_preset(*preset, *model, 1);
  // A count no preset sets (the data owners N) is needed to build a kernel; 2 will do for
  // reading its columns.
  const nlohmann::json params =
      with_unset_counts(d, sampler_params(*preset, d.name, nlohmann::json::object()));
  std::unique_ptr<Kernel> kernel;
  EventLog log;
  SamplerFacts facts;
  if (d.build != nullptr) {
    kernel = d.build(d.name, params, *model, data)(0);
  } else {
    // A kernel that makes no release: an empty allowance, a throw-away key.
    const PrivateSamplerSetup setup = d.build_private(d.name, params, *model, data.rows());
    for (const auto& name : accountants_supporting(setup.per_iteration)) {
      if (make_accountant(name)->bound() == BoundKind::upper_bound)
        facts.accountants.push_back(name);
    }
    auto owner = [&] {
      return std::make_unique<PrivateData>(*model, data, make_noise_rng(NoiseKey::fresh(), 0, 0),
                                           log, ReleaseAllowance{});
    };
    if (setup.owners > 1) {
      std::vector<std::unique_ptr<DataOwner>> parties;
      parties.push_back(owner());
      kernel = setup.make_group_kernel(std::make_unique<OwnerGroup>(std::move(parties)));
    } else {
      kernel = setup.make_kernel(owner());
    }
  }
  if (const auto target = kernel->adaptation()) {
    const std::string rate =
        !target->random_walk ? fmt::format("{:g}", target->accept)
        : target->accept == kGuidedWalkTargetAccept
            ? fmt::format("{:g}, a guided walk's (measured)", kGuidedWalkTargetAccept)
            : "the random-walk rate of the dimension moved (0.44 in 1-d, 0.234 from 5-d)";
    facts.adapts =
        fmt::format("{}, target acceptance {}", target->metric ? "step and metric" : "step", rate);
  } else {
    facts.adapts = "no";
  }
  const auto published = kernel->publishable_columns();
  for (const auto& c : kernel->extra_columns()) {
    facts.columns.emplace_back(c,
                               std::find(published.begin(), published.end(), c) != published.end());
  }
  return facts;
}

std::string sampler_table(bool markdown) {
  std::string out;
  if (markdown) {
    out +=
        "| sampler | private | what it is | hyperparameters (options) | defaults from | draw "
        "columns after `accept_stat__` | adapts (`--adapt true`) | certified by |\n";
    out += "|---|---|---|---|---|---|---|---|\n";
  }
  for (const auto& d : sampler_descriptors()) {
    std::vector<std::string> options;
    for (const auto& key : d.params) {
      const std::string option = option_of(key);
      options.push_back(option.empty() ? fmt::format("{} (spec only)", key) : option);
    }
    std::vector<std::string> columns;
    const char* quote = markdown ? "`" : "";
    const SamplerFacts facts = sampler_facts(d);
    for (const auto& [name, published] : facts.columns)
      columns.push_back(fmt::format("{}{}{}{}", quote, name, quote, published ? "" : " (curator)"));
    if (columns.empty()) columns.push_back("none");
    const std::string certified =
        d.is_private() ? fmt::format("{}", fmt::join(facts.accountants, ", ")) : "-";
    if (markdown) {
      out += fmt::format("| `{}` | {} | {} | {} | `{}` | {} | {} | {} |\n", d.name,
                         d.is_private() ? "yes" : "no", d.summary, fmt::join(options, ", "),
                         d.defaults_entry(), fmt::join(columns, ", "), facts.adapts, certified);
    } else {
      out += fmt::format("{:<26} {:<12} {}\n", d.name, d.is_private() ? "private" : "non-private",
                         d.summary);
      out += fmt::format("{:<39} options: {}\n{:<39} columns: {}\n{:<39} adapts: {}\n", "",
                         fmt::join(options, " "), "", fmt::join(columns, ", "), "", facts.adapts);
      if (d.is_private()) out += fmt::format("{:<39} certified by: {}\n", "", certified);
    }
  }
  // Release once (run/release_once_job.hpp) is a job around NUTS, not a kernel with a descriptor.
  const std::string nss =
      "one release of a regression family's sufficient statistics (Bernstein and Sheldon 2018, "
      "2019), then NUTS on the posterior given it for --iter iterations; --model linear, normal, "
      "logistic or poisson with --schema";
  if (markdown) {
    out += fmt::format(
        "| `{}` | yes | {} | NUTS's | `nuts` | NUTS's | as NUTS | every certified one |\n",
        kReleaseOnceSampler, nss);
  } else {
    out += fmt::format("{:<26} {:<12} {}\n{:<39} options: NUTS's; adapts: as NUTS\n",
                       kReleaseOnceSampler, "private", nss, "");
  }
  return out;
}

}  // namespace dpmcmc
