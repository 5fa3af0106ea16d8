// The public data schema: what it accepts and each refusal naming the key.
#include "data/schema.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace dpmcmc {
namespace {

using nlohmann::json;

json good() {
  return json::parse(R"({"intercept": false, "columns": [
    {"name": "age", "role": "feature", "type": "real", "bounds": [18, 100], "outside": "clip",
     "missing": {"impute": 50}, "rescale": false},
    {"name": "smoker", "role": "feature", "type": "binary", "levels": ["no", "yes"]},
    {"name": "region", "role": "feature", "type": "categorical", "levels": ["n", "s", "e"]},
    {"name": "visits", "role": "target", "type": "count", "bounds": [0, 30]},
    {"name": "id", "role": "ignored"}]})");
}

TEST(Schema, ParsesEveryKind) {
  const DataSchema s = parse_schema(good(), "s.json");
  EXPECT_FALSE(s.intercept);
  ASSERT_EQ(s.columns.size(), 5u);
  EXPECT_EQ(s.target().name, "visits");
  EXPECT_EQ(s.target().type, ColumnType::count);
  ASSERT_EQ(s.features().size(), 3u);
  const ColumnSchema& age = *s.find("age");
  EXPECT_EQ(age.low, 18.0);
  EXPECT_EQ(age.high, 100.0);
  EXPECT_TRUE(age.clip_outside);
  EXPECT_EQ(age.impute, std::optional<std::string>("50"));
  EXPECT_FALSE(age.rescale);
  EXPECT_EQ(s.find("smoker")->levels, (std::vector<std::string>{"no", "yes"}));
  EXPECT_FALSE(s.find("region")->clip_outside);  // reject by default
  EXPECT_EQ(s.find("id")->role, ColumnRole::ignored);
}

// Each edit of the good schema is refused with a message naming the key.
TEST(Schema, RefusesWithTheKey) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"op": "remove", "path": "/columns/0/bounds"})", "columns[0] ('age').bounds"},
      {R"({"op": "replace", "path": "/columns/0/bounds", "value": [5, 5]})", "low < high"},
      {R"({"op": "replace", "path": "/columns/0/bounds", "value": [0, "x"]})", "bounds"},
      {R"({"op": "replace", "path": "/columns/3/bounds", "value": [-1, 3]})", "cannot be negative"},
      {R"({"op": "replace", "path": "/columns/1/levels", "value": ["a", "b", "c"]})", "two labels"},
      {R"({"op": "remove", "path": "/columns/2/levels"})", "needs its levels"},
      {R"({"op": "replace", "path": "/columns/2/levels", "value": ["a", "a"]})", "twice"},
      {R"({"op": "replace", "path": "/columns/0/role", "value": "label"})", "role"},
      {R"({"op": "replace", "path": "/columns/0/type", "value": "float"})", "type"},
      {R"({"op": "replace", "path": "/columns/0/outside", "value": "wrap"})", "outside"},
      {R"({"op": "replace", "path": "/columns/0/missing", "value": "drop"})", "missing"},
      {R"({"op": "add", "path": "/columns/1/bounds", "value": [0, 1]})", "has no bounds"},
      {R"({"op": "add", "path": "/columns/0/colour", "value": 1})", "unknown key"},
      {R"({"op": "replace", "path": "/columns/2/role", "value": "target"})", "exactly one"},
      {R"({"op": "replace", "path": "/columns/3/role", "value": "feature"})", "exactly one"},
      {R"({"op": "replace", "path": "/columns/4/name", "value": "age"})", "declared twice"},
      {R"({"op": "add", "path": "/columns/3/rescale", "value": true})", "rescale"},
      {R"({"op": "replace", "path": "/intercept", "value": 1})", "intercept"},
      {R"({"op": "add", "path": "/colums", "value": []})", "unknown key"},
  };
  for (const auto& [patch, fragment] : cases) {
    const json doc = good().patch(json::array({json::parse(patch)}));
    try {
      parse_schema(doc, "s.json");
      ADD_FAILURE() << "accepted: " << patch;
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos)
          << patch << ": " << e.what();
      EXPECT_NE(std::string(e.what()).find("s.json"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace dpmcmc
