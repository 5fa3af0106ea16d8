// `dpmcmc predict RUN --data NEW.csv`: scores new rows with a fitted regression
// (run/predict_rows.hpp). One CSV line per new row: its 1-based row number, the posterior mean
// of E[y | x] (P(y = 1) for logistic and probit) and its 90 % interval. Reads the run's
// published draws and report only, so a private fit's predictions cost no privacy.
#include <fmt/format.h>

#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "data/atomic_file.hpp"
#include "data/file_bytes.hpp"
#include "run/predict_rows.hpp"

namespace dpmcmc::cli {
namespace {

struct PredictArgs {
  std::string run, data, out;
};

void run_predict(const PredictArgs& a) {
  const RowPredictions p = predict_rows(a.run, read_file_bytes(a.data), a.data);
  std::string text = "row,mean,q5,q95\n";
  for (Eigen::Index i = 0; i < p.mean.size(); ++i)
    text += fmt::format("{},{},{},{}\n", i + 1, p.mean(i), p.q5(i), p.q95(i));
  if (a.out.empty()) {
    fmt::print("{}", text);
    return;
  }
  write_file_atomic(a.out, text);
  fmt::print("{} rows scored ({}: posterior mean and 90 % interval): {}\n", p.mean.size(),
             p.quantity, a.out);
}

}  // namespace

void add_predict_command(CLI::App& app) {
  auto a = std::make_shared<PredictArgs>();
  auto* cmd = app.add_subcommand(
      "predict",
      "Score new rows with a fitted regression: the posterior mean of E[y | x] (P(y = 1) for "
      "logistic and probit) and its 90 % interval, per row");
  cmd->add_option("run", a->run, "The --out directory of a `sample --model FAMILY --schema …` run")
      ->required();
  cmd->add_option(
         "--data", a->data,
         "CSV of new rows in the schema's own units (a target column, if any, is not read)")
      ->required();
  cmd->add_option("--out", a->out, "Write the predictions here (default: stdout)");
  cmd->footer(
      "Output columns: row (1-based), mean, q5, q95. The rows are encoded with the schema the "
      "run was fitted with (kept in its report.json), so bounds, clipping and levels apply as "
      "they did to the fitted rows.");
  cmd->callback([a] { run_predict(*a); });
}

}  // namespace dpmcmc::cli
