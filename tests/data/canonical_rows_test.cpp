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

namespace dpmcmc {
namespace {

// The hash the ledger has used since it was built (commit 07d014f computed these values): a
// change of the algorithm would silently give every registered dataset a fresh budget.
TEST(CanonicalRows, TheLedgersHashIsStable) {
  EXPECT_EQ(hash(kTable), "d6a59072977cf25574864af8c8aaabaacc8dd3041224ed61741ea3dbeafef5f3");
  EXPECT_EQ(hash("b,a\n,x\n1.0,\n+2,3e0\n-0.0,1e-320\n"),
            "a8739b154428e77cf807690639a394ed831c172cebe9cc1efd368854a7f513b0");
  EXPECT_EQ(hash("x.1,x.2\n1,2\n3,4\n5,6\n"),
            "877d162070c91adaf9065112ed71edd8281c970de9368ecbe5287007ae854042");
}

}  // namespace
}  // namespace dpmcmc
