// `dpmcmc sample`: run M chains of a sampler on a model preset (its synthetic data or a CSV
// file), write one Stan CSV per chain and a JSON report, print a summary.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>

#include "cli/auto_sampler.hpp"
#include "cli/commands.hpp"
#include "cli/config_file.hpp"
#include "cli/options.hpp"
#include "cli/sample_args.hpp"
#include "cli/sampler_options.hpp"
#include "core/error.hpp"
#include "core/rng.hpp"
#include "run/curator_files.hpp"
#include "run/job_checkpoint.hpp"
#include "run/private_samplers.hpp"
#include "run/release_once_job.hpp"
#include "run/sample_job.hpp"
#include "run/sampler_params.hpp"

namespace dpmcmc::cli {
namespace {

// One line on the run's entry in the budget ledger (run/ledger_entry.hpp).
std::string ledger_line(const nlohmann::json& ledger) {
  if (!ledger.value("tracked", false)) return ledger.value("note", std::string("not tracked"));
  const auto& spent = ledger["spent_with_reservations"];
  const auto& budget = spent["budget"];
  return fmt::format(
      "run {} on dataset '{}' in ledger {}: {}; with this run's reservation the dataset's runs "
      "spend epsilon = {} of its {} (delta {}, {} composition); `dpmcmc ledger show` lists them",
      ledger["run"].get<std::int64_t>(), ledger["dataset"]["label"].get<std::string>(),
      ledger["ledger"].get<std::string>(), ledger.value("status", std::string("running")),
      spent["epsilon"].is_number() ? fmt::format("{:.4g}", spent["epsilon"].get<double>())
                                   : std::string("inf"),
      budget["epsilon"].get<double>(), budget["delta"].get<double>(),
      spent["composition"].get<std::string>());
}

// A user regression's coefficients per unit of its features (models/original_units.hpp): the
// posterior median and 90 % interval, and exp(slope) for logistic (odds ratio) and poisson.
void print_original_units(const nlohmann::json& report) {
  const auto summary = report.find("summary");
  if (summary == report.end() || !summary->is_object() || !summary->contains("original_units"))
    return;
  fmt::print("per unit of the schema's features (median [5 %, 95 %]):\n");
  const auto cell = [](const nlohmann::json& s) {
    return fmt::format("{:.4g} [{:.4g}, {:.4g}]", s["q50"].get<double>(), s["q5"].get<double>(),
                       s["q95"].get<double>());
  };
  for (const auto& row : (*summary)["original_units"]) {
    std::string ratio;
    for (const char* key : {"odds_ratio", "rate_ratio"}) {
      if (row.contains(key))
        ratio =
            fmt::format("   {} {}", key == std::string("odds_ratio") ? "odds ratio" : "rate ratio",
                        cell(row[key]));
    }
    fmt::print("  {:<20} {}{}\n", row["name"].get<std::string>(), cell(row), ratio);
  }
  fmt::print("\n");
}

void print_outcome(const SampleSpec& spec, const SampleOutcome& out) {
  const auto& r = out.run;
  if (!spec.sampler_choice.is_null()) {
    fmt::print("sampler auto: chose {} (`dpmcmc advise` ranks them):\n",
               spec.sampler_choice["chosen"].get<std::string>());
    for (const auto& reason : spec.sampler_choice["reasons"])
      fmt::print("  - {}\n", reason.get<std::string>());
  }
  fmt::print(
      "dpmcmc sample: model {}, sampler {}, {} chain{} x {} iterations after {} warmup (thin {}), "
      "seed {}{}\n",
      spec.preset, spec.sampler, spec.run.chains, spec.run.chains == 1 ? "" : "s",
      r.chains.front().samples_planned, r.chains.front().warmup_planned, spec.run.thin,
      spec.run.seed, spec.seed_given ? "" : " (from OS entropy)");
  if (out.plan) {
    const auto& p = *out.plan;
    if (spec.sampler == kReleaseOnceSampler) {
      const auto& release = out.report["privacy"]["release_once"];
      const std::string pilots =
          release.contains("pilots")
              ? fmt::format(
                    "{} pilot releases (noise multiplier {:.4g}, {:g} of the budget's "
                    "rho) centring the likelihood's expansion, then ",
                    release["pilots"].size(),
                    release["pilots"][0]["noise_multiplier"].get<double>(),
                    release["pilot_share"].get<double>())
              : std::string("");
      fmt::print(
          "privacy: budget (epsilon {:g}, delta {:.3g}) spent on {}one release of the sufficient "
          "statistics (noise multiplier {:.4g}), planned by {} ({}); the chains only read the "
          "release\n",
          p.budget.epsilon, p.budget.delta, pilots, release["noise_multiplier"].get<double>(),
          p.tightest.best.accountant, to_string(p.tightest.best.bound));
    } else {
      fmt::print(
          "privacy: budget (epsilon {:g}, delta {:.3g}) shared by {} chains: {} iterations per "
          "chain planned by {} ({})\n",
          p.budget.epsilon, p.budget.delta, spec.run.chains, p.split.per_chain.front(),
          p.tightest.best.accountant, to_string(p.tightest.best.bound));
    }
    if (out.report.contains("sampler") && out.report["sampler"].contains("earlier_passes")) {
      for (const auto& pass : out.report["sampler"]["earlier_passes"])
        fmt::print(
            "chains: {} draws per chain were not enough ({}); run again from the same seed with "
            "more (post-processing of the release: no budget)\n",
            pass["samples"].get<std::size_t>(), pass["why"].get<std::string>());
    }
    if (out.noise_key_created && spec.noise_key_file) {
      fmt::print(
          "noise key: new, saved to {} (mode 0600; keep it secret). No key file was at this path: "
          "if you meant an earlier run's key, the path is mistyped and this is not its rerun\n",
          spec.noise_key_file->string());
    }
    if (p.discretisation_delta > 0.0 || p.accountant_delta < p.budget.delta) {
      fmt::print(
          "  epsilon below at delta {:.6g}; the discrete Gaussian noise adds delta {:.3g} "
          "(certified delta {:.6g})\n",
          p.accountant_delta, p.discretisation_delta, p.accountant_delta + p.discretisation_delta);
    }
    std::vector<std::string> skipped;
    std::string why;
    for (const auto& row : out.report["privacy"]["accountants"]) {
      if (row.contains("skipped")) {
        skipped.push_back(row["accountant"].get<std::string>());
        why = row["skipped"].get<std::string>();
      }
      if (!row.contains("recorded_epsilon")) continue;
      const auto show = [](const nlohmann::json& v) {
        return v.is_number() ? fmt::format("{:.6g}", v.get<double>()) : std::string("inf");
      };
      fmt::print("  {:<20} {:<12} planned epsilon {:>10}, recorded {:>10}\n",
                 row["accountant"].get<std::string>(), row["bound"].get<std::string>(),
                 show(row["planned_epsilon"]), show(row["recorded_epsilon"]));
    }
    if (!skipped.empty()) fmt::print("  {}: {}\n", fmt::join(skipped, ", "), why);
    fmt::print("\n");
  } else {
    fmt::print("privacy: none (non-private baseline sampler)\n\n");
  }
  if (!out.summary.parameters.empty()) fmt::print("{}\n", format_summary(out.summary));
  print_original_units(out.report);
  if (!out.warnings.empty()) fmt::print("{}\n", format_warnings(out.warnings));
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
    fmt::print(
        "{}MMD to {} exact posterior draws: {:.4g} (bandwidth {:.3g}; as many exact draws: "
        "{:.4g})\n",
        curator, spec.reference_draws, out.mmd->mmd, out.mmd->bandwidth,
        out.mmd_baseline.value_or(std::nan("")));
  }
  if (out.mean_error)
    fmt::print("{}distance of the sample mean from the posterior mean: {:.4g}\n", curator,
               *out.mean_error);
  if (out.test_accuracy)
    fmt::print("{}posterior predictive accuracy on the public test rows: {:.4f}\n", curator,
               *out.test_accuracy);
  if (out.accuracy.contains("skipped"))
    fmt::print("accuracy not computed: {}\n", out.accuracy["skipped"].get<std::string>());
  fmt::print("\ndraws:  {} ({} files)\nreport: {}\n", (spec.out_dir / "chain-*.csv").string(),
             out.draw_files.size(), out.report_file.string());
  if (private_run) {
    fmt::print("curator (not for release): {}\n", out.curator_file.parent_path().string());
    if (!out.ledger.is_null()) fmt::print("budget across runs: {}\n", ledger_line(out.ledger));
  }
  if (!r.complete()) {
    fmt::print("INTERRUPTED: the draws are valid but partial (see the last line of each CSV)\n");
    // Only a stopped chain has iterations left to run (an exhausted one has no budget left).
    const bool stopped = std::any_of(r.chains.begin(), r.chains.end(), [](const ChainResult& c) {
      return c.status == ChainStatus::interrupted;
    });
    if (out.checkpoint_dir && stopped)
      fmt::print("resume with: dpmcmc sample --resume {}\n", spec.out_dir.string());
  }
}

// The options a resumed run may set: none that changes its draws or its spend.
bool allowed_with_resume(const std::string& name) {
  for (const char* ok :
       {"--resume", "--noise-key-file", "--threads", "--quiet", "--checkpoint-every"}) {
    if (name == ok) return true;
  }
  return false;
}

// The checkpoint directory of the run whose --out was `dir`.
std::filesystem::path find_checkpoint(const std::filesystem::path& dir) {
  const auto c = checkpoint_dir(dir);
  if (std::filesystem::exists(c / "run.json")) return c;
  throw NoInputError(fmt::format(
      "--resume: {}: no checkpoint in {} (the run completed, or ran without checkpoints)",
      dir.string(), c.string()));
}

// The arguments the run was started with, parsed again.
SampleArgs saved_arguments(const nlohmann::json& info, const std::filesystem::path& where) {
  SampleArgs a;
  CLI::App app;
  auto* sub = app.add_subcommand("sample");
  add_sample_options(*sub, a);
  try {
    std::vector<std::string> args = info.at("args").get<std::vector<std::string>>();
    std::vector<char*> pointers;
    for (auto& arg : args) pointers.push_back(arg.data());
    app.parse(static_cast<int>(pointers.size()), pointers.data());
  } catch (const std::exception& e) {
    throw DataError(fmt::format("{}: the saved arguments of the run do not parse: {}",
                                where.string(), e.what()));
  }
  return a;
}

// `sample --resume DIR`: the saved run, continued from its chains' checkpoints.
void run_resumed(const CLI::App& cmd, const SampleArgs& given) {
  for (const CLI::Option* o : cmd.get_options()) {
    if (o->count() > 0 && !allowed_with_resume(o->get_name())) {
      throw UsageError(fmt::format(
          "{}: not allowed with --resume: a resumed run keeps the options it was started with "
          "(only --noise-key-file, --threads, --quiet and --checkpoint-every may be given)",
          o->get_name()));
    }
  }
  if (given.resume.empty()) throw UsageError("--resume: expected the run's output directory");
  // A resumed run needs the run's key: a key file given now must exist (never create one).
  if (!given.noise_key_file.empty() && !std::filesystem::exists(given.noise_key_file)) {
    throw NoInputError(
        fmt::format("--noise-key-file: {} does not exist; a resumed run needs the "
                    "key of the run it continues",
                    given.noise_key_file));
  }
  const auto dir = std::filesystem::absolute(given.resume);
  const auto checkpoint = find_checkpoint(dir);
  const nlohmann::json info = saved_resume_info(checkpoint);
  SampleArgs a = saved_arguments(info, checkpoint / "run.json");
  if (!given.noise_key_file.empty())
    a.noise_key_file = std::filesystem::absolute(given.noise_key_file).string();
  if (cmd.count("--threads") > 0) a.threads = given.threads;
  if (given.quiet) a.quiet = true;
  if (given.checkpoint_every) a.checkpoint_every = given.checkpoint_every;
  a.out = dir.string();
  std::string cwd;
  try {
    a.seed = info.at("seed").get<std::uint64_t>();
    cwd = info.at("cwd").get<std::string>();
  } catch (const std::exception& e) {
    throw DataError(fmt::format("{}: cannot read the run's seed and directory: {}",
                                (checkpoint / "run.json").string(), e.what()));
  }
  // Relative paths of the saved arguments (--data, --noise-key-file) mean what they meant.
  std::error_code ec;
  std::filesystem::current_path(cwd, ec);
  if (ec) {
    throw NoInputError(fmt::format(
        "--resume: the run was started in {}, which is no longer a directory ({}); its relative "
        "paths cannot be resolved",
        cwd, ec.message()));
  }
  if (!a.noise_key_file.empty() && !std::filesystem::exists(a.noise_key_file)) {
    throw NoInputError(
        fmt::format("--noise-key-file: {} does not exist; a resumed run needs the "
                    "key of the run it continues",
                    a.noise_key_file));
  }
  SampleSpec spec = to_spec(a);
  spec.seed_given = info.value("seed_given", true);
  if (!spec.checkpoint) spec.checkpoint.emplace();  // --checkpoint-every 0: restore, save no more
  if (a.checkpoint_every && *a.checkpoint_every == 0) spec.checkpoint->every_iterations = SIZE_MAX;
  spec.checkpoint->resume = true;
  spec.resume_info = info;
  const SampleOutcome out = run_sample_job(spec);
  print_outcome(spec, out);
  if (!out.run.complete()) throw InterruptedRun();
}

}  // namespace

void add_sample_command(CLI::App& app) {
  auto a = std::make_shared<SampleArgs>();
  auto* cmd = app.add_subcommand(
      "sample",
      "Draw posterior samples of a model preset, or of a regression on your own data (--schema)");
  add_sample_options(*cmd, *a);
  cmd->callback([a, cmd] {
    if (cmd->count("--resume") > 0) {
      run_resumed(*cmd, *a);
      return;
    }
    const auto choice = resolve_auto_sampler(*a, std::nullopt);
    refuse_unused_options(*cmd, a->sampler);
    SampleSpec spec = to_spec(*a);
    if (choice) spec.sampler_choice = *choice;
    const SampleOutcome out = run_sample_job(spec);
    print_outcome(spec, out);
    if (!out.run.complete()) throw InterruptedRun();
  });
}

}  // namespace dpmcmc::cli
