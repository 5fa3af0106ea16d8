// The design built from a CSV and its schema: the encoding, the public bounds it promises, the
// curator's counts, and each refusal with file, line and column.
#include "data/design.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"

namespace dpmcmc {
namespace {

using nlohmann::json;

DataSchema schema(bool intercept = true) {
  json doc = json::parse(R"({"columns": [
    {"name": "id", "role": "ignored"},
    {"name": "age", "role": "feature", "type": "real", "bounds": [20, 80], "outside": "clip"},
    {"name": "dose", "role": "feature", "type": "real", "bounds": [-2, 6], "rescale": false,
     "missing": {"impute": 1}},
    {"name": "sex", "role": "feature", "type": "binary", "levels": ["f", "m"]},
    {"name": "arm", "role": "feature", "type": "categorical", "levels": ["a", "b", "c"]},
    {"name": "died", "role": "target", "type": "binary"}]})");
  doc["intercept"] = intercept;
  return parse_schema(doc, "s.json");
}

// Columns in another order than the schema's, quoted labels, NA imputed, a value clipped.
constexpr const char* kCsv =
    "died,arm,\"sex\",dose,age,id\n"
    "1,a,f,0.5,50,x1\n"
    "0,\"c\",m,NA,95,x2\n"
    "1,b,m,-2,20,x3\n"
    "0,c,f,6,80,x4\n"
    "1,a,m,3,35,x5\n"
    "0,b,f,2,65,x6\n"
    "1,c,m,1,44,x7\n";

TEST(Design, EncodesByTheSchemaOnly) {
  const Design d = parse_design(kCsv, "d.csv", schema());
  EXPECT_EQ(d.coefficient_names,
            (std::vector<std::string>{"intercept", "age", "dose", "sex", "arm_b", "arm_c"}));
  EXPECT_EQ(d.data.columns,
            (std::vector<std::string>{"x.1", "x.2", "x.3", "x.4", "x.5", "x.6", "y"}));
  ASSERT_EQ(d.data.rows(), 7u);
  const Mat& x = d.data.x;
  // Row 1: age 50 → (50 − 50)/30 = 0; dose raw; sex f = 0; arm a is the reference.
  EXPECT_EQ(x.row(0), (Eigen::RowVectorXd(7) << 1, 0, 0.5, 0, 0, 0, 1).finished());
  // Row 2: age 95 clipped to 80 → 1; dose NA → 1; m = 1; arm c.
  EXPECT_EQ(x.row(1), (Eigen::RowVectorXd(7) << 1, 1, 1, 1, 0, 1, 0).finished());
  EXPECT_EQ(x(2, 1), -1.0);  // age 20 → −1
  EXPECT_EQ(x(2, 4), 1.0);   // arm b
  // Bounds: rescaled 1, dose max(|−2|, |6|) = 6, each categorical contributes 1 to R².
  EXPECT_EQ(d.column_bounds, (std::vector<double>{1, 1, 6, 1, 1, 1}));
  EXPECT_DOUBLE_EQ(d.row_norm_bound, std::sqrt(1 + 1 + 36 + 1 + 1));
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    EXPECT_LE(x.row(i).head(6).norm(), d.row_norm_bound);
    for (Eigen::Index j = 0; j < 6; ++j) EXPECT_LE(std::abs(x(i, j)), d.column_bounds[j]);
  }
  // The curator's counts.
  const json rep = d.report.to_json();
  EXPECT_EQ(rep["columns"][0], (json{{"column", "age"}, {"clipped", 1}, {"imputed", 0}}));
  EXPECT_EQ(rep["columns"][1], (json{{"column", "dose"}, {"clipped", 0}, {"imputed", 1}}));
}

// A row with every feature at its largest magnitude (and a non-reference level) reaches R.
TEST(Design, TheRowNormBoundIsReachedByTheWorstRow) {
  std::string csv = "died,arm,sex,dose,age,id\n1,c,m,6,80,w\n";
  for (int i = 0; i < 6; ++i) csv += "0,a,f,1,50,x\n";
  const Design d = parse_design(csv, "d.csv", schema());
  EXPECT_DOUBLE_EQ(d.data.x.row(0).head(6).norm(), d.row_norm_bound);
  for (Eigen::Index i = 1; i < 7; ++i) EXPECT_LT(d.data.x.row(i).head(6).norm(), d.row_norm_bound);
}

// The impute value is checked against the schema before any row is read, whether or not a
// cell is missing; names the models use for their own parameters are refused.
TEST(Design, SchemaLevelProblemsFailWhateverTheRows) {
  const auto with = [](const char* column) {
    json doc = json::parse(R"({"columns": [
      {"name": "y", "role": "target", "type": "binary"}]})");
    doc["columns"].push_back(json::parse(column));
    return parse_schema(doc, "s.json");
  };
  const std::string csv = "y,a\n1,1\n0,2\n1,3\n";
  for (
      const char* bad :
      {R"({"name": "a", "role": "feature", "type": "real", "bounds": [0, 5], "missing": {"impute": "x"}})",
       R"({"name": "a", "role": "feature", "type": "real", "bounds": [0, 5], "outside": "clip", "missing": {"impute": 9}})",
       R"({"name": "a", "role": "feature", "type": "count", "bounds": [0, 5], "missing": {"impute": 1.5}})",
       R"({"name": "a", "role": "feature", "type": "categorical", "levels": ["1", "2", "3"], "missing": {"impute": "4"}})",
       R"({"name": "log_sigma", "role": "feature", "type": "real", "bounds": [0, 5]})"}) {
    std::string text = csv;
    if (std::string(bad).find("log_sigma") != std::string::npos)
      text = "y,log_sigma\n1,1\n0,2\n1,3\n";
    EXPECT_THROW(parse_design(text, "d.csv", with(bad)), ConfigError) << bad;
  }
  EXPECT_THROW(parse_schema(json::parse(R"({"columns": [
      {"name": "y", "role": "target", "type": "real", "bounds": [-1e300, 1e300]}]})"),
                            "s.json"),
               ConfigError);
  EXPECT_THROW(parse_schema(json::parse(R"({"columns": [
      {"name": "y", "role": "target", "type": "categorical", "levels": ["a", "NA"]}]})"),
                            "s.json"),
               ConfigError);
}

TEST(Design, WithoutInterceptEveryLevelHasAColumn) {
  const Design d = parse_design(kCsv, "d.csv", schema(false));
  EXPECT_EQ(d.coefficient_names,
            (std::vector<std::string>{"age", "dose", "sex", "arm_a", "arm_b", "arm_c"}));
  EXPECT_EQ(d.data.x.row(0).head(6).sum(), 0.5 + 1);  // arm a now 1
  EXPECT_DOUBLE_EQ(d.row_norm_bound, std::sqrt(1 + 36 + 1 + 1));
}

void expect_refused(const std::string& csv, const std::string& fragment) {
  try {
    parse_design(csv, "d.csv", schema());
    ADD_FAILURE() << "accepted: " << csv;
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("d.csv"), std::string::npos) << e.what();
  }
}

TEST(Design, RefusesWhatTheSchemaDoesNotAllow) {
  const std::string head = "died,arm,sex,dose,age,id\n";
  std::string rows;
  for (int i = 0; i < 7; ++i) rows += "1,a,f,0.5,50,x\n";
  expect_refused(head + "2,a,f,0.5,50,x\n" + rows, "line 2, column 1 ('died'): '2' is not 0 or 1");
  expect_refused(head + "1,d,f,0.5,50,x\n" + rows,
                 "'d' is not one of the declared levels (a, b, c)");
  expect_refused(head + "1,a,x,0.5,50,x\n" + rows, "column 3 ('sex')");
  expect_refused(head + "1,a,f,9,50,x\n" + rows, "9 is outside the declared bounds [-2, 6]");
  expect_refused(head + "1,a,f,0.5,NA,x\n" + rows, "line 2, column 5 ('age'): missing value");
  expect_refused(head + "1,a,f,0.5,abc,x\n" + rows, "'abc' is not a finite number");
  expect_refused(head + "1,a,f,0.5,inf,x\n" + rows, "'inf' is not a finite number");
  expect_refused(head + "1,a,f,0.5,+-3,x\n" + rows, "'+-3' is not a finite number");
  expect_refused("died,arm,sex,dose,age,id,extra\n1,a,f,0.5,50,x,3\n",
                 "column 7 ('extra'): not declared");
  expect_refused("died,arm,sex,dose,id\n1,a,f,0.5,x\n", "'age'");
  expect_refused(head, "no data rows");
  expect_refused(head + "1,a,f,0.5,50,x\n", "1 rows for 6 coefficients");
}

TEST(Design, CountsMustBeWhole) {
  const DataSchema s = parse_schema(json::parse(R"({"columns": [
    {"name": "n", "role": "target", "type": "count", "bounds": [0, 10]}]})"),
                                    "s.json");
  EXPECT_THROW(parse_design("n\n1\n2.5\n", "d.csv", s), DataError);
  EXPECT_EQ(parse_design("n\n1\n2\n", "d.csv", s).data.x.col(1).sum(), 3.0);
}

// The affine map from a feature's own units to its design column: x = scale·v + shift, checked
// against the encoded rows of kCsv (age 50 → 0, 80 → 1, 20 → −1; dose unrescaled).
TEST(Design, ColumnScaleAndShiftReproduceTheEncoding) {
  const Design d = parse_design(kCsv, "d.csv", schema());
  ASSERT_EQ(d.column_scale.size(), d.coefficient_names.size());
  ASSERT_EQ(d.column_shift.size(), d.coefficient_names.size());
  EXPECT_DOUBLE_EQ(d.column_scale[1], 1.0 / 30.0);  // age on [20, 80]: 2/(80 − 20)
  EXPECT_DOUBLE_EQ(d.column_shift[1], -50.0 / 30.0);
  for (const std::size_t j : {0u, 2u, 3u, 4u, 5u}) {
    EXPECT_EQ(d.column_scale[j], 1.0) << j;
    EXPECT_EQ(d.column_shift[j], 0.0) << j;
  }
  const double ages[] = {50, 80, 20, 80, 35, 65, 44};  // kCsv's, the 95 clipped to 80
  for (Eigen::Index i = 0; i < 7; ++i)
    EXPECT_NEAR(d.data.x(i, 1), d.column_scale[1] * ages[i] + d.column_shift[1], 1e-15) << i;
  EXPECT_EQ(empty_design(schema()).column_scale, d.column_scale);
}

// New rows to score: the target column may be absent (y is NaN) and fewer rows than
// coefficients are fine; a bad cell is still named with file, line and column.
TEST(Design, NewRowsNeedNoTargetAndAnyCount) {
  const Design d = parse_new_rows("age,dose,sex,arm,id\n50,0.5,f,b,z\n", "new.csv", schema());
  ASSERT_EQ(d.data.rows(), 1u);
  EXPECT_EQ(d.data.x.row(0).head(6), (Eigen::RowVectorXd(6) << 1, 0, 0.5, 0, 1, 0).finished());
  EXPECT_TRUE(std::isnan(d.data.x(0, 6)));
  // A target column in new rows is never read: filled or empty, y is NaN.
  const Design with_y = parse_new_rows("died,age,dose,sex,arm,id\n1,50,0.5,f,b,z\n,50,0.5,f,b,z\n",
                                       "new.csv", schema());
  ASSERT_EQ(with_y.data.rows(), 2u);
  EXPECT_TRUE(std::isnan(with_y.data.x(0, 6)));
  EXPECT_TRUE(std::isnan(with_y.data.x(1, 6)));
  EXPECT_EQ(with_y.data.x.row(1).head(6), d.data.x.row(0).head(6));
  try {
    parse_new_rows("age,dose,sex,arm,id\n50,0.5,x,b,z\n", "new.csv", schema());
    FAIL() << "a label outside the levels was accepted";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("new.csv, line 2, column 3 ('sex')"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(parse_design("age,dose,sex,arm,id\n50,0.5,f,b,z\n", "d.csv", schema()), DataError);
}

}  // namespace
}  // namespace dpmcmc
