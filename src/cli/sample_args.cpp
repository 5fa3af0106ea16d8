#include "cli/sample_args.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>

#include "cli/options.hpp"
#include "core/error.hpp"
#include "core/rng.hpp"
#include "models/glm.hpp"
#include "models/presets.hpp"
#include "run/private_samplers.hpp"
#include "run/release_once_job.hpp"
#include "run/sampler_descriptors.hpp"
#include "run/sampler_params.hpp"

namespace dpmcmc::cli {

PresetRunDefaults preset_run_defaults(const SampleArgs& a) {
  PresetRunDefaults d;
  if (!a.schema.empty()) return d;  // a regression family has no preset
  const auto& all = presets();
  const auto p =
      std::find_if(all.begin(), all.end(), [&](const Preset& q) { return q.name == a.model; });
  if (p == all.end() || !p->run_defaults.contains(a.sampler)) return d;
  const nlohmann::json& e = p->run_defaults.at(a.sampler);
  if (e.contains("iter")) d.iter = e.at("iter").get<std::size_t>();
  if (e.contains("warmup")) d.warmup = e.at("warmup").get<std::size_t>();
  if (e.contains("target_accept")) d.target_accept = e.at("target_accept").get<double>();
  d.dense_metric = e.value("metric", std::string("diag")) == "dense";
  return d;
}

SampleSpec to_spec(const SampleArgs& a) {
  SampleSpec spec;
  spec.preset = a.model;
  spec.sampler = a.sampler;
  if (!a.data.empty()) spec.data_file = a.data;
  if (!a.schema.empty()) {
    if (a.data.empty())
      throw UsageError("--schema: describes the columns of --data; give --data FILE too");
    const auto presets = preset_names();
    if (std::find(presets.begin(), presets.end(), a.model) != presets.end()) {
      // Also `--schema` without --model: the default preset is not a family.
      throw UsageError(fmt::format(
          "--model: a schema and its --data are fitted by a regression family ({}); '{}' is a "
          "preset with its own synthetic data. Give --model FAMILY",
          fmt::join(glm_family_names(), ", "), a.model));
    }
    parse_glm_family(a.model);  // UsageError listing the families
    spec.user_model = UserModelSpec{a.model, a.schema, a.data, a.priors, a.sigma, {}, {}};
  } else if (!a.priors.empty() || a.sigma) {
    throw UsageError(fmt::format("{}: applies to a regression family on --data with --schema",
                                 a.priors.empty() ? "--sigma" : "--prior"));
  }
  if (a.n > 0) spec.n = a.n;
  spec.data_seed = a.data_seed;
  spec.seed_given = a.seed.has_value();
  spec.run.seed = a.seed ? *a.seed : os_entropy_seed();
  if (a.chains < 1) throw UsageError(fmt::format("--chains: expected ≥ 1, got {}", a.chains));
  if (a.threads < 0) throw UsageError(fmt::format("--threads: expected ≥ 0, got {}", a.threads));
  if (a.thin < 1) throw UsageError("--thin: expected ≥ 1, got 0");
  if (a.iter && *a.iter < 1) throw UsageError("--iter: expected ≥ 1, got 0");
  if (a.reference_draws < 2) throw UsageError("--reference-draws: expected ≥ 2");
  const PresetRunDefaults preset = preset_run_defaults(a);
  spec.run.chains = a.chains;
  spec.run.threads = a.threads;
  spec.run.samples = a.iter.value_or(preset.iter.value_or(1000));
  spec.run.warmup = a.warmup.value_or(preset.warmup.value_or(1000));
  spec.extend_until_converged = !a.iter && !a.warmup;
  spec.run.thin = a.thin;
  spec.run.save_warmup = a.save_warmup;
  spec.run.adapt = a.adapt;
  if (a.metric) {
    const std::string& metric = *a.metric;
    if (metric != "diag" && metric != "dense") {
      throw UsageError(fmt::format("--metric: expected diag or dense, got '{}'", metric));
    }
    if (metric == "dense" && !a.adapt) {
      throw UsageError("--metric dense: the metric is adapted; it needs --adapt true");
    }
    if (metric == "dense" && a.sampler != "nuts" && a.sampler != "hmc" && a.sampler != "rwmh" &&
        a.sampler != kReleaseOnceSampler) {
      throw UsageError(
          fmt::format("--metric dense: sampler '{}' has a diagonal metric only (dense: "
                      "nuts, hmc, rwmh)",
                      a.sampler));
    }
    spec.run.dense_metric = metric == "dense";
  } else {
    // The preset's recommendation applies to an adapted run only (--adapt false runs the
    // hand-set values as they are).
    spec.run.dense_metric = a.adapt && preset.dense_metric;
  }
  if (a.target_accept) {
    if (!(*a.target_accept > 0.0 && *a.target_accept < 1.0)) {
      throw UsageError(
          fmt::format("--target-accept: expected a number in (0, 1), got {}", *a.target_accept));
    }
    if (!a.adapt) throw UsageError("--target-accept: has no effect with --adapt false");
    spec.run.target_accept = a.target_accept;
  } else if (a.adapt) {
    spec.run.target_accept = preset.target_accept;
  }
  if (a.quiet) spec.run.progress = ProgressMode::never;
  spec.reference_draws = a.reference_draws;
  if (a.accuracy == "auto") {
    spec.accuracy = SampleSpec::Accuracy::automatic;
  } else if (a.accuracy == "on") {
    spec.accuracy = SampleSpec::Accuracy::on;
  } else if (a.accuracy == "off") {
    spec.accuracy = SampleSpec::Accuracy::off;
  } else {
    throw UsageError(fmt::format("--accuracy: expected auto, on or off, got '{}'", a.accuracy));
  }
  spec.out_dir = a.out.empty() ? std::filesystem::path("out") / (a.model + "-" + a.sampler)
                               : std::filesystem::path(a.out);
  // Starting points: explicit, or around a centre, or the preset's rule.
  if (!a.init.empty()) {
    spec.init_given = true;
    spec.run.init.points.push_back(
        Eigen::Map<const Vec>(a.init.data(), static_cast<Eigen::Index>(a.init.size())));
  } else if (!a.init_centre.empty() || a.init_spread) {
    spec.init_given = true;
    if (!a.init_centre.empty()) {
      spec.run.init.centre = Eigen::Map<const Vec>(a.init_centre.data(),
                                                   static_cast<Eigen::Index>(a.init_centre.size()));
    }
    spec.run.init.spread = a.init_spread.value_or(1.0);
  }
  // An option the sampler does not read is refused as such before its value is judged
  // (sampler_overrides): "expected > 0" about an option the run would ignore points the user at
  // the wrong fix.
  // dp-nss's chains are NUTS on the released statistics: NUTS's options are its options.
  spec.overrides =
      sampler_overrides(a.sampler_options, a.sampler == kReleaseOnceSampler ? "nuts" : a.sampler);
  if (!a.noise_key_file.empty()) spec.noise_key_file = a.noise_key_file;
  if (!a.ledger.empty()) spec.ledger = a.ledger;
  spec.epsilon = a.epsilon;
  spec.delta = a.delta;
  spec.accountants = a.accountants;
  spec.warmup_fraction = a.warmup_fraction;
  spec.pilot_releases = a.pilot_releases;
  spec.pilot_share = a.pilot_share;
  spec.command_line = command_line();
  // Checkpoints: every few seconds of work by default, when the run could be resumed (a private
  // run needs its key in a file); --checkpoint-every N sets N iterations, 0 none.
  const bool resumable = a.sampler != kReleaseOnceSampler &&
                         (!is_private_sampler(a.sampler) || !a.noise_key_file.empty());
  if (a.checkpoint_every ? *a.checkpoint_every > 0 : resumable) {
    spec.checkpoint.emplace();
    spec.checkpoint->every_iterations = a.checkpoint_every.value_or(0);
  }
  spec.resume_info = {{"args", parsed_arguments()},
                      {"cwd", std::filesystem::current_path().string()},
                      {"seed", spec.run.seed},
                      {"seed_given", spec.seed_given}};
  return spec;
}

// An option the run would not use is refused, not ignored: a private run's length is set by its
// budget, a non-private run spends none, and a data file has its own rows. (Hyperparameters the
// sampler does not read are refused by to_spec, through check_sampler_keys.)
void refuse_unused_options(const CLI::App& cmd, const std::string& sampler) {
  for (const char* option : {"--n", "--data-seed"}) {
    if (cmd.count("--data") > 0 && cmd.count(option) > 0) {
      throw UsageError(fmt::format(
          "{}: the rows come from --data; {} applies to the preset's synthetic data only", option,
          option));
    }
  }
  if (sampler == kReleaseOnceSampler) {  // a budget, and chains as long as the user wants
    if (cmd.count("--warmup-fraction") > 0)
      throw UsageError(fmt::format(
          "--warmup-fraction: sampler '{}' spends its budget on one release; its chains run "
          "--warmup and --iter iterations",
          sampler));
    if (cmd.count("--checkpoint-every") > 0)
      throw UsageError(fmt::format(
          "--checkpoint-every: sampler '{}' keeps no checkpoints; rerun it with the same seed "
          "and --noise-key-file to get the same release and draws",
          sampler));
    return;
  }
  for (const char* option : {"--pilot-releases", "--pilot-share"}) {
    if (cmd.count(option) > 0)
      throw UsageError(
          fmt::format("{}: applies to --sampler {} only (sampler '{}' makes no pilot "
                      "releases)",
                      option, kReleaseOnceSampler, sampler));
  }
  const auto names = sampler_names();
  if (std::find(names.begin(), names.end(), sampler) == names.end()) return;  // refused later
  const bool private_sampler = is_private_sampler(sampler);
  for (const char* option : {"--iter", "--warmup"}) {
    if (private_sampler && cmd.count(option) > 0) {
      throw UsageError(fmt::format(
          "{}: sampler '{}' is private: its budget sets the iterations (--epsilon; the warmup "
          "share is --warmup-fraction)",
          option, sampler));
    }
  }
  std::vector<std::string> private_names;
  for (const auto& name : private_sampler_names()) private_names.push_back(name);
  private_names.emplace_back(kReleaseOnceSampler);  // private, but not an iterated descriptor
  for (const char* option : {"--epsilon", "--delta", "--accountants", "--warmup-fraction",
                             "--noise-key-file", "--ledger"}) {
    if (!private_sampler && cmd.count(option) > 0) {
      throw UsageError(
          fmt::format("{}: sampler '{}' is not private and spends no budget; private samplers: {}",
                      option, sampler, fmt::join(private_names, ", ")));
    }
  }
}

void add_sample_options(CLI::App& cmd, SampleArgs& a) {
  // Shown in --help; the file itself is expanded before parsing (cli/config_file.hpp).
  cmd.add_option("--config")
      ->description("Read options from a JSON or TOML file (the command line wins)");
  cmd.add_option("--model", a.model, "Model preset (see `dpmcmc models`)")->capture_default_str();
  std::vector<std::string> private_names;
  for (const auto& name : private_sampler_names()) private_names.push_back(name);
  cmd.add_option(
         "--sampler", a.sampler,
         fmt::format(
             "Sampler: {} (non-private); {} (private: need --epsilon); {} (regression "
             "families linear, normal, logistic, poisson: releases the sufficient "
             "statistics once, then NUTS for --iter iterations at no further cost); auto (a "
             "regression on your data: the first choice of `dpmcmc advise`, said and "
             "reported); `dpmcmc samplers` describes them",
             fmt::join(baseline_sampler_names(), ", "), fmt::join(private_names, ", "),
             kReleaseOnceSampler))
      ->capture_default_str();
  cmd.add_option("--data", a.data,
                 "CSV data file (header + numeric rows; with --schema any named columns), or "
                 "for a preset a float64 .npy array (numpy.save; columns in the preset's order); "
                 "default: the preset's synthetic data");
  cmd.add_option("--schema", a.schema,
                 "Public JSON schema of --data (roles, types, bounds; docs/user-guide.md): "
                 "--model is then a regression family (" +
                     fmt::format("{}", fmt::join(glm_family_names(), ", ")) + "; `dpmcmc models`)");
  cmd.add_option("--prior", a.priors,
                 "With --schema: normal(MEAN, SD) or student_t(NU, MEAN, SCALE) for every "
                 "coefficient but the intercept, NAME=... for one (intercept, a coefficient, "
                 "sigma=half_normal(SD)); repeatable, later wins")
      ->allow_extra_args(false);
  cmd.add_option("--sigma", a.sigma,
                 "With --schema and --model linear or normal: the known noise sd (default: sigma "
                 "is sampled, as log_sigma)");
  cmd.add_option("--n", a.n, "Rows of synthetic data (default: the preset's n)");
  cmd.add_option("--data-seed", a.data_seed, "Seed of the synthetic data (default: --seed)");
  cmd.add_option("--seed", a.seed, "Run seed; default: drawn from OS entropy and reported");
  cmd.add_option("--chains", a.chains, "Number of chains")->capture_default_str();
  cmd.add_option("--threads", a.threads, "Worker threads (0: all cores)")->capture_default_str();
  cmd.add_option("--iter", a.iter,
                 "Post-warmup iterations per chain (non-private samplers; default 1000, or what "
                 "the preset recommends for the sampler: `dpmcmc models PRESET`; dp-nss without "
                 "--iter and --warmup runs 1000, then 4000 and 16000 after 2000 and 4000 warmup, "
                 "while its chains disagree)");
  cmd.add_option("--warmup", a.warmup,
                 "Warmup (burn-in) iterations per chain (non-private samplers; default 1000, or "
                 "the preset's recommendation)");
  cmd.add_option("--thin", a.thin, "Keep every thin-th iteration")->capture_default_str();
  cmd.add_flag("--save-warmup", a.save_warmup, "Write warmup draws too");
  cmd.add_option("--adapt", a.adapt,
                 "true: tune the step size and diagonal metric (proposal sd of random walks) "
                 "during warmup, as Stan does, from the draws and acceptance statistics only "
                 "(free for private samplers); false: the hand-set values throughout (the "
                 "papers' runs). A warmup under 150 iterations adapts from little, and the run "
                 "warns. `dpmcmc samplers` says which samplers adapt")
      ->capture_default_str();
  cmd.add_option("--metric", a.metric,
                 "With --adapt true: diag (default, unless the preset recommends dense) adapts "
                 "one scale per parameter; dense adapts the warmup draws' covariance, for "
                 "strongly correlated posteriors (nuts, hmc, rwmh only; d x d per step, so for "
                 "moderate d)");
  cmd.add_option("--target-accept", a.target_accept,
                 "With --adapt true: the acceptance rate the step size adapts to, in (0, 1) "
                 "(Stan's adapt_delta; default: the preset's recommendation, else the sampler's, "
                 "see `dpmcmc samplers`). Closer to 1 means smaller steps: try 0.95 when "
                 "warnings report divergences or R-hat");
  cmd.add_option("--out", a.out,
                 "Output directory (default: out/MODEL-SAMPLER); one process at a time (a second "
                 "run on it is refused, exit 75)");
  cmd.add_option("--init", a.init, "Starting point for every chain (comma-separated)")
      ->delimiter(',');
  cmd.add_option("--init-centre", a.init_centre, "Centre of random starting points")
      ->delimiter(',');
  cmd.add_option("--init-spread", a.init_spread, "Sd of random starting points around the centre");
  add_sampler_options(cmd, a.sampler_options);
  cmd.add_option("--epsilon", a.epsilon,
                 "Private samplers: the privacy budget epsilon shared by all chains");
  cmd.add_option("--noise-key-file", a.noise_key_file,
                 "Private samplers: the secret key of the privacy noise, read from PATH (or "
                 "created there, mode 0600, when missing) so that the same seed and key rerun "
                 "bit for bit; default: a fresh key from OS entropy, stored nowhere. Never "
                 "publish it: with the key, the noise can be recomputed and subtracted");
  cmd.add_option("--ledger", a.ledger,
                 "Private samplers: the budget ledger (`dpmcmc ledger`) in which a run on --data "
                 "reserves its releases when the dataset is registered there, or is refused when "
                 "its dataset's budget across runs would be exceeded; default: $DPMCMC_LEDGER, "
                 "else $XDG_DATA_HOME/dpmcmc/ledger.sqlite, else "
                 "~/.local/share/dpmcmc/ledger.sqlite, when that file exists")
      ->type_name("PATH");
  cmd.add_option("--delta", a.delta,
                 "Private samplers: delta (default: the preset's, see `dpmcmc models`; 0.1/n "
                 "with --data or another --n)");
  cmd.add_option("--accountants", a.accountants,
                 "Private samplers: accountants to plan and report with, exactly these (default: "
                 "every certified one, the tightest wins, or only an exact one such as "
                 "pld-gaussian when it applies; the report then composes only the planning "
                 "accountant)")
      ->delimiter(',');
  cmd.add_option("--warmup-fraction", a.warmup_fraction,
                 "Private samplers: share of each chain's planned iterations used as warmup")
      ->capture_default_str();
  cmd.add_option("--pilot-releases", a.pilot_releases,
                 "dp-nss, logistic, poisson and linear: releases made before the final one, each "
                 "centred at the estimate of the one before (logistic and poisson: the "
                 "likelihood's expansion, one Newton step each; linear: the residuals, clipped "
                 "near the estimate's sigma); default: from the release's expected noise and n, "
                 "see the user guide")
      ->type_name("K");
  cmd.add_option(
      "--pilot-share", a.pilot_share,
      "dp-nss, logistic, poisson and linear: the share of the budget (of zCDP's rho) the pilots "
      "take together, in (0, 1); default 0.3");
  cmd.add_option("--reference-draws", a.reference_draws, "Exact posterior draws for the MMD")
      ->capture_default_str();
  cmd.add_option("--accuracy", a.accuracy,
                 "Curator-only accuracy against the exact reference: on, off, or auto (unless "
                 "the reference costs more than 1e8 likelihood row evaluations)")
      ->capture_default_str();
  cmd.add_flag("--quiet", a.quiet, "No progress display");
  cmd.add_option("--checkpoint-every", a.checkpoint_every,
                 "Save each chain's state every N iterations (0: never) so that a stopped or "
                 "killed run can be resumed; default: every 5 s of work, when the run can be "
                 "resumed (a private run needs --noise-key-file)");
  cmd.add_option("--resume", a.resume,
                 "Continue the stopped or killed run whose --out was DIR, with the options it was "
                 "started with (only --noise-key-file, --threads, --quiet and --checkpoint-every "
                 "may be given); its draws and spend are those of the uninterrupted run")
      ->type_name("DIR");
  cmd.footer(
      "Hyperparameters not given come from the preset (`dpmcmc models NAME` lists them and their "
      "sources). Private samplers run as many iterations as the budget allows; the report shows "
      "the planned and the recorded spend per accountant. An option the sampler would not use "
      "is refused (exit 64), not ignored: --iter and --warmup with a private sampler, the "
      "privacy options with a non-private one, a hyperparameter the sampler does not read, --n "
      "or --data-seed with --data. "
      "Output: DIR/chain-K.csv (Stan CSV) and DIR/report.json. A private run writes there only "
      "what may be published (theta draws, columns that are functions of released values, the "
      "planned and recorded spend); clip counts, batch sizes, timings and accuracy against the "
      "exact posterior are computed from the private rows without noise and go to DIR.curator/ "
      "(mode 0700, not for release). The seed is public; the noise comes from a secret key "
      "(--noise-key-file). A stopped or killed run continues with --resume DIR. --sampler dp-nss "
      "(regression families linear, normal, logistic, poisson with --schema) spends the whole "
      "budget on "
      "one release of the sufficient statistics, then runs NUTS for --iter/--warmup iterations "
      "on the posterior given the release (user guide, \"Release once, sample forever\"); "
      "without them, 1000 draws per chain, again with 4000 and 16000 while R-hat or ESS warns "
      "(post-processing: no budget).");
}

}  // namespace dpmcmc::cli
