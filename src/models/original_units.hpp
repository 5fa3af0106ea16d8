// A regression's coefficients per unit of the schema's own features (issue 60, "the user's
// units"). The design rescales a real or count feature v on [low, high] to
// x = s·v + c, s = 2/(high − low), c = −(low + high)/(high − low) (data/design.hpp), so the
// linear predictor η = β₀ + Σ_j β_j x_j is, in the features' own units,
//   η = (β₀ + Σ_j c_j β_j) + Σ_j (s_j β_j) v_j:
// slope_j = s_j β_j per unit of v_j and intercept β₀ + Σ_j c_j β_j (the predictor at v = 0).
// Binary, one-hot and unrescaled columns keep s = 1, c = 0. A schema without an intercept whose
// rescaled features shift η gets that constant as a row named "offset".
// For the logistic family exp(slope) is the odds ratio per unit, for poisson the rate ratio; the
// map is linear, so the draws' summary in original units is the summary of mapped draws. Every
// input is public (the schema), and the outputs are functions of published draws.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "data/design.hpp"
#include "models/glm.hpp"

namespace dpmcmc {

struct OriginalUnits {
  std::vector<std::string> names;    // the design's coefficients
  std::vector<double> scale, shift;  // Design::column_scale, column_shift
  bool intercept = true;
  std::string ratio;  // "odds_ratio" (logistic), "rate_ratio" (poisson), else empty

  // The rows of the original-unit table: the coefficients' names, and "offset" where a schema
  // without an intercept has rescaled features.
  std::vector<std::string> row_names() const;
  // β (the design's units, size names.size()) → the table's rows.
  Vec to_original(const Vec& beta) const;

  nlohmann::json to_json() const;
  // ConfigError naming the key when `doc` is not what to_json writes.
  static OriginalUnits from_json(const nlohmann::json& doc);
};

OriginalUnits original_units(const Design& design, GlmFamily family);

// Per row of the table: mean, sd and the 5 %, 50 %, 95 % quantiles of the mapped draws (draws ×
// parameters, the coefficients first, as GlmModel orders them), and for the slopes of a ratio
// family the same quantiles and mean of exp(slope). ConfigError when `pooled` has fewer columns
// than coefficients.
nlohmann::json original_units_summary(const OriginalUnits& units, const Mat& pooled);

}  // namespace dpmcmc
