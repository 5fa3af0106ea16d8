// CSV writer: the exact text for a small dataset (values written by hand), the bit-exact round
// trip write → load over values spanning the whole double range, refusal of datasets that could
// not be read back, and the atomic replace.
#include "data/csv_writer.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "data/csv_loader.hpp"
#include "temp_dir.hpp"

namespace dpmcmc {
namespace {

using testing::TempDir;

Dataset small() {
  Dataset data;
  data.columns = {"a", "b"};
  data.x.resize(3, 2);
  data.x << 1, 0.1, -2.5, 1e-7, 1e21, 1.0 / 3.0;
  return data;
}

TEST(CsvWriter, WritesShortestRoundTripText) {
  // Shortest forms that parse back to the same doubles (1/3 needs 16 significant digits).
  EXPECT_EQ(format_csv(small()), "a,b\n1,0.1\n-2.5,1e-07\n1e+21,0.3333333333333333\n");
}

TEST(CsvWriter, RoundTripIsBitExact) {
  // Random mantissas at every binary exponent from −1074 (subnormals) to 1023, plus the edges.
  auto rng = make_rng(7, 0);
  const int n = 4000;
  Dataset data;
  data.columns = {"u", "v", "w"};
  data.x.resize(n, 3);
  for (int i = 0; i < n; ++i) {
    const int exponent = -1074 + (i * 2097) / n;
    data.x(i, 0) = std::ldexp(rng.uniform() + 0.5, exponent) * (i % 2 ? -1 : 1);
    data.x(i, 1) = rng.normal();
    data.x(i, 2) = static_cast<double>(i) - n / 2;
  }
  data.x(0, 1) = std::numeric_limits<double>::max();
  data.x(1, 1) = std::numeric_limits<double>::denorm_min();
  data.x(2, 1) = -0.0;
  data.x(3, 1) = std::numeric_limits<double>::min();
  data.x(4, 1) = std::nextafter(1.0, 2.0);

  TempDir dir;
  const auto file = dir / "round.csv";
  write_csv(data, file);
  const Dataset back = load_csv(file);
  ASSERT_EQ(back.columns, data.columns);
  ASSERT_EQ(back.rows(), data.rows());
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < 3; ++j) {
      ASSERT_EQ(std::bit_cast<std::uint64_t>(back.x(i, j)),
                std::bit_cast<std::uint64_t>(data.x(i, j)))
          << "row " << i << " column " << j << " value " << data.x(i, j);
    }
  }
}

TEST(CsvWriter, ReplacesAtomicallyAndLeavesNoTemporary) {
  TempDir dir;
  const auto file = dir / "sub" / "dir" / "out.csv";  // parents are created
  write_csv(small(), file);
  Dataset other = small();
  other.x(0, 0) = 42;
  write_csv(other, file);
  EXPECT_EQ(load_csv(file).x(0, 0), 42.0);
  EXPECT_FALSE(std::filesystem::exists(file.string() + ".tmp"));
}

TEST(CsvWriter, RefusesNonFiniteValuesAndKeepsTheOldFile) {
  TempDir dir;
  const auto file = dir / "out.csv";
  write_csv(small(), file);
  const std::string before = testing::read_text(file);
  Dataset bad = small();
  bad.x(2, 1) = std::numeric_limits<double>::quiet_NaN();
  try {
    write_csv(bad, file);
    FAIL() << "no exception";
  } catch (const DataError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("row 3, column 2 ('b')"), std::string::npos) << m;
    EXPECT_NE(m.find("expected a finite number"), std::string::npos) << m;
  }
  EXPECT_EQ(testing::read_text(file), before);
}

TEST(CsvWriter, RefusesHeadersThatWouldNotReadBack) {
  for (const char* name : {"", "a,b", "#a", "1.5", " a", "a\nb", "b"}) {
    Dataset bad = small();
    bad.columns[0] = name;  // "b" duplicates column 2
    try {
      format_csv(bad);
      ADD_FAILURE() << "accepted column name '" << name << "'";
    } catch (const DataError& e) {
      // The duplicate is reported where it occurs (column 2), every other name at column 1.
      const std::string where = std::string(name) == "b" ? "column 2 name 'b' duplicates column 1"
                                                         : "column 1 name '" + std::string(name);
      EXPECT_NE(std::string(e.what()).find(where), std::string::npos) << e.what();
    }
  }
}

TEST(CsvWriter, UnwritablePathIsOutputError) {
  TempDir dir;
  const auto blocker = dir.write("file", "not a directory");
  const auto target = blocker / "out.csv";  // a path below a regular file
  try {
    write_csv(small(), target);
    FAIL() << "no exception";
  } catch (const OutputError& e) {
    EXPECT_EQ(e.code(), ExitCode::cant_create);
    EXPECT_NE(std::string(e.what()).find(blocker.string()), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace dpmcmc
