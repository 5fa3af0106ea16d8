#include "data/schema.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "data/file_bytes.hpp"

namespace dpmcmc {

using nlohmann::json;

namespace {

class SchemaReader {
 public:
  explicit SchemaReader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw ConfigError(fmt::format("{}: {}: {}", source_, key, what));
  }

  std::string text(const json& c, const std::string& key, const std::string& where,
                   const std::vector<std::string>& choices) const {
    if (!c.contains(key))
      fail(where + "." + key, fmt::format("missing; expected one of {}", fmt::join(choices, ", ")));
    const json& v = c.at(key);
    if (!v.is_string() ||
        std::find(choices.begin(), choices.end(), v.get<std::string>()) == choices.end())
      fail(where + "." + key,
           fmt::format("got {}; expected one of {}", v.dump(), fmt::join(choices, ", ")));
    return v.get<std::string>();
  }

  ColumnSchema column(const json& c, std::size_t i) const {
    const std::string at = fmt::format("columns[{}]", i);
    if (!c.is_object()) fail(at, "expected an object {\"name\": ..., \"role\": ...}");
    if (!c.contains("name") || !c.at("name").is_string() || c.at("name").get<std::string>().empty())
      fail(at + ".name", "expected the CSV column's name (a non-empty string)");
    ColumnSchema col;
    col.name = c.at("name").get<std::string>();
    const std::string where = fmt::format("{} ('{}')", at, col.name);
    static const std::vector<std::string> known = {"name",   "role",    "type",    "bounds",
                                                   "levels", "outside", "missing", "rescale"};
    for (const auto& [k, v] : c.items()) {
      if (std::find(known.begin(), known.end(), k) == known.end())
        fail(where + "." + k,
             fmt::format("unknown key; a column takes {}", fmt::join(known, ", ")));
    }
    const std::string role = text(c, "role", where, {"feature", "target", "ignored"});
    col.role = role == "feature"  ? ColumnRole::feature
               : role == "target" ? ColumnRole::target
                                  : ColumnRole::ignored;
    if (col.role == ColumnRole::ignored) return col;
    const std::string type = text(c, "type", where, {"real", "binary", "count", "categorical"});
    col.type = type == "real"     ? ColumnType::real
               : type == "binary" ? ColumnType::binary
               : type == "count"  ? ColumnType::count
                                  : ColumnType::categorical;
    const bool numeric = col.type == ColumnType::real || col.type == ColumnType::count;
    if (numeric) {
      const json* b = c.contains("bounds") ? &c.at("bounds") : nullptr;
      if (b == nullptr || !b->is_array() || b->size() != 2 || !(*b)[0].is_number() ||
          !(*b)[1].is_number())
        fail(where + ".bounds",
             "expected [low, high], the public range of the column (from domain knowledge, not "
             "from the data)");
      col.low = (*b)[0].get<double>();
      col.high = (*b)[1].get<double>();
      // |bound| ≤ 1e150 keeps high − low and the squared row norm finite (data/design.hpp).
      constexpr double kMaxBound = 1e150;
      if (!(std::abs(col.low) <= kMaxBound && std::abs(col.high) <= kMaxBound &&
            col.low < col.high))
        fail(where + ".bounds",
             fmt::format("expected low < high, each at most 1e150 in magnitude, got [{}, {}]",
                         col.low, col.high));
      if (col.type == ColumnType::count && col.low < 0.0)
        fail(where + ".bounds", fmt::format("a count cannot be negative; got low = {}", col.low));
    } else if (c.contains("bounds")) {
      fail(where + ".bounds", fmt::format("a {} column has no bounds", type));
    } else {
      col.low = 0.0;
      col.high = 1.0;
    }
    if (c.contains("levels")) {
      const json& l = c.at("levels");
      if (!numeric && l.is_array() &&
          std::all_of(l.begin(), l.end(), [](const json& v) { return v.is_string(); })) {
        for (const auto& v : l) col.levels.push_back(v.get<std::string>());
      }
      const std::size_t want = col.type == ColumnType::binary ? 2 : 0;
      const bool ok =
          !col.levels.empty() && (want ? col.levels.size() == want : col.levels.size() >= 2);
      if (!ok)
        fail(where + ".levels", col.type == ColumnType::binary
                                    ? "expected the two labels [\"false label\", \"true label\"]"
                                : col.type == ColumnType::categorical
                                    ? "expected at least two labels [\"a\", \"b\", ...]"
                                    : fmt::format("a {} column has no levels", type));
      for (std::size_t j = 0; j < col.levels.size(); ++j) {
        if (col.levels[j].empty() || col.levels[j] == "NA")
          fail(where + ".levels", "\"\" and \"NA\" mark missing cells and cannot be levels");
        if (std::find(col.levels.begin(), col.levels.begin() + static_cast<std::ptrdiff_t>(j),
                      col.levels[j]) != col.levels.begin() + static_cast<std::ptrdiff_t>(j))
          fail(where + ".levels", fmt::format("'{}' appears twice", col.levels[j]));
      }
    } else if (col.type == ColumnType::categorical) {
      fail(where + ".levels",
           "a categorical column needs its levels [\"a\", \"b\", ...] (public: "
           "the categories that can occur, not those that did)");
    }
    if (c.contains("outside")) {
      if (!numeric)
        fail(where + ".outside", fmt::format("a {} column has no bounds to be outside", type));
      col.clip_outside = text(c, "outside", where, {"reject", "clip"}) == "clip";
    }
    if (c.contains("missing")) {
      const json& m = c.at("missing");
      if (m.is_string() && m.get<std::string>() == "reject") {
      } else if (m.is_object() && m.size() == 1 && m.contains("impute") &&
                 (m.at("impute").is_number() || m.at("impute").is_string())) {
        col.impute =
            m.at("impute").is_string() ? m.at("impute").get<std::string>() : m.at("impute").dump();
      } else {
        fail(where + ".missing", "expected \"reject\" or {\"impute\": VALUE} (a public constant)");
      }
    }
    if (c.contains("rescale")) {
      if (!c.at("rescale").is_boolean()) fail(where + ".rescale", "expected true or false");
      if (!numeric || col.role != ColumnRole::feature)
        fail(where + ".rescale", "only real and count features are rescaled");
      col.rescale = c.at("rescale").get<bool>();
    }
    return col;
  }

  std::string source_;
};

}  // namespace

const ColumnSchema& DataSchema::target() const {
  for (const auto& c : columns)
    if (c.role == ColumnRole::target) return c;
  throw SoftwareError("DataSchema without a target (parse_schema checks this)");
}

std::vector<const ColumnSchema*> DataSchema::features() const {
  std::vector<const ColumnSchema*> out;
  for (const auto& c : columns)
    if (c.role == ColumnRole::feature) out.push_back(&c);
  return out;
}

const ColumnSchema* DataSchema::find(const std::string& name) const {
  for (const auto& c : columns)
    if (c.name == name) return &c;
  return nullptr;
}

DataSchema parse_schema(const json& doc, const std::string& source) {
  const SchemaReader r(source);
  if (!doc.is_object()) r.fail("the document", "expected an object {\"columns\": [...]}");
  for (const auto& [k, v] : doc.items()) {
    if (k != "columns" && k != "intercept")
      r.fail(k, "unknown key; a schema takes columns and intercept");
  }
  DataSchema s;
  s.source = source;
  s.document = doc;
  if (doc.contains("intercept")) {
    if (!doc.at("intercept").is_boolean()) r.fail("intercept", "expected true or false");
    s.intercept = doc.at("intercept").get<bool>();
  }
  if (!doc.contains("columns") || !doc.at("columns").is_array() || doc.at("columns").empty())
    r.fail("columns", "expected a non-empty array with one object per CSV column");
  const json& cols = doc.at("columns");
  for (std::size_t i = 0; i < cols.size(); ++i) {
    ColumnSchema c = r.column(cols[i], i);
    if (s.find(c.name) != nullptr)
      r.fail(fmt::format("columns[{}].name", i),
             fmt::format("column '{}' is declared twice", c.name));
    s.columns.push_back(std::move(c));
  }
  const auto targets = std::count_if(s.columns.begin(), s.columns.end(), [](const ColumnSchema& c) {
    return c.role == ColumnRole::target;
  });
  if (targets != 1)
    r.fail("columns",
           fmt::format("expected exactly one column with role \"target\", found {}", targets));
  return s;
}

DataSchema load_schema(const std::filesystem::path& path) {
  const std::string text = read_file_bytes(path);
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    throw ConfigError(fmt::format("{}: not valid JSON: {}", path.string(), e.what()));
  }
  return parse_schema(doc, path.string());
}

std::string to_string(ColumnType type) {
  switch (type) {
    case ColumnType::real:
      return "real";
    case ColumnType::binary:
      return "binary";
    case ColumnType::count:
      return "count";
    case ColumnType::categorical:
      return "categorical";
  }
  return "?";
}

}  // namespace dpmcmc
