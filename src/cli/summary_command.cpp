// `dpmcmc summary FILES…` (or a run's directory): a stansummary-like table of Stan CSV draws (ours
// or CmdStan's), and, when the model preset is named, the MMD of the pooled draws to exact
// posterior draws.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <limits>

#include "cli/commands.hpp"
#include "cli/preset_rows.hpp"
#include "core/error.hpp"
#include "diagnostics/convergence_warnings.hpp"
#include "diagnostics/mmd.hpp"
#include "diagnostics/sample_error.hpp"
#include "diagnostics/summary.hpp"
#include "io/chain_files.hpp"
#include "io/stan_csv_reader.hpp"
#include "models/presets.hpp"
#include "run/release_once_job.hpp"
#include "run/sample_job.hpp"

namespace dpmcmc::cli {
namespace {

// A chain file with fewer sampling draws than its header's num_samples (and thin) promise: cut
// (`head`), or written by a run that stopped. One line per such file.
std::vector<std::string> incomplete_files(const std::vector<StanCsv>& files) {
  std::vector<std::string> lines;
  for (const auto& f : files) {
    const auto samples = f.config.find("num_samples");
    if (samples == f.config.end()) continue;
    std::size_t num_samples = 0, thin = 1;
    const auto thin_entry = f.config.find("thin");
    const std::string& t = thin_entry == f.config.end() ? std::string("1") : thin_entry->second;
    const auto [p1, e1] = std::from_chars(
        samples->second.data(), samples->second.data() + samples->second.size(), num_samples);
    const auto [p2, e2] = std::from_chars(t.data(), t.data() + t.size(), thin);
    if (e1 != std::errc() || e2 != std::errc() || thin == 0) continue;
    const std::size_t promised = num_samples / thin + (num_samples % thin != 0 ? 1 : 0);
    const auto rows = static_cast<std::size_t>(f.sampling_draws().rows());
    if (rows < promised) {
      lines.push_back(fmt::format(
          "{}: {} sampling draws, but its header (num_samples = {}, thin = {}) promises {}: the "
          "file was cut or its run stopped early; the summary covers the {} it holds",
          f.source, rows, num_samples, thin, promised, rows));
    }
  }
  return lines;
}

}  // namespace

void add_summary_command(CLI::App& app) {
  struct Args {
    std::vector<std::string> files;
    std::string model, data;
    std::size_t n = 0;
    std::uint64_t data_seed = 1;
    std::size_t reference_draws = 1000;
    int sig_figs = 3;
    bool json = false;
  };
  auto a = std::make_shared<Args>();
  auto* cmd =
      app.add_subcommand("summary", "Summarise Stan CSV draws (R-hat, ESS, MCSE, quantiles)");
  cmd->add_option("files", a->files,
                  "Stan CSV files, one per chain, or a run's output directory (its chain-*.csv)")
      ->required();
  cmd->add_option("--model", a->model, "Model preset: adds the MMD to exact posterior draws");
  cmd->add_option("--data", a->data, "With --model: the CSV data the draws were fitted to");
  cmd->add_option("--data-seed", a->data_seed,
                  "With --model and no --data: seed of the preset's synthetic data")
      ->capture_default_str();
  cmd->add_option("--n", a->n, "With --model and no --data: rows of synthetic data");
  cmd->add_option("--reference-draws", a->reference_draws, "Exact draws for the MMD")
      ->capture_default_str();
  cmd->add_option("--sig-figs", a->sig_figs, "Significant figures in the table")
      ->capture_default_str()
      ->check(CLI::Range(1, 17));
  cmd->add_flag("--json", a->json, "Machine-readable output");
  cmd->callback([a] {
    std::vector<Mat> chains;
    std::vector<StanCsv> files;
    std::vector<std::string> labels, columns;
    // A directory stands for its chain files (io/chain_files.hpp).
    std::vector<std::string> paths;
    for (const auto& f : a->files)
      for (const auto& p : run_chain_files(f)) paths.push_back(p.string());
    for (const auto& f : paths) {
      StanCsv csv = read_stan_csv(f);
      if (std::find(csv.columns.begin(), csv.columns.end(), "lp__") == csv.columns.end()) {
        // A data file reads as a headed numeric table too: its "summary" would print the private
        // rows' statistics as if they were draws.
        throw DataError(fmt::format(
            "{}: no lp__ column: expected a chain of draws (Stan CSV, as `dpmcmc sample` and "
            "CmdStan write); a data file or a curator-only file is not summarised",
            f));
      }
      if (!columns.empty() && csv.columns != columns) {
        throw DataError(fmt::format("{}: columns differ from those of {}", f, paths.front()));
      }
      columns = csv.columns;
      chains.push_back(csv.sampling_draws());
      labels.push_back(f);
      files.push_back(std::move(csv));
    }
    const Summary summary = summarize(columns, chains, labels);
    nlohmann::json out = summary_json(summary);
    const std::vector<std::string> cut = incomplete_files(files);
    for (const auto& line : cut) fmt::print(stderr, "WARNING: {}\n", line);
    if (!cut.empty()) out["incomplete_files"] = cut;
    // The checks `sample` runs after every run, on the parameters (Stan's columns without "__");
    // the acceptance check needs the sampler's kind, which a CSV file does not always say.
    std::vector<std::string> parameters;
    for (const auto& c : columns)
      if (!c.ends_with("__")) parameters.push_back(c);
    const std::vector<double> no_rates(chains.size(), std::numeric_limits<double>::quiet_NaN());
    // A private run's length came from its budget: `sample` refuses --iter for it, so the advice
    // names the budget instead (the sampler is in our files' headers; CmdStan's are not private).
    const auto sampler = files.front().config.find("sampler");
    const bool private_run = sampler != files.front().config.end() &&
                             sampler->second != kReleaseOnceSampler &&
                             is_private_sampler(sampler->second);
    const std::string advice =
        private_run ? fmt::format(
                          "the run was private (sampler {}): its budget set its length, so "
                          "rerun `dpmcmc sample` with a larger --epsilon or more rows "
                          "(--iter does not apply)",
                          sampler->second)
                    : "";
    const auto warnings = convergence_warnings(summary, parameters, no_rates, AcceptanceCheck::none,
                                               private_run, advice);
    out["warnings"] = warnings_json(warnings);
    std::string accuracy_text;
    if (!a->model.empty()) {
      const Preset& preset = find_preset(a->model);
      const auto model = preset.make_model();
      const Mat pooled = pooled_columns(files, model->param_names());
      if (model->has_exact_posterior()) {
        const Dataset data = preset_rows(preset, *model, a->data, a->data_seed, a->n);
        Rng exact_rng = make_rng(a->data_seed, 0, Stream::exact);
        const Mat reference = model->sample_posterior(data, a->reference_draws, exact_rng);
        Rng mmd_rng = make_rng(a->data_seed, 1, Stream::exact);
        const MmdResult m = mmd(pooled, reference, mmd_rng);
        out["mmd"] = m.mmd;
        out["mmd2_unbiased"] = m.mmd2;
        out["mean_error"] = mean_error(pooled, reference);
        accuracy_text =
            fmt::format("MMD to {} exact posterior draws of '{}': {:.4g} (mean error {:.4g})\n",
                        a->reference_draws, preset.name, m.mmd, out["mean_error"].get<double>());
      } else {
        const double e = mean_error_from_mean(pooled, Vec::Zero(model->dim()));
        out["mean_error"] = e;
        accuracy_text = fmt::format(
            "distance of the sample mean from the posterior mean (origin): {:.4g}\n", e);
      }
    }
    if (a->json) {
      fmt::print("{}\n", out.dump(2));
    } else {
      fmt::print("{}{}", format_summary(summary, a->sig_figs), accuracy_text);
      if (!warnings.empty()) fmt::print("\n{}", format_warnings(warnings));
    }
  });
}

}  // namespace dpmcmc::cli
