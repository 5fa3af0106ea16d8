// Scoring new rows with a fitted regression (`dpmcmc predict`, Python's Fit.predict; issue 60,
// "the user's units"). The run's report.json keeps the public schema it was fitted with
// (model.details.schema), so new rows in the schema's own units are encoded exactly as the
// fitted rows were (data/design.hpp: the same bounds, clipping and levels). Each row's mean
// E[y | x] = g⁻¹(xᵀβ) (models/glm.hpp, glm_mean) is computed at every kept draw of every
// chain: its posterior mean and 90 % interval are post-processing of published draws, so a
// private fit's predictions cost no privacy. The new rows are the caller's; nothing here is
// written to the run directory.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/types.hpp"

namespace dpmcmc {

struct RowPredictions {
  std::string quantity;  // what is predicted: "P(y = 1)", "E[y]"
  Vec mean, q5, q95;     // one entry per new row
  Mat draws;             // rows × kept draws (chains stacked in order): E[y | x] at each draw
};

// NoInputError when `run_dir` has no report.json or chain files; ConfigError when the run is not
// a user regression (no model.details.schema) or its draws lack a coefficient; DataError (naming
// `source`, line and column) for rows the schema refuses.
RowPredictions predict_rows(const std::filesystem::path& run_dir, std::string_view rows_text,
                            const std::string& source);

}  // namespace dpmcmc
