#include "cli/sampler_options.hpp"

#include <fmt/format.h>

#include <cmath>

#include "cli/options.hpp"
#include "core/error.hpp"
#include "run/sampler_params.hpp"

namespace dpmcmc::cli {
namespace {

// Numeric sampler hyperparameters: key in the preset's sampler defaults (models/presets.hpp; its
// option is option_of(key), run/sampler_params.hpp) and help text. Each must be > 0; whole-number
// keys are checked by the sampler that reads them.
struct Hyperparameter {
  const char* key;
  const char* help;
  bool whole = false;  // a count (steps, batch size, owners)
};
const std::vector<Hyperparameter> kHyper = {
    {"step_size",
     "hmc, dp-hmc: leapfrog step size eta; dp-sgld, dp-sgnht: the DP HMC paper's per-row step "
     "(the update uses eta/n)"},
    {"steps", "hmc, dp-hmc: leapfrog steps L", true},
    {"tau",
     "dp-penalty*: noise multiplier tau (noise sd tau n^alpha times the sensitivity; "
     "minibatch: noise variance tau times the squared sensitivity)"},
    {"clip",
     "dp-penalty* but -expfam: clip bound b: each row's log-likelihood ratio to +-b|theta'-theta|; "
     "rwmh, hmc: "
     "the same clipping without noise (thesis Section 6.2; off by default); dp-sgld, dp-sgnht: "
     "per-row gradient norm bound"},
    {"alpha", "dp-penalty, -ocu, -gwmh, -expfam: exponent alpha of n in the noise"},
    {"batch_size", "minibatch samplers: batch size b (1 <= b <= n)", true},
    {"owners", "dp-penalty-shared: number of data owners N (1 <= N <= n)", true},
    {"tau_l", "dp-hmc: noise multiplier of the log-likelihood-ratio release"},
    {"tau_g", "dp-hmc: noise multiplier of the gradient releases"},
    {"clip_l", "dp-hmc: clip bound of the log-likelihood ratios (per unit step)"},
    {"clip_g", "dp-hmc: L2 clip bound of the per-row gradients"},
    {"noise_variance", "dp-barker: total noise variance sigma^2 < pi^2/3"},
    {"A", "dp-sgnht: thermostat diffusion A"},
    {"epsilon", "dp-fast-mh*: epsilon certified per iteration"},
    {"delta", "dp-fast-mh*: delta certified per iteration"},
    {"lambda", "tunamh, dp-fast-mh: expected batch size lambda (plus C M)"},
    {"max_batch", "dp-fast-mh: batch-size cap K before the full-batch fallback", true},
};

}  // namespace

SamplerOptionValues::SamplerOptionValues() : hyper(kHyper.size()) {}

void add_sampler_options(CLI::App& cmd, SamplerOptionValues& v) {
  cmd.add_option(option_of("proposal_sd"), v.proposal_sd,
                 "rwmh, tunamh, dp-penalty*, dp-barker, dp-fast-mh*: proposal sd (one value or "
                 "one per parameter)")
      ->delimiter(',');
  cmd.add_option(option_of("mass"), v.mass,
                 "hmc, dp-hmc: diagonal mass matrix (one value or one per parameter)")
      ->delimiter(',');
  cmd.add_option(option_of("randomized_step_size"), v.randomize,
                 "hmc, dp-hmc: randomised Halton step size (true/false)");
  cmd.add_option(option_of("batch_sampling"), v.batch_sampling,
                 "dp-sgld, dp-sgnht: how each batch is drawn: poisson (default; each row with "
                 "probability b/n; add/remove neighbours) or without_replacement (exactly b "
                 "rows; substitute neighbours)")
      ->check(CLI::IsMember({"poisson", "without_replacement"}));
  for (std::size_t i = 0; i < kHyper.size(); ++i) {
    cmd.add_option(option_of(kHyper[i].key), v.hyper[i], kHyper[i].help)
        ->type_name(kHyper[i].whole ? "INT" : "FLOAT");
  }
}

nlohmann::json sampler_overrides(const SamplerOptionValues& v, const std::string& sampler) {
  nlohmann::json o = nlohmann::json::object();
  if (!v.proposal_sd.empty())
    o["proposal_sd"] = v.proposal_sd.size() == 1 ? nlohmann::json(v.proposal_sd[0])
                                                 : nlohmann::json(v.proposal_sd);
  if (!v.mass.empty())
    o["mass"] = v.mass.size() == 1 ? nlohmann::json(v.mass[0]) : nlohmann::json(v.mass);
  if (v.randomize) o["randomized_step_size"] = *v.randomize;
  if (v.batch_sampling) o["batch_sampling"] = *v.batch_sampling;
  for (std::size_t i = 0; i < kHyper.size(); ++i) {
    if (v.hyper[i]) o[kHyper[i].key] = *v.hyper[i];
  }
  check_sampler_keys(sampler, o);
  for (std::size_t i = 0; i < kHyper.size(); ++i) {
    if (!v.hyper[i]) continue;
    const double x = positive_option(option_of(kHyper[i].key), *v.hyper[i]);
    if (kHyper[i].whole && x != std::floor(x)) {
      throw UsageError(
          fmt::format("{}: expected a whole number >= 1, got {}", option_of(kHyper[i].key), x));
    }
  }
  return o;
}

}  // namespace dpmcmc::cli
