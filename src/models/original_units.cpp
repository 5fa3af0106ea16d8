#include "models/original_units.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/error.hpp"
#include "diagnostics/quantile.hpp"

namespace dpmcmc {

namespace {

bool needs_offset(const OriginalUnits& u) {
  if (u.intercept) return false;
  for (const double c : u.shift)
    if (c != 0.0) return true;
  return false;
}

// mean, sd, q5, q50, q95 of one column of draws.
nlohmann::json column_summary(const Vec& x) {
  Vec probs(3);
  probs << 0.05, 0.5, 0.95;
  const Vec q = quantiles(x, probs);
  const double mean = x.mean();
  const double sd =
      x.size() > 1
          ? std::sqrt((x.array() - mean).square().sum() / static_cast<double>(x.size() - 1))
          : 0.0;
  return {{"mean", mean}, {"sd", sd}, {"q5", q(0)}, {"q50", q(1)}, {"q95", q(2)}};
}

}  // namespace

std::vector<std::string> OriginalUnits::row_names() const {
  std::vector<std::string> rows = names;
  if (needs_offset(*this)) rows.emplace_back("offset");
  return rows;
}

Vec OriginalUnits::to_original(const Vec& beta) const {
  const auto p = static_cast<Eigen::Index>(names.size());
  Vec out(static_cast<Eigen::Index>(row_names().size()));
  double constant = 0.0;
  for (Eigen::Index j = 0; j < p; ++j) {
    const auto k = static_cast<std::size_t>(j);
    out(j) = scale[k] * beta(j);
    constant += shift[k] * beta(j);
  }
  if (intercept) {
    out(0) = beta(0) + constant;  // the intercept column's scale 1 and shift 0
  } else if (out.size() > p) {
    out(p) = constant;
  }
  return out;
}

nlohmann::json OriginalUnits::to_json() const {
  nlohmann::json columns = nlohmann::json::array();
  for (std::size_t j = 0; j < names.size(); ++j)
    columns.push_back({{"name", names[j]}, {"scale", scale[j]}, {"shift", shift[j]}});
  return {{"intercept", intercept},
          {"ratio", ratio.empty() ? nlohmann::json(nullptr) : nlohmann::json(ratio)},
          {"columns", columns},
          {"note",
           "design column = scale * value in the schema's units + shift; slope per unit = "
           "scale * coefficient, intercept = coefficient + sum of shift * coefficient"}};
}

OriginalUnits OriginalUnits::from_json(const nlohmann::json& doc) {
  const auto fail = [](const std::string& key) {
    return ConfigError(fmt::format(
        "model.details.original_units.{}: missing or not what `dpmcmc sample` writes", key));
  };
  if (!doc.is_object()) throw fail("(the object)");
  OriginalUnits u;
  if (!doc.contains("intercept") || !doc["intercept"].is_boolean()) throw fail("intercept");
  u.intercept = doc["intercept"].get<bool>();
  if (doc.contains("ratio") && doc["ratio"].is_string()) u.ratio = doc["ratio"].get<std::string>();
  if (!doc.contains("columns") || !doc["columns"].is_array() || doc["columns"].empty())
    throw fail("columns");
  for (const auto& c : doc["columns"]) {
    if (!c.is_object() || !c.contains("name") || !c["name"].is_string() || !c.contains("scale") ||
        !c["scale"].is_number() || !c.contains("shift") || !c["shift"].is_number())
      throw fail("columns");
    u.names.push_back(c["name"].get<std::string>());
    u.scale.push_back(c["scale"].get<double>());
    u.shift.push_back(c["shift"].get<double>());
  }
  return u;
}

OriginalUnits original_units(const Design& design, GlmFamily family) {
  OriginalUnits u;
  u.names = design.coefficient_names;
  u.scale = design.column_scale;
  u.shift = design.column_shift;
  u.intercept = design.intercept;
  if (family == GlmFamily::logistic) u.ratio = "odds_ratio";
  if (family == GlmFamily::poisson) u.ratio = "rate_ratio";
  return u;
}

nlohmann::json original_units_summary(const OriginalUnits& units, const Mat& pooled) {
  const auto p = static_cast<Eigen::Index>(units.names.size());
  if (pooled.cols() < p)
    throw ConfigError(
        fmt::format("original units: {} draw columns for {} coefficients", pooled.cols(), p));
  const std::vector<std::string> rows = units.row_names();
  Mat mapped(pooled.rows(), static_cast<Eigen::Index>(rows.size()));
  for (Eigen::Index s = 0; s < pooled.rows(); ++s)
    mapped.row(s) = units.to_original(pooled.row(s).head(p).transpose()).transpose();
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const Vec x = mapped.col(static_cast<Eigen::Index>(k));
    nlohmann::json row = column_summary(x);
    row["name"] = rows[k];
    // exp(slope) is a ratio against the intercept's baseline; without an intercept a
    // categorical's one-hot columns are each level's own baseline, not a contrast, so no column
    // gets a ratio there.
    const bool slope = units.intercept && k > 0 && k < units.names.size();
    if (slope && !units.ratio.empty()) row[units.ratio] = column_summary(x.array().exp().matrix());
    out.push_back(row);
  }
  return out;
}

}  // namespace dpmcmc
