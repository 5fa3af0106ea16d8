#include "data/design.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/error.hpp"
#include "data/csv_records.hpp"
#include "data/file_bytes.hpp"

namespace dpmcmc {
namespace {

bool is_missing(const std::string& cell) {
  return cell.empty() || cell == "NA";
}

// The whole cell as a finite double (an optional leading '+'), or false.
bool parse_finite(std::string_view cell, double& value) {
  if (cell.size() > 1 && cell.front() == '+' && cell[1] != '-') cell.remove_prefix(1);
  const auto r = std::from_chars(cell.data(), cell.data() + cell.size(), value);
  return r.ec == std::errc() && r.ptr == cell.data() + cell.size() && std::isfinite(value);
}

// How one schema column becomes design columns.
struct Encoder {
  const ColumnSchema* col;
  std::size_t csv_index = 0;
  std::size_t first = 0;   // first design column (features), or unused (target)
  std::size_t width = 1;   // design columns it fills
  std::size_t report = 0;  // index in DesignReport::columns

  // Design values of this column for `cell` written at out[first..first+width).
  // `where` names the cell in a message; called only to throw.
  template <class Where>
  double value(const std::string& text, const Where& where, DesignReport& rep) const {
    const ColumnSchema& c = *col;
    const std::string* cell = &text;
    if (is_missing(text)) {
      if (!c.impute)
        throw DataError(
            fmt::format("{}: missing value (empty or NA) and the schema says "
                        "\"missing\": \"reject\" (give {{\"impute\": VALUE}} to fill "
                        "it with a public constant)",
                        where()));
      ++rep.columns[report].imputed;
      cell = &*c.impute;
    }
    if (c.type == ColumnType::categorical || (c.type == ColumnType::binary && !c.levels.empty())) {
      const auto it = std::find(c.levels.begin(), c.levels.end(), *cell);
      if (it == c.levels.end())
        throw DataError(fmt::format("{}: '{}' is not one of the declared levels ({})", where(),
                                    *cell, fmt::join(c.levels, ", ")));
      return static_cast<double>(it - c.levels.begin());
    }
    double v = 0.0;
    if (!parse_finite(*cell, v))
      throw DataError(fmt::format("{}: '{}' is not a finite number", where(), *cell));
    if (c.type == ColumnType::binary) {
      if (v != 0.0 && v != 1.0)
        throw DataError(
            fmt::format("{}: '{}' is not 0 or 1 (a binary column; give \"levels\" for "
                        "labels)",
                        where(), *cell));
      return v;
    }
    if (c.type == ColumnType::count && v != std::floor(v))
      throw DataError(
          fmt::format("{}: '{}' is not a whole number (a count column)", where(), *cell));
    if (v < c.low || v > c.high) {
      if (!c.clip_outside)
        throw DataError(
            fmt::format("{}: {} is outside the declared bounds [{}, {}] and the schema "
                        "says \"outside\": \"reject\" (\"clip\" clips it instead)",
                        where(), *cell, c.low, c.high));
      ++rep.columns[report].clipped;
      v = std::clamp(v, c.low, c.high);
    }
    return v;
  }
};

// A coefficient's name as Stan CSV headers and R/ArviZ accept it: [A-Za-z_][A-Za-z0-9_]*, not
// ending in "__" (other characters become '_', a leading digit gets "x_").
std::string stan_name(const std::string& raw) {
  std::string out;
  for (const char c : raw) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    out.push_back(ok ? c : '_');
  }
  if (out.empty() || (out.front() >= '0' && out.front() <= '9')) out = "x_" + out;
  while (out.size() >= 2 && out.ends_with("__")) out.pop_back();
  return out;
}

struct Layout {
  std::vector<Encoder> features;
  Encoder target{};
};

// Builds the design's names and bounds from the schema; csv indices are filled by the caller.
// The schema's impute value of e's column encodes like a cell and lies within the bounds:
// checked before any row is read, so that a bad value fails whatever the data hold.
void check_impute(const Encoder& e, const DataSchema& schema, std::size_t columns) {
  if (!e.col->impute) return;
  DesignReport scratch;
  scratch.columns.resize(columns);
  const auto where = [&] {
    return fmt::format("{}: column '{}', missing.impute", schema.source, e.col->name);
  };
  try {
    e.value(*e.col->impute, where, scratch);
  } catch (const DataError& err) {
    throw ConfigError(err.what());
  }
  if (scratch.columns[e.report].clipped > 0)
    throw ConfigError(fmt::format("{}: {} lies outside the bounds [{}, {}]", where(),
                                  *e.col->impute, e.col->low, e.col->high));
}

Layout layout(const DataSchema& schema, Design& d) {
  Layout l;
  d.intercept = schema.intercept;
  double r2 = 0.0;
  if (schema.intercept) {
    d.coefficient_names.push_back("intercept");
    d.column_bounds.push_back(1.0);
    d.column_scale.push_back(1.0);
    d.column_shift.push_back(0.0);
    r2 += 1.0;
  }
  for (const ColumnSchema& c : schema.columns) {
    if (c.role == ColumnRole::ignored) continue;
    d.report.columns.push_back({c.name, 0, 0});
    Encoder e{&c, 0, d.coefficient_names.size(), 1, d.report.columns.size() - 1};
    if (c.role == ColumnRole::target) {
      l.target = e;
      d.y_low = c.low;
      d.y_high = c.high;
      continue;
    }
    if (c.type == ColumnType::categorical) {
      const std::size_t skip = schema.intercept ? 1 : 0;  // the reference level
      e.width = c.levels.size() - skip;
      for (std::size_t k = skip; k < c.levels.size(); ++k) {
        d.coefficient_names.push_back(stan_name(c.name + "_" + c.levels[k]));
        d.column_bounds.push_back(1.0);
        d.column_scale.push_back(1.0);
        d.column_shift.push_back(0.0);
      }
      r2 += 1.0;
    } else {
      d.coefficient_names.push_back(stan_name(c.name));
      const bool scaled = c.rescale && c.type != ColumnType::binary;
      const double b = scaled ? 1.0 : std::max(std::abs(c.low), std::abs(c.high));
      d.column_bounds.push_back(b);
      const double half = 0.5 * (c.high - c.low);
      d.column_scale.push_back(scaled ? 1.0 / half : 1.0);
      d.column_shift.push_back(scaled ? -0.5 * (c.low + c.high) / half : 0.0);
      r2 += b * b;
    }
    l.features.push_back(e);
  }
  if (l.target.col == nullptr)
    throw ConfigError(fmt::format("{}: no target column", schema.source));
  for (const Encoder& e : l.features) check_impute(e, schema, d.report.columns.size());
  check_impute(l.target, schema, d.report.columns.size());
  d.row_norm_bound = std::sqrt(r2);
  for (std::size_t j = 0; j < d.coefficient_names.size(); ++j) {
    // Names the families use for their own parameters (models/glm.hpp).
    const bool reserved = d.coefficient_names[j] == "log_sigma" ||
                          (d.coefficient_names[j] == "intercept" && !(schema.intercept && j == 0));
    if (reserved)
      throw ConfigError(
          fmt::format("{}: a coefficient would be named '{}', which the models "
                      "reserve (intercept, log_sigma); rename the column",
                      schema.source, d.coefficient_names[j]));
    for (std::size_t k = 0; k < j; ++k) {
      if (d.coefficient_names[j] == d.coefficient_names[k])
        throw ConfigError(
            fmt::format("{}: two coefficients would both be named '{}' (column names "
                        "and levels are made Stan names: letters, digits, '_'); "
                        "rename one",
                        schema.source, d.coefficient_names[j]));
    }
  }
  return l;
}

std::vector<std::string> design_columns(std::size_t p) {
  std::vector<std::string> names;
  for (std::size_t j = 0; j < p; ++j) names.push_back(fmt::format("x.{}", j + 1));
  names.push_back("y");
  return names;
}

enum class Rows { fit, score };

Design parse_rows(std::string_view text, const std::string& source, const DataSchema& schema,
                  Rows rows) {
  Design d;
  Layout l = layout(schema, d);
  CsvRecords records(text, source);
  const auto& header = records.header();
  for (std::size_t j = 0; j < header.size(); ++j) {
    if (schema.find(header[j]) == nullptr)
      throw DataError(
          fmt::format("{}, line {}, column {} ('{}'): not declared in the schema {} "
                      "(declare it, with \"role\": \"ignored\" if the model should "
                      "not read it)",
                      source, records.line(), j + 1, header[j], schema.source));
  }
  auto locate = [&](Encoder& e) {
    const auto it = std::find(header.begin(), header.end(), e.col->name);
    if (it == header.end())
      throw DataError(fmt::format("{}: the schema's column '{}' ({}) is not in the header ({})",
                                  source, e.col->name, schema.source, fmt::join(header, ", ")));
    e.csv_index = static_cast<std::size_t>(it - header.begin());
  };
  for (auto& e : l.features) locate(e);
  // New rows to score may carry the target column, empty or not: it is never read (y is NaN).
  const bool has_target = rows == Rows::fit;
  if (has_target) locate(l.target);

  const std::size_t p = d.coefficient_names.size();
  std::vector<double> values;  // row-major while reading; n is not known in advance
  std::vector<std::string> cells;
  std::size_t n = 0;
  while (records.next(cells)) {
    auto where = [&](const Encoder& e) {
      return [&] {
        return fmt::format("{}, line {}, column {} ('{}')", source, records.line(), e.csv_index + 1,
                           e.col->name);
      };
    };
    const std::size_t base = values.size();
    values.resize(base + p + 1, 0.0);
    if (schema.intercept) values[base] = 1.0;
    for (const Encoder& e : l.features) {
      const double v = e.value(cells[e.csv_index], where(e), d.report);
      const ColumnSchema& c = *e.col;
      if (c.type == ColumnType::categorical) {
        const auto level = static_cast<std::size_t>(v);
        const std::size_t skip = schema.intercept ? 1 : 0;
        if (level >= skip) values[base + e.first + level - skip] = 1.0;
      } else if (c.rescale && c.type != ColumnType::binary) {
        const double mid = 0.5 * (c.low + c.high), half = 0.5 * (c.high - c.low);
        values[base + e.first] = std::clamp((v - mid) / half, -1.0, 1.0);
      } else {
        values[base + e.first] = v;
      }
    }
    values[base + p] = has_target
                           ? l.target.value(cells[l.target.csv_index], where(l.target), d.report)
                           : std::numeric_limits<double>::quiet_NaN();
    ++n;
  }
  if (n == 0) throw DataError(fmt::format("{}: a header but no data rows", source));
  if (rows == Rows::fit && p > n)
    throw DataError(
        fmt::format("{}: {} rows for {} coefficients ({}); a regression needs at least "
                    "as many rows as coefficients",
                    source, n, p, fmt::join(d.coefficient_names, ", ")));
  d.data.x.resize(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(p + 1));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j <= p; ++j)
      d.data.x(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) =
          values[i * (p + 1) + j];
  d.data.columns = design_columns(p);
  d.data.source = source;
  return d;
}

}  // namespace

nlohmann::json DesignReport::to_json() const {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : columns)
    out.push_back({{"column", c.name}, {"clipped", c.clipped}, {"imputed", c.imputed}});
  return {{"curator_only", "counts computed from the private rows without noise"},
          {"columns", out}};
}

Design empty_design(const DataSchema& schema) {
  Design d;
  layout(schema, d);
  d.data.columns = design_columns(d.coefficient_names.size());
  return d;
}

Design parse_design(std::string_view text, const std::string& source, const DataSchema& schema) {
  return parse_rows(text, source, schema, Rows::fit);
}

Design parse_new_rows(std::string_view text, const std::string& source, const DataSchema& schema) {
  return parse_rows(text, source, schema, Rows::score);
}

Design load_design(const std::filesystem::path& csv, const DataSchema& schema) {
  return parse_design(read_file_bytes(csv), csv.string(), schema);
}

}  // namespace dpmcmc
