// `dpmcmc summary FILES…`: a stansummary-like table of Stan CSV draws (ours or CmdStan's), and,
// when the model preset is named, the MMD of the pooled draws to exact posterior draws.
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/preset_rows.hpp"
#include "core/error.hpp"
#include "diagnostics/mmd.hpp"
#include "diagnostics/sample_error.hpp"
#include "diagnostics/summary.hpp"
#include "io/stan_csv_reader.hpp"
#include "models/presets.hpp"

namespace dpmcmc::cli {

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
  cmd->add_option("files", a->files, "Stan CSV files, one per chain")->required();
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
    for (const auto& f : a->files) {
      StanCsv csv = read_stan_csv(f);
      if (!columns.empty() && csv.columns != columns) {
        throw DataError(fmt::format("{}: columns differ from those of {}", f, a->files.front()));
      }
      columns = csv.columns;
      chains.push_back(csv.sampling_draws());
      labels.push_back(f);
      files.push_back(std::move(csv));
    }
    const Summary summary = summarize(columns, chains, labels);
    nlohmann::json out = summary_json(summary);
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
    }
  });
}

}  // namespace dpmcmc::cli
