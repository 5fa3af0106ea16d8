// CSV loader: correct values (spot values and exact closed-form sums on 10^5 rows), comment and
// blank-line handling, and one test per kind of bad input checking the exception type, the exit
// code and that the message names the file, line, column (with its name) and the expectation.
#include "data/csv_loader.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <string>

#include <fmt/format.h>

#include "../error_message.hpp"
#include "core/error.hpp"
#include "core/rng.hpp"
#include "temp_dir.hpp"

namespace dpmcmc {
namespace {

using test::message_of;

using testing::TempDir;

void expect_contains(const std::string& message, std::initializer_list<std::string> parts) {
  for (const auto& part : parts) {
    EXPECT_NE(message.find(part), std::string::npos)
        << "message lacks \"" << part << "\":\n  " << message;
  }
}

// Loads `text` from a file named data.csv; returns the DataError message.
std::string data_error(const std::string& text, const CsvOptions& options = {}) {
  TempDir dir;
  const auto file = dir.write("data.csv", text);
  return message_of<DataError>([&] { load_csv(file, options); });
}

TEST(CsvLoader, ReadsHeaderAndValues) {
  TempDir dir;
  const auto file = dir.write("simple.csv", "x,y\n1,2.5\n-3,0.1\n");
  const Dataset data = load_csv(file);
  ASSERT_EQ(data.rows(), 2u);
  ASSERT_EQ(data.cols(), 2u);
  EXPECT_EQ(data.columns, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(data.source, file.string());
  EXPECT_EQ(data.x(0, 0), 1.0);
  EXPECT_EQ(data.x(0, 1), 2.5);
  EXPECT_EQ(data.x(1, 0), -3.0);
  EXPECT_EQ(data.x(1, 1), 0.1);  // correctly rounded: the same double as the literal
}

TEST(CsvLoader, SkipsCommentsAndBlankLinesAndToleratesFormatting) {
  // Comments before the header and between rows, blank and blank-looking lines, CRLF line ends,
  // a byte-order mark, blanks around cells, quoted header names, a leading '+', a last line
  // without a line break.
  const std::string text =
      "\xEF\xBB\xBF# generated for a test\n"
      "  # indented comment\n"
      "\"a\", b ,c\r\n"
      "1,2,3\r\n"
      "\n"
      "# a comment between rows\n"
      "   \t \n"
      " +4.5 ,\t-5e-1, 6.\n"
      "7,8,.25";
  const Dataset data = parse_csv(text, "inline");
  EXPECT_EQ(data.columns, (std::vector<std::string>{"a", "b", "c"}));
  ASSERT_EQ(data.rows(), 3u);
  const double expected[3][3] = {{1, 2, 3}, {4.5, -0.5, 6}, {7, 8, 0.25}};
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) EXPECT_EQ(data.x(i, j), expected[i][j]) << i << "," << j;
  }
}

TEST(CsvLoader, ExtremeButFiniteValuesAreExact) {
  const Dataset data =
      parse_csv("v\n1.7976931348623157e308\n4.9e-324\n-0\n1e-300\n0.30000000000000004\n", "s");
  ASSERT_EQ(data.rows(), 5u);
  EXPECT_EQ(data.x(0, 0), 1.7976931348623157e308);  // DBL_MAX
  EXPECT_EQ(data.x(1, 0), 4.9e-324);                // smallest subnormal
  EXPECT_TRUE(std::signbit(data.x(2, 0)));          // negative zero survives
  EXPECT_EQ(data.x(3, 0), 1e-300);
  EXPECT_EQ(data.x(4, 0), 0.1 + 0.2);
}

TEST(CsvLoader, ValidatesExpectedColumnsAndAcceptsMatch) {
  CsvOptions options;
  options.expected_columns = {"y1", "y2"};
  options.model_name = "banana";
  const Dataset data = parse_csv("y1,y2\n0,1\n", "ok.csv", options);
  EXPECT_EQ(data.rows(), 1u);
}

// A 10^5-row file: the row count, every value of a random column bit for bit, and exact
// closed-form sums of two deterministic columns (Σ i = n(n−1)/2 and Σ i/4, both exactly
// representable, so any lost or duplicated row changes them).
TEST(CsvLoader, LoadsHundredThousandRowsCorrectly) {
  constexpr int n = 100000;
  auto rng = make_rng(20240601, 0);
  std::vector<double> z(n);
  std::string text = "# big file\nindex,quarter,z\n";
  for (int i = 0; i < n; ++i) {
    z[static_cast<std::size_t>(i)] = rng.normal() * std::pow(10.0, (i % 41) - 20);
    text += fmt::format("{},{},{}\n", i, i * 0.25, z[static_cast<std::size_t>(i)]);
    if (i % 997 == 0) text += "# progress comment\n\n";
  }
  TempDir dir;
  const Dataset data = load_csv(dir.write("big.csv", text));
  ASSERT_EQ(data.rows(), static_cast<std::size_t>(n));
  ASSERT_EQ(data.cols(), 3u);
  const double dn = n;
  EXPECT_EQ(data.x.col(0).sum(), dn * (dn - 1) / 2);
  EXPECT_EQ(data.x.col(1).sum(), dn * (dn - 1) / 8);
  EXPECT_EQ(data.x(0, 0), 0.0);
  EXPECT_EQ(data.x(n - 1, 0), n - 1.0);
  EXPECT_EQ(data.x(54321, 1), 54321 * 0.25);
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(std::bit_cast<std::uint64_t>(data.x(i, 2)),
              std::bit_cast<std::uint64_t>(z[static_cast<std::size_t>(i)]))
        << "row " << i;
  }
}

TEST(CsvLoader, ReadsGzipCompressedFiles) {
  TempDir dir;
  const auto file = dir / "data.csv.gz";
  const std::string text = "a,b\n1,2\n3,4\n";
  gzFile gz = gzopen(file.c_str(), "wb");
  ASSERT_NE(gz, nullptr);
  ASSERT_EQ(gzwrite(gz, text.data(), static_cast<unsigned>(text.size())),
            static_cast<int>(text.size()));
  ASSERT_EQ(gzclose(gz), Z_OK);
  const Dataset data = load_csv(file);
  ASSERT_EQ(data.rows(), 2u);
  EXPECT_EQ(data.x(1, 1), 4.0);

  // Cut the compressed stream in half: an error, not a silently shorter dataset.
  const std::string bytes = testing::read_text(file);
  const auto cut = dir.write("cut.csv.gz", bytes.substr(0, bytes.size() / 2));
  expect_contains(message_of<DataError>([&] { load_csv(cut); }), {"cut.csv.gz", "gzip"});
}

// ---- bad input, one kind per test ----

TEST(CsvLoaderErrors, MissingFileIsNoInput) {
  TempDir dir;
  const auto file = dir / "absent.csv";
  try {
    load_csv(file);
    FAIL() << "no exception";
  } catch (const NoInputError& e) {
    EXPECT_EQ(e.code(), ExitCode::no_input);
    expect_contains(e.what(), {file.string(), "does not exist"});
  }
}

TEST(CsvLoaderErrors, DirectoryIsNoInput) {
  TempDir dir;
  expect_contains(message_of<NoInputError>([&] { load_csv(dir.path()); }),
                  {dir.path().string(), "is a directory"});
}

TEST(CsvLoaderErrors, EmptyFile) {
  TempDir dir;
  const auto file = dir.write("empty.csv", "");
  try {
    load_csv(file);
    FAIL() << "no exception";
  } catch (const DataError& e) {
    EXPECT_EQ(e.code(), ExitCode::data);
    expect_contains(e.what(), {"empty.csv", "is empty", "expected a header row"});
  }
}

TEST(CsvLoaderErrors, OnlyCommentsAndBlankLines) {
  expect_contains(data_error("# nothing here\n\n   \n# still nothing\n"),
                  {"data.csv", "no header and no data", "only comments and blank lines"});
}

TEST(CsvLoaderErrors, EmptyFirstLineIsMissingHeader) {
  expect_contains(data_error("\nx,y\n1,2\n"),
                  {"data.csv, line 1", "is empty", "expected the header row"});
  // The first line that is not a comment counts: here line 3.
  expect_contains(data_error("# c\n# c\n\nx,y\n1,2\n"), {"data.csv, line 3", "is empty"});
}

TEST(CsvLoaderErrors, NumericHeaderIsMissingHeader) {
  expect_contains(data_error("# data\n1.5,2\n3,4\n"),
                  {"data.csv, line 2, column 1", "header is missing", "'1.5' is a number"});
  // One numeric cell is enough (here column 2).
  expect_contains(data_error("a,7,c\n1,2,3\n"), {"line 1, column 2", "'7' is a number"});
}

TEST(CsvLoaderErrors, EmptyColumnName) {
  expect_contains(data_error("a,,c\n1,2,3\n"),
                  {"data.csv, line 1, column 2", "header cell is empty", "expected a column name"});
}

TEST(CsvLoaderErrors, DuplicateColumnNames) {
  expect_contains(data_error("a,b,a\n1,2,3\n"),
                  {"data.csv, line 1, column 3", "duplicate column name 'a'", "also column 1"});
}

TEST(CsvLoaderErrors, RaggedRowWithTooFewCells) {
  // Line 4 (after a comment) has 2 cells; the first missing column is 3, named 'c'.
  expect_contains(
      data_error("a,b,c\n1,2,3\n# c\n4,5\n"),
      {"data.csv, line 4, column 3 ('c')", "has 2 cells", "expected 3", "header at line 1"});
}

TEST(CsvLoaderErrors, RaggedRowWithTooManyCells) {
  expect_contains(data_error("a,b\n1,2\n3,4,5,6\n"),
                  {"data.csv, line 3, column 3", "has 4 cells", "expected 2"});
  expect_contains(data_error("a,b\n1,2,\n"), {"line 2", "has 3 cells", "trailing comma"});
}

TEST(CsvLoaderErrors, NonNumericCellIsQuoted) {
  expect_contains(data_error("a,b\n1,2\n3,abc\n"),
                  {"data.csv, line 3, column 2 ('b')", "expected a number", "found 'abc'"});
  // A number followed by junk is not a number either.
  expect_contains(data_error("a,b\n1.5kg,2\n"), {"line 2, column 1 ('a')", "found '1.5kg'"});
  expect_contains(data_error("a,b\n0x10,2\n"), {"column 1 ('a')", "found '0x10'"});
}

TEST(CsvLoaderErrors, EmptyCell) {
  expect_contains(data_error("a,b,c\n1,,3\n"),
                  {"data.csv, line 2, column 2 ('b')", "cell is empty", "expected a number"});
}

TEST(CsvLoaderErrors, WrongSeparatorGetsAHint) {
  expect_contains(data_error("a,b\n1;2\n"), {"line 2, column 1 ('a')", "found '1;2'", "';'"});
}

TEST(CsvLoaderErrors, NaNCellIsRefused) {
  expect_contains(data_error("a,b\n1,2\n3,NaN\n"),
                  {"data.csv, line 3, column 2 ('b')", "non-finite value 'NaN' is refused",
                   "expected a finite number"});
}

TEST(CsvLoaderErrors, InfiniteCellIsRefused) {
  expect_contains(data_error("a,b\n-inf,2\n"),
                  {"data.csv, line 2, column 1 ('a')", "non-finite value '-inf'"});
  expect_contains(data_error("a,b\n1,Infinity\n"), {"column 2 ('b')", "'Infinity'"});
}

TEST(CsvLoaderErrors, OutOfRangeNumber) {
  expect_contains(data_error("a\n1e400\n"),
                  {"data.csv, line 2, column 1 ('a')", "'1e400'", "outside the range of a double"});
  expect_contains(data_error("a\n1e-400\n"), {"line 2, column 1 ('a')", "'1e-400'"});
}

TEST(CsvLoaderErrors, HeaderWithoutRows) {
  expect_contains(
      data_error("a,b\n# only a comment\n\n"),
      {"data.csv", "header at line 1", "no data rows", "at least one row of 2 numbers"});
}

TEST(CsvLoaderErrors, WrongColumnCountForModel) {
  CsvOptions options;
  options.expected_columns = {"y1", "y2"};
  options.model_name = "banana";
  expect_contains(data_error("# c\ny1,y2,y3\n1,2,3\n", options),
                  {"data.csv, line 2", "model 'banana' expects 2 columns (y1, y2)",
                   "header has 3 columns (y1, y2, y3)"});
}

TEST(CsvLoaderErrors, WrongColumnNameForModel) {
  CsvOptions options;
  options.expected_columns = {"y1", "y2"};
  options.model_name = "banana";
  expect_contains(data_error("y2,y1\n1,2\n", options),
                  {"data.csv, line 1, column 1", "model 'banana' expects the column named 'y1'",
                   "found 'y2'", "y1, y2"});
}

TEST(CsvLoaderErrors, SemicolonFileAgainstModelGetsAHint) {
  CsvOptions options;
  options.expected_columns = {"y1", "y2"};
  options.model_name = "gauss";
  expect_contains(data_error("y1;y2\n1;2\n", options),
                  {"model 'gauss' expects 2 columns", "has 1 column (y1;y2)", "only commas"});
}

}  // namespace
}  // namespace dpmcmc
