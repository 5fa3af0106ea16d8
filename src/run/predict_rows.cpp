#include "run/predict_rows.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "data/design.hpp"
#include "data/file_bytes.hpp"
#include "data/schema.hpp"
#include "diagnostics/quantile.hpp"
#include "io/chain_files.hpp"
#include "io/stan_csv_reader.hpp"
#include "models/glm.hpp"

namespace dpmcmc {
namespace {

nlohmann::json run_report(const std::filesystem::path& run_dir) {
  const std::filesystem::path file = run_dir / "report.json";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec))
    throw NoInputError(fmt::format(
        "{}: no report.json; give the --out directory of a `dpmcmc sample` run", run_dir.string()));
  try {
    return nlohmann::json::parse(read_file_bytes(file));
  } catch (const nlohmann::json::parse_error& e) {
    throw DataError(fmt::format("{}: not valid JSON: {}", file.string(), e.what()));
  }
}

// The kept draws of the coefficients, all chains stacked: draws × coefficients.
Mat coefficient_draws(const std::filesystem::path& run_dir,
                      const std::vector<std::string>& coefficients) {
  std::vector<Mat> blocks;
  Eigen::Index rows = 0;
  for (const auto& file : run_chain_files(run_dir)) {
    const StanCsv csv = read_stan_csv(file);
    const Mat kept = csv.sampling_draws();
    Mat block(kept.rows(), static_cast<Eigen::Index>(coefficients.size()));
    for (std::size_t j = 0; j < coefficients.size(); ++j) {
      const auto column = csv.column_index(coefficients[j]);
      if (!column)
        throw ConfigError(fmt::format("{}: no column '{}' (a coefficient of the fitted model)",
                                      file.string(), coefficients[j]));
      block.col(static_cast<Eigen::Index>(j)) = kept.col(static_cast<Eigen::Index>(*column));
    }
    rows += block.rows();
    blocks.push_back(std::move(block));
  }
  if (rows == 0)
    throw DataError(fmt::format("{}: the chain files hold no kept draws", run_dir.string()));
  Mat out(rows, static_cast<Eigen::Index>(coefficients.size()));
  Eigen::Index at = 0;
  for (const Mat& b : blocks) {
    out.middleRows(at, b.rows()) = b;
    at += b.rows();
  }
  return out;
}

}  // namespace

RowPredictions predict_rows(const std::filesystem::path& run_dir, std::string_view rows_text,
                            const std::string& source) {
  const nlohmann::json report = run_report(run_dir);
  const nlohmann::json* details = nullptr;
  if (report.contains("model") && report["model"].is_object() &&
      report["model"].contains("details"))
    details = &report["model"]["details"];
  if (details == nullptr || !details->contains("schema") || !details->contains("family") ||
      !(*details)["family"].is_string())
    throw ConfigError(fmt::format(
        "{}: not a regression fitted to your rows (`sample --model FAMILY --schema …`); predict "
        "scores new rows of such a fit",
        (run_dir / "report.json").string()));
  const DataSchema schema = parse_schema(
      (*details)["schema"], (run_dir / "report.json").string() + " (model.details.schema)");
  const GlmFamily family = parse_glm_family((*details)["family"].get<std::string>());
  const Design rows = parse_new_rows(rows_text, source, schema);
  const Mat beta = coefficient_draws(run_dir, rows.coefficient_names);

  const auto p = static_cast<Eigen::Index>(rows.coefficient_names.size());
  const Eigen::Index n = rows.data.x.rows();
  RowPredictions out;
  out.quantity = family == GlmFamily::logistic || family == GlmFamily::probit ? "P(y = 1)" : "E[y]";
  out.draws = (rows.data.x.leftCols(p) * beta.transpose()).unaryExpr([family](double z) {
    return glm_mean(family, z);
  });
  out.mean = out.draws.rowwise().mean();
  out.q5.resize(n);
  out.q95.resize(n);
  Vec probs(2);
  probs << 0.05, 0.95;
  for (Eigen::Index i = 0; i < n; ++i) {
    const Vec q = quantiles(out.draws.row(i).transpose(), probs);
    out.q5(i) = q(0);
    out.q95(i) = q(1);
  }
  return out;
}

}  // namespace dpmcmc
