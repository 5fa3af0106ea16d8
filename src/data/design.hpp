// From a user's CSV and its public schema (data/schema.hpp) to the design a regression family
// reads: one row per record, columns "x.1", …, "x.p" (the intercept first when the schema has
// one, then each feature: one column, or one per non-reference level of a categorical) and "y".
//
// Every transformation is fixed by the schema, never by the rows: real and count features are
// mapped from [low, high] onto [-1, 1] (unless "rescale": false), out-of-bounds values are
// clipped to the bounds or refused as the schema says, missing cells are imputed with the
// schema's public constant or refused. Hence each design column j has a public bound |x_ij| ≤ B_j
// and each row a public norm bound ‖x_i‖₂ ≤ R, R² = Σ over schema features of their largest B_j²
// (a one-hot row has one 1 per categorical), which the families turn into per-row
// log-likelihood-ratio and gradient bounds (models/glm.hpp).
//
// The counts of clipped and imputed cells are computed from private rows without noise: they go
// to the curator's diagnostics only (DesignReport::to_json, run/sample_job.cpp).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "data/dataset.hpp"
#include "data/schema.hpp"

namespace dpmcmc {

struct DesignReport {
  struct Column {
    std::string name;
    std::size_t clipped = 0, imputed = 0;
  };
  std::vector<Column> columns;  // the schema's features and target, in schema order
  nlohmann::json to_json() const;
};

struct Design {
  Dataset data;  // x.1..x.p, y
  std::vector<std::string>
      coefficient_names;  // one per x column: "intercept", "age", "region_south" (Stan names)
  std::vector<double> column_bounds;  // B_j ≥ |x_ij|, public
  // Column j of the design from the schema feature's value v in its own units:
  // x_ij = column_scale[j]·v + column_shift[j] (1 and 0 for the intercept, binary, one-hot and
  // unrescaled columns; 2/(high − low) and −(low + high)/(high − low) for a rescaled one). Public.
  std::vector<double> column_scale, column_shift;
  double row_norm_bound = 0.0;       // R ≥ ‖x_i‖₂, public
  double y_low = 0.0, y_high = 1.0;  // the target's declared bounds
  bool intercept = true;
  DesignReport report;  // curator-only counts
};

// The coefficient names, bounds and norm bound of the schema alone (no rows).
Design empty_design(const DataSchema& schema);
// DataError (65) naming the file, line and column: a CSV column the schema does not declare, a
// declared column missing from the CSV, a non-numeric or non-finite number, a non-integer count, a
// value outside the bounds with "outside": "reject", a label not in the levels, a missing cell
// without "impute", no data rows. NoInputError (66) when the file cannot be read.
Design load_design(const std::filesystem::path& csv, const DataSchema& schema);
Design parse_design(std::string_view text, const std::string& source, const DataSchema& schema);
// New rows to score with a fitted model (`dpmcmc predict`): as parse_design, but the target
// column is never read (absent, empty or filled: y is NaN) and any number of rows ≥ 1 is
// accepted.
Design parse_new_rows(std::string_view text, const std::string& source, const DataSchema& schema);

}  // namespace dpmcmc
