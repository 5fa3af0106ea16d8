// The ledger's dataset identity (data/canonical_rows.hpp): the same records written differently
// hash alike; any change of a record does not.
#include "data/canonical_rows.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace dpmcmc {
namespace {

const char* const kTable = "age,outcome,site\n34,1,north\n51.5,0,south\n29,1,NA\n";

std::string hash(const std::string& text) {
  return canonical_rows_hash(text, "t.csv").hash;
}

TEST(CanonicalRows, CountsRowsAndColumns) {
  const auto r = canonical_rows_hash(kTable, "t.csv");
  EXPECT_EQ(r.rows, 3u);
  EXPECT_EQ(r.columns, 3u);
  EXPECT_EQ(r.hash.size(), 64u);
}

TEST(CanonicalRows, ShuffledRowsAreTheSameDataset) {
  EXPECT_EQ(hash(kTable), hash("age,outcome,site\n29,1,NA\n34,1,north\n51.5,0,south\n"));
}

TEST(CanonicalRows, ReorderedColumnsAreTheSameDataset) {
  EXPECT_EQ(hash(kTable), hash("site,age,outcome\nnorth,34,1\nsouth,51.5,0\nNA,29,1\n"));
}

TEST(CanonicalRows, NumbersWrittenDifferentlyAreTheSame) {
  EXPECT_EQ(hash(kTable), hash("age,outcome,site\n34.0,1e0,north\n5.15e1,0.000,south\n29,1.,NA\n"));
}

TEST(CanonicalRows, QuotingLineEndsAndBomAreTheSame) {
  EXPECT_EQ(
      hash(kTable),
      hash("\xEF\xBB\xBF\"age\",outcome,site\r\n34,1,\"north\"\r\n51.5,0,south\r\n29,1,NA\r\n"));
}

TEST(CanonicalRows, SignsAndCommentLinesAsTheLoaderReadsThem) {
  EXPECT_EQ(hash(kTable), hash("age,outcome,site\n+34,+1,north\n51.5,0,south\n29,1,NA\n"));
  EXPECT_EQ(
      hash(kTable),
      hash("# made by hand\nage,outcome,site\n34,1,north\n# a note\n51.5,0,south\n29,1,NA\n"));
}

TEST(CanonicalRows, AnyChangedRecordIsAnotherDataset) {
  EXPECT_NE(hash(kTable), hash("age,outcome,site\n34,1,north\n51.5,0,south\n29,0,NA\n"));
  EXPECT_NE(hash(kTable), hash("age,outcome,site\n34,1,north\n51.5,0,south\n"));
  EXPECT_NE(hash(kTable), hash("age,outcome,site\n34,1,north\n51.5,0,south\n29,1,NA\n29,1,NA\n"));
  EXPECT_NE(hash(kTable), hash("age,outcome,region\n34,1,north\n51.5,0,south\n29,1,NA\n"));
  // Cells are length-prefixed: moving a boundary between two cells changes the hash.
  EXPECT_NE(hash("a,b\nxy,z\n"), hash("a,b\nx,yz\n"));
}

TEST(CanonicalRows, MalformedCsvIsADataError) {
  EXPECT_THROW(canonical_rows_hash("a,b\n1,2,3\n", "t.csv"), DataError);
}

}  // namespace
}  // namespace dpmcmc
