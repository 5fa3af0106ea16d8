// `dpmcmc sample`: run M chains of a sampler on a model preset (its synthetic data or a CSV
// file), write one Stan CSV per chain and a JSON report, print a summary.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>

#include "cli/commands.hpp"
#include "cli/config_file.hpp"
#include "cli/options.hpp"
#include "cli/sampler_options.hpp"
#include "core/error.hpp"
#include "core/rng.hpp"
#include "run/curator_files.hpp"
#include "run/private_samplers.hpp"
#include "run/sample_job.hpp"
#include "run/sampler_params.hpp"

namespace dpmcmc::cli {
namespace {

struct SampleArgs {
  std::string model = "banana-tempered-2d";
  std::string sampler = "hmc";
  std::string data, out, noise_key_file;
  std::size_t n = 0;
  std::optional<std::uint64_t> seed, data_seed;
  int chains = 4, threads = 0;
  std::size_t iter = 1000, warmup = 1000, thin = 1, reference_draws = 1000;
  bool save_warmup = false, quiet = false;
  std::vector<double> init, init_centre;
  std::optional<double> init_spread;
  SamplerOptionValues sampler_options;
  std::optional<double> epsilon, delta;
  std::vector<std::string> accountants;
  double warmup_fraction = 0.5;
};

SampleSpec to_spec(const SampleArgs& a) {
  SampleSpec spec;
  spec.preset = a.model;
  spec.sampler = a.sampler;
  if (!a.data.empty()) spec.data_file = a.data;
  if (a.n > 0) spec.n = a.n;
  spec.data_seed = a.data_seed;
  spec.seed_given = a.seed.has_value();
  spec.run.seed = a.seed ? *a.seed : os_entropy_seed();
  if (a.chains < 1) throw UsageError(fmt::format("--chains: expected ≥ 1, got {}", a.chains));
  if (a.threads < 0) throw UsageError(fmt::format("--threads: expected ≥ 0, got {}", a.threads));
  if (a.thin < 1) throw UsageError("--thin: expected ≥ 1, got 0");
  if (a.iter < 1) throw UsageError("--iter: expected ≥ 1, got 0");
  if (a.reference_draws < 2) throw UsageError("--reference-draws: expected ≥ 2");
  spec.run.chains = a.chains;
  spec.run.threads = a.threads;
  spec.run.samples = a.iter;
  spec.run.warmup = a.warmup;
  spec.run.thin = a.thin;
  spec.run.save_warmup = a.save_warmup;
  if (a.quiet) spec.run.progress = ProgressMode::never;
  spec.reference_draws = a.reference_draws;
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
  spec.overrides = sampler_overrides(a.sampler_options, a.sampler);
  if (!a.noise_key_file.empty()) spec.noise_key_file = a.noise_key_file;
  spec.epsilon = a.epsilon;
  spec.delta = a.delta;
  spec.accountants = a.accountants;
  spec.warmup_fraction = a.warmup_fraction;
  spec.command_line = command_line();
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
  for (const auto& e : private_samplers()) private_names.push_back(e.name);
  for (const char* option :
       {"--epsilon", "--delta", "--accountants", "--warmup-fraction", "--noise-key-file"}) {
    if (!private_sampler && cmd.count(option) > 0) {
      throw UsageError(
          fmt::format("{}: sampler '{}' is not private and spends no budget; private samplers: {}",
                      option, sampler, fmt::join(private_names, ", ")));
    }
  }
}

void print_outcome(const SampleSpec& spec, const SampleOutcome& out) {
  const auto& r = out.run;
  fmt::print(
      "dpmcmc sample: model {}, sampler {}, {} chains x {} iterations after {} warmup (thin {}), "
      "seed {}{}\n",
      spec.preset, spec.sampler, spec.run.chains, r.chains.front().samples_planned,
      r.chains.front().warmup_planned, spec.run.thin, spec.run.seed,
      spec.seed_given ? "" : " (from OS entropy)");
  if (out.plan) {
    const auto& p = *out.plan;
    fmt::print(
        "privacy: budget (epsilon {:g}, delta {:.3g}) shared by {} chains: {} iterations per chain "
        "planned by {} ({})\n",
        p.budget.epsilon, p.budget.delta, spec.run.chains, p.split.per_chain.front(),
        p.tightest.best.accountant, to_string(p.tightest.best.bound));
    if (p.discretisation_delta > 0.0 || p.accountant_delta < p.budget.delta) {
      fmt::print(
          "  epsilon below at delta {:.6g}; the discrete Gaussian noise adds delta {:.3g} "
          "(certified delta {:.6g})\n",
          p.accountant_delta, p.discretisation_delta, p.accountant_delta + p.discretisation_delta);
    }
    for (const auto& row : out.report["privacy"]["accountants"]) {
      if (!row.contains("recorded_epsilon")) continue;
      const auto show = [](const nlohmann::json& v) {
        return v.is_number() ? fmt::format("{:.6g}", v.get<double>()) : std::string("inf");
      };
      fmt::print("  {:<20} {:<12} planned epsilon {:>10}, recorded {:>10}\n",
                 row["accountant"].get<std::string>(), row["bound"].get<std::string>(),
                 show(row["planned_epsilon"]), show(row["recorded_epsilon"]));
    }
    fmt::print("\n");
  } else {
    fmt::print("privacy: none (non-private baseline sampler)\n\n");
  }
  if (!out.summary.parameters.empty()) fmt::print("{}\n", format_summary(out.summary));
  // A private run's accuracy against the exact posterior and its timings are computed from the
  // private rows without noise: printed with the curator's label (docs/architecture.md).
  const bool private_run = out.plan.has_value();
  const std::string curator = private_run ? fmt::format("[curator only: {}] ", kCuratorLabel) : "";
  for (const auto& ch : r.chains) {
    fmt::print("chain {}: {}, acceptance {:.3f}\n", ch.chain + 1, to_string(ch.status),
               ch.acceptance_rate());
  }
  for (const auto& ch : r.chains) {
    fmt::print("{}chain {}: {:.2f} s\n", curator, ch.chain + 1, ch.wall_seconds);
  }
  if (out.mmd) {
    fmt::print("{}MMD to {} exact posterior draws: {:.4g} (bandwidth {:.3g})\n", curator,
               spec.reference_draws, out.mmd->mmd, out.mmd->bandwidth);
  }
  if (out.mean_error)
    fmt::print("{}distance of the sample mean from the posterior mean: {:.4g}\n", curator,
               *out.mean_error);
  if (out.test_accuracy)
    fmt::print("{}posterior predictive accuracy on the public test rows: {:.4f}\n", curator,
               *out.test_accuracy);
  fmt::print("\ndraws:  {}/chain-*.csv ({} files)\nreport: {}\n", spec.out_dir.string(),
             out.draw_files.size(), out.report_file.string());
  if (private_run) {
    fmt::print("curator (not for release): {}\n", out.curator_file.parent_path().string());
  }
  if (!r.complete()) {
    fmt::print("INTERRUPTED: the draws are valid but partial (see the last line of each CSV)\n");
  }
}

}  // namespace

void add_sample_command(CLI::App& app) {
  auto a = std::make_shared<SampleArgs>();
  auto* cmd = app.add_subcommand("sample", "Draw posterior samples of a model preset");
  // Shown in --help; the file itself is expanded before parsing (cli/config_file.hpp).
  cmd->add_option("--config")
      ->description("Read options from a JSON or TOML file (the command line wins)");
  cmd->add_option("--model", a->model, "Model preset (see `dpmcmc models`)")->capture_default_str();
  std::vector<std::string> private_names;
  for (const auto& e : private_samplers()) private_names.push_back(e.name);
  cmd->add_option(
         "--sampler", a->sampler,
         fmt::format("Sampler: rwmh, hmc, tunamh (non-private); {} (private: need --epsilon)",
                     fmt::join(private_names, ", ")))
      ->capture_default_str();
  cmd->add_option("--data", a->data,
                  "CSV data file (header + numeric rows); default: the preset's synthetic data");
  cmd->add_option("--n", a->n, "Rows of synthetic data (default: the preset's n)");
  cmd->add_option("--data-seed", a->data_seed, "Seed of the synthetic data (default: --seed)");
  cmd->add_option("--seed", a->seed, "Run seed; default: drawn from OS entropy and reported");
  cmd->add_option("--chains", a->chains, "Number of chains")->capture_default_str();
  cmd->add_option("--threads", a->threads, "Worker threads (0: all cores)")->capture_default_str();
  cmd->add_option("--iter", a->iter, "Post-warmup iterations per chain (non-private samplers)")
      ->capture_default_str();
  cmd->add_option("--warmup", a->warmup,
                  "Warmup (burn-in) iterations per chain (non-private samplers)")
      ->capture_default_str();
  cmd->add_option("--thin", a->thin, "Keep every thin-th iteration")->capture_default_str();
  cmd->add_flag("--save-warmup", a->save_warmup, "Write warmup draws too");
  cmd->add_option("--out", a->out, "Output directory (default: out/MODEL-SAMPLER)");
  cmd->add_option("--init", a->init, "Starting point for every chain (comma-separated)")
      ->delimiter(',');
  cmd->add_option("--init-centre", a->init_centre, "Centre of random starting points")
      ->delimiter(',');
  cmd->add_option("--init-spread", a->init_spread,
                  "Sd of random starting points around the centre");
  add_sampler_options(*cmd, a->sampler_options);
  cmd->add_option("--epsilon", a->epsilon,
                  "Private samplers: the privacy budget epsilon shared by all chains");
  cmd->add_option("--noise-key-file", a->noise_key_file,
                  "Private samplers: the secret key of the privacy noise, read from PATH (or "
                  "created there, mode 0600, when missing) so that the same seed and key rerun "
                  "bit for bit; default: a fresh key from OS entropy, stored nowhere. Never "
                  "publish it: with the key, the noise can be recomputed and subtracted");
  cmd->add_option("--delta", a->delta,
                  "Private samplers: delta (default: the preset's, see `dpmcmc models`; 0.1/n "
                  "with --data or another --n)");
  cmd->add_option("--accountants", a->accountants,
                  "Private samplers: accountants to plan with (default: every certified one; the "
                  "tightest wins)")
      ->delimiter(',');
  cmd->add_option("--warmup-fraction", a->warmup_fraction,
                  "Private samplers: share of each chain's planned iterations used as warmup")
      ->capture_default_str();
  cmd->add_option("--reference-draws", a->reference_draws, "Exact posterior draws for the MMD")
      ->capture_default_str();
  cmd->add_flag("--quiet", a->quiet, "No progress display");
  cmd->footer(
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
      "(--noise-key-file).");
  cmd->callback([a, cmd] {
    refuse_unused_options(*cmd, a->sampler);
    const SampleSpec spec = to_spec(*a);
    const SampleOutcome out = run_sample_job(spec);
    print_outcome(spec, out);
    if (!out.run.complete()) throw InterruptedRun();
  });
}

}  // namespace dpmcmc::cli
