// The public data schema (`--schema FILE`, docs/user-guide.md "Your data, your model"): what each
// column of the user's CSV is, declared in advance and without looking at the private rows.
//
// Everything here is public: the bounds are the curator's domain knowledge ("age is between 18
// and 100"), never the data's observed range, because a range computed from the rows would itself
// be a release. The design built from it (data/design.hpp) rescales by these bounds only; no
// standardising by sample moments.
//
// File format (JSON):
//   {"intercept": true,                       // optional, default true
//    "columns": [
//      {"name": "age", "role": "feature", "type": "real", "bounds": [18, 100],
//       "outside": "clip", "missing": {"impute": 50}, "rescale": true},
//      {"name": "smoker", "role": "feature", "type": "binary", "levels": ["no", "yes"]},
//      {"name": "region", "role": "feature", "type": "categorical",
//       "levels": ["north", "south", "east"]},
//      {"name": "died", "role": "target", "type": "binary"},
//      {"name": "id", "role": "ignored"}]}
// - role: feature | target (exactly one) | ignored. Columns of the CSV that the schema does not
//   name are an error (a typo must not drop a column silently); list them as ignored.
// - type: real and count need "bounds": [low, high], low < high (count: integers, low >= 0);
//   binary is 0/1, or the two labels of "levels" (false first); categorical needs "levels" (at
//   least two), one-hot encoded with the first level as reference when there is an intercept.
// - outside (real, count): what a value outside the bounds does: "reject" (default; an error
//   naming file, line and column) or "clip" (to the nearest bound, counted in the curator's
//   diagnostics only). A label not in "levels" is always an error.
// - missing: an empty cell or NA: "reject" (default) or {"impute": VALUE}, a public constant.
// - rescale (real and count features, default true): map [low, high] onto [-1, 1], so that
//   priors and step sizes are on one scale; false keeps the raw units.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace dpmcmc {

enum class ColumnRole { feature, target, ignored };
enum class ColumnType { real, binary, count, categorical };

struct ColumnSchema {
  std::string name;
  ColumnRole role = ColumnRole::ignored;
  ColumnType type = ColumnType::real;
  double low = 0.0, high = 1.0;       // real and count: the declared bounds; binary: 0, 1
  std::vector<std::string> levels;    // categorical; binary with labels: {false, true}
  bool clip_outside = false;          // "outside": "clip"
  std::optional<std::string> impute;  // "missing": {"impute": v}, as the cell text v
  bool rescale = true;
};

struct DataSchema {
  std::vector<ColumnSchema> columns;
  bool intercept = true;
  std::string source;       // the file, for messages
  nlohmann::json document;  // as read: the run report keeps it, so new rows can be scored

  const ColumnSchema& target() const;
  std::vector<const ColumnSchema*> features() const;
  const ColumnSchema* find(const std::string& name) const;
};

// ConfigError (78) naming the file and the key (e.g. "columns[2] ('age').bounds") and what was
// expected; NoInputError (66) when the file cannot be read.
DataSchema load_schema(const std::filesystem::path& path);
DataSchema parse_schema(const nlohmann::json& doc, const std::string& source);

std::string to_string(ColumnType type);

}  // namespace dpmcmc
