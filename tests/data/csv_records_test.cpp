// CsvRecords (RFC 4180 text records): quoting, line ends, BOM, comments, and each refusal with
// file and line.
#include "data/csv_records.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace dpmcmc {
namespace {

std::vector<std::vector<std::string>> all_records(std::string_view text) {
  CsvRecords r(text, "t.csv");
  std::vector<std::vector<std::string>> out{r.header()};
  std::vector<std::string> cells;
  while (r.next(cells)) out.push_back(cells);
  return out;
}

TEST(CsvRecords, QuotedCellsKeepCommasQuotesAndLineBreaks) {
  const auto rows = all_records(
      "\xEF\xBB\xBF# a comment\n\"name\", note ,x\r\n"
      "\"Smith, J.\",\"said \"\"hi\"\"\", 1.5 \r\n"
      "\n"
      "plain,\"two\nlines\",NA\n"
      ",,\n");
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"name", "note", "x"}));
  EXPECT_EQ(rows[1], (std::vector<std::string>{"Smith, J.", "said \"hi\"", "1.5"}));
  EXPECT_EQ(rows[2], (std::vector<std::string>{"plain", "two\nlines", "NA"}));
  EXPECT_EQ(rows[3], (std::vector<std::string>{"", "", ""}));
}

// After the header '#' is data, and a blank line of a one-column file is a missing cell (a row
// must never disappear silently); with several columns a blank line is skipped.
TEST(CsvRecords, AfterTheHeaderCommentsAreDataAndBlankLinesCount) {
  EXPECT_EQ(all_records("# note\nid,x\n#12,3\n\n7,8\n"),
            (std::vector<std::vector<std::string>>{{"id", "x"}, {"#12", "3"}, {"7", "8"}}));
  EXPECT_EQ(all_records("x\n1\n\n3\n"),
            (std::vector<std::vector<std::string>>{{"x"}, {"1"}, {""}, {"3"}}));
}

TEST(CsvRecords, LineNumbersCountLinesInsideQuotes) {
  CsvRecords r("a,b\n\"x\ny\",1\n2,3\n", "t.csv");
  std::vector<std::string> cells;
  ASSERT_TRUE(r.next(cells));
  EXPECT_EQ(r.line(), 2u);
  ASSERT_TRUE(r.next(cells));
  EXPECT_EQ(r.line(), 4u);
  EXPECT_FALSE(r.next(cells));
}

void expect_refused(std::string_view text, const std::string& fragment) {
  try {
    all_records(text);
    ADD_FAILURE() << "accepted: " << text;
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("t.csv"), std::string::npos) << e.what();
  }
}

TEST(CsvRecords, RefusesMalformedText) {
  expect_refused("", "empty file");
  expect_refused("a,b\n1,2,3\n", "line 2: 3 cells, expected 2");
  expect_refused("a,b\n\"1,2\n", "not closed");
  expect_refused("a,b\n\"1\"x,2\n", "text after a closing quote");
  expect_refused("a,,b\n", "empty column name");
  expect_refused("a,b,a\n", "'a' appears twice");
}

}  // namespace
}  // namespace dpmcmc
