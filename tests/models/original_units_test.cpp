// Coefficients per unit of the schema's features (models/original_units.hpp): the linear
// predictor written in the features' own units must equal the design's, row by row, and the
// summary's ratio quantiles must be exp of the slope quantiles.
#include "models/original_units.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"
#include "data/schema.hpp"

namespace dpmcmc {
namespace {

using nlohmann::json;

DataSchema schema(bool intercept) {
  json doc = json::parse(R"({"columns": [
    {"name": "age", "role": "feature", "type": "real", "bounds": [20, 80]},
    {"name": "dose", "role": "feature", "type": "real", "bounds": [-2, 6], "rescale": false},
    {"name": "visits", "role": "feature", "type": "count", "bounds": [0, 10]},
    {"name": "sex", "role": "feature", "type": "binary"},
    {"name": "died", "role": "target", "type": "binary"}]})");
  doc["intercept"] = intercept;
  return parse_schema(doc, "s.json");
}

constexpr const char* kRows =
    "age,dose,visits,sex,died\n"
    "50,0.5,3,0,1\n"
    "21,-2,0,1,0\n"
    "79,6,10,1,1\n"
    "33,1.5,7,0,0\n"
    "64,3,5,1,0\n"
    "45,-1,2,0,1\n";
// The same rows in the features' own units (age, dose, visits, sex).
const double kRaw[6][4] = {{50, 0.5, 3, 0}, {21, -2, 0, 1}, {79, 6, 10, 1},
                           {33, 1.5, 7, 0}, {64, 3, 5, 1},  {45, -1, 2, 0}};

TEST(OriginalUnits, ThePredictorInOwnUnitsIsTheDesignsPredictor) {
  for (const bool intercept : {true, false}) {
    const Design d = parse_design(kRows, "d.csv", schema(intercept));
    const OriginalUnits u = original_units(d, GlmFamily::logistic);
    const auto p = static_cast<Eigen::Index>(d.coefficient_names.size());
    Vec beta(p);
    for (Eigen::Index j = 0; j < p; ++j) beta(j) = 0.7 - 0.45 * static_cast<double>(j);
    const Vec original = u.to_original(beta);
    const std::vector<std::string> rows = u.row_names();
    // Without an intercept the rescaled age and visits shift η by a constant: the "offset" row.
    ASSERT_EQ(rows.size(), static_cast<std::size_t>(p) + (intercept ? 0 : 1)) << intercept;
    if (!intercept) {
      EXPECT_EQ(rows.back(), "offset");
    }
    const Eigen::Index first = intercept ? 1 : 0;
    for (Eigen::Index i = 0; i < 6; ++i) {
      double eta = intercept ? original(0) : original(p);
      for (Eigen::Index k = 0; k < 4; ++k) eta += original(first + k) * kRaw[i][k];
      EXPECT_NEAR(eta, d.data.x.row(i).head(p).dot(beta), 1e-12) << intercept << " row " << i;
    }
    // The slope of age per year is β/30; dose and sex keep theirs.
    EXPECT_NEAR(original(first), beta(first) / 30.0, 1e-15);
    EXPECT_EQ(original(first + 1), beta(first + 1));
    EXPECT_EQ(original(first + 3), beta(first + 3));
  }
}

TEST(OriginalUnits, JsonRoundTripsAndRefusesWhatItDoesNotWrite) {
  const Design d = parse_design(kRows, "d.csv", schema(true));
  const OriginalUnits u = original_units(d, GlmFamily::poisson);
  const OriginalUnits back = OriginalUnits::from_json(u.to_json());
  EXPECT_EQ(back.names, u.names);
  EXPECT_EQ(back.scale, u.scale);
  EXPECT_EQ(back.shift, u.shift);
  EXPECT_EQ(back.ratio, "rate_ratio");
  EXPECT_TRUE(original_units(d, GlmFamily::linear).ratio.empty());
  json broken = u.to_json();
  broken["columns"][1].erase("scale");
  EXPECT_THROW(OriginalUnits::from_json(broken), ConfigError);
}

TEST(OriginalUnits, TheSummaryMapsEveryDrawAndExponentiatesSlopes) {
  const Design d = parse_design(kRows, "d.csv", schema(true));
  const OriginalUnits u = original_units(d, GlmFamily::logistic);
  // 101 draws of (intercept, age, dose, visits, sex): age's coefficient runs over −1 … 1, so its
  // slope per year runs over −1/30 … 1/30 with median 0 and 5 % quantile −0.9/30 (type 7).
  Mat draws = Mat::Zero(101, 5);
  for (Eigen::Index s = 0; s < 101; ++s) {
    draws(s, 0) = 0.5;
    draws(s, 1) = -1.0 + 0.02 * static_cast<double>(s);
  }
  const json table = original_units_summary(u, draws);
  ASSERT_EQ(table.size(), 5u);
  const json& age = table[1];
  EXPECT_EQ(age["name"], "age");
  EXPECT_NEAR(age["q50"].get<double>(), 0.0, 1e-15);
  EXPECT_NEAR(age["q5"].get<double>(), -0.9 / 30.0, 1e-15);
  EXPECT_NEAR(age["odds_ratio"]["q5"].get<double>(), std::exp(-0.9 / 30.0), 1e-15);
  EXPECT_NEAR(age["odds_ratio"]["q95"].get<double>(), std::exp(0.9 / 30.0), 1e-15);
  // The intercept at age 0 and visits 0: 0.5 + β_age·(−50/30) + β_visits·(−1); no odds ratio.
  EXPECT_NEAR(table[0]["q50"].get<double>(), 0.5, 1e-15);
  EXPECT_NEAR(table[0]["q95"].get<double>(), 0.5 + 0.9 * 50.0 / 30.0, 1e-12);
  EXPECT_FALSE(table[0].contains("odds_ratio"));
  EXPECT_THROW(original_units_summary(u, Mat::Zero(10, 3)), ConfigError);
  // Without an intercept no column is a contrast against a baseline: no ratios at all.
  const Design bare = parse_design(kRows, "d.csv", schema(false));
  for (const auto& row :
       original_units_summary(original_units(bare, GlmFamily::logistic), Mat::Zero(10, 4)))
    EXPECT_FALSE(row.contains("odds_ratio")) << row.dump();
}

}  // namespace
}  // namespace dpmcmc
