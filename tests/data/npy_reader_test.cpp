// The .npy reader (data/npy_reader.hpp) against files written here byte by byte as NEP 1
// specifies (python/tests/test_npy.py checks files numpy.save wrote), and every refusal.
#include "data/npy_reader.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "data/canonical_rows.hpp"
#include "temp_dir.hpp"

namespace dpmcmc {
namespace {

// A .npy file of `values` (in file order) with the header dict `dict`, format `major`.0, padded
// with spaces and a newline to a multiple of 64 bytes as numpy does.
std::string npy(const std::string& dict, const std::vector<double>& values, int major = 1) {
  const std::size_t prefix = major == 1 ? 10 : 12;
  std::string header = dict;
  while ((prefix + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  const std::size_t len = header.size();
  out += static_cast<char>(len & 0xff);
  out += static_cast<char>((len >> 8) & 0xff);
  if (major != 1) out += std::string(2, '\0');
  out += header;
  std::string bytes(values.size() * 8, '\0');
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return out + bytes;
}

std::string dict(const char* descr, bool fortran, const char* shape) {
  return std::string("{'descr': '") + descr +
         "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': " + shape + ", }";
}

// Rows (1, 2), (3, 4), (5, 6).
const std::vector<double> kRowMajor{1, 2, 3, 4, 5, 6};
const std::vector<double> kColumnMajor{1, 3, 5, 2, 4, 6};

void expect_table(const Dataset& d) {
  ASSERT_EQ(d.rows(), 3u);
  ASSERT_EQ(d.cols(), 2u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(d.x(i, 0), 2 * i + 1);
    EXPECT_EQ(d.x(i, 1), 2 * i + 2);
  }
}

TEST(NpyReader, ReadsRowAndColumnMajorArraysOfEveryVersion) {
  testing::TempDir dir;
  expect_table(load_npy(dir.write("c.npy", npy(dict("<f8", false, "(3, 2)"), kRowMajor))));
  expect_table(load_npy(dir.write("f.npy", npy(dict("<f8", true, "(3, 2)"), kColumnMajor))));
  expect_table(load_npy(dir.write("v2.npy", npy(dict("<f8", false, "(3, 2)"), kRowMajor, 2))));
  expect_table(load_npy(dir.write("v3.npy", npy(dict("<f8", false, "(3, 2)"), kRowMajor, 3))));
  const Dataset one = load_npy(dir.write("v.npy", npy(dict("<f8", false, "(3,)"), {7, 8, 9})));
  ASSERT_EQ(one.cols(), 1u);
  EXPECT_EQ(one.x(2, 0), 9);
  EXPECT_EQ(one.columns, std::vector<std::string>{"x1"});
}

// Row-major files larger than the reader's block are scattered block by block.
TEST(NpyReader, RowMajorAcrossManyBlocks) {
  testing::TempDir dir;
  const std::size_t n = 100000, d = 3;  // 2.4 MB: three 1 MiB blocks
  std::vector<double> v(n * d);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < d; ++j) v[i * d + j] = static_cast<double>(i) + 0.25 * j;
  const Dataset data = load_npy(dir.write("big.npy", npy(dict("<f8", false, "(100000, 3)"), v)));
  for (const std::size_t i : {std::size_t{0}, std::size_t{43690}, n - 1})
    for (std::size_t j = 0; j < d; ++j)
      EXPECT_EQ(data.x(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)),
                static_cast<double>(i) + 0.25 * j);
}

TEST(NpyReader, ColumnsTakeTheModelsNamesOrAreRefused) {
  testing::TempDir dir;
  const auto file = dir.write("c.npy", npy(dict("<f8", false, "(3, 2)"), kRowMajor));
  CsvOptions options;
  options.expected_columns = {"x1", "x2"};
  options.model_name = "banana";
  EXPECT_EQ(load_npy(file, options).columns, options.expected_columns);
  options.expected_columns = {"a", "b", "c"};
  try {
    load_npy(file, options);
    FAIL();
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("model 'banana' expects 3 (a, b, c)"), std::string::npos)
        << e.what();
  }
}

TEST(NpyReader, TheSameValuesAreTheSameDatasetAsInCsv) {
  testing::TempDir dir;
  const auto file = dir.write("c.npy", npy(dict("<f8", false, "(3, 2)"), kRowMajor));
  // Named as a preset's columns (the banana's x.1, x.2), as `sample` reads the array.
  const std::vector<std::string> names{"x.1", "x.2"};
  EXPECT_EQ(canonical_file_hash(file, names).hash,
            canonical_rows_hash("x.2,x.1\n4,3\n2,1\n6.0,5\n", "t.csv").hash);
  EXPECT_NE(canonical_file_hash(file, names).hash,
            canonical_rows_hash("x.1,x.2\n1,2\n3,4\n5,7\n", "t").hash);
  EXPECT_NE(canonical_file_hash(file, {"a", "b"}).hash, canonical_file_hash(file, names).hash);
  EXPECT_THROW(canonical_file_hash(file), UsageError);  // no names: refused, not guessed
}

void expect_refused(const std::string& contents, const std::string& fragment) {
  testing::TempDir dir;
  const auto file = dir.write("bad.npy", contents);
  try {
    load_npy(file);
    FAIL() << "accepted; expected: " << fragment;
  } catch (const DataError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(file.string()), std::string::npos) << m;
    EXPECT_NE(m.find(fragment), std::string::npos) << m;
  }
}

TEST(NpyReader, RefusesWhatItCannotRead) {
  const std::string good = npy(dict("<f8", false, "(3, 2)"), kRowMajor);
  expect_refused("PK\x03\x04 a zip file", "\\x93NUMPY");
  expect_refused(npy(dict("<f4", false, "(3, 2)"), kRowMajor), "dtype '<f4'");
  expect_refused(npy(dict(">f8", false, "(3, 2)"), kRowMajor), "dtype '>f8'");
  expect_refused(npy(dict("<f8", false, "(3, 2, 1)"), kRowMajor), "rank 3");
  expect_refused(npy(dict("<f8", false, "(0, 2)"), {}), "has no values");
  expect_refused(good.substr(0, good.size() - 8), "truncated");
  expect_refused(good + "extra", "trailing data");
  expect_refused(good.substr(0, 30), "ends inside the header");
  std::string version = good;
  version[6] = 9;
  expect_refused(version, "format version 9.0");
  expect_refused(npy("{'descr': '<f8', 'shape': (3, 2), }", kRowMajor), "no 'fortran_order'");
  std::vector<double> nan = kRowMajor;
  nan[3] = std::numeric_limits<double>::quiet_NaN();
  expect_refused(npy(dict("<f8", false, "(3, 2)"), nan), "row 2 (0-based array index 1), column 2");
  testing::TempDir dir;
  EXPECT_THROW(load_npy(dir / "missing.npy"), NoInputError);
}

TEST(NpyReader, RecognisesTheExtension) {
  EXPECT_TRUE(is_npy_file("a/b.npy"));
  EXPECT_TRUE(is_npy_file("B.NPY"));
  EXPECT_FALSE(is_npy_file("b.csv"));
  EXPECT_FALSE(is_npy_file("npy"));
}

}  // namespace
}  // namespace dpmcmc

namespace dpmcmc {
namespace {

// A header's claims are checked against the file before anything is allocated.
TEST(NpyReader, RefusesImpossibleShapesAndHugeHeaders) {
  testing::TempDir dir;
  const auto huge = dir.write("huge.npy", npy("{'descr': '<f8', 'fortran_order': False, 'shape': "
                                              "(999999999999999999, 999999999999999999), }",
                                              {1, 2}));
  EXPECT_THROW(load_npy(huge), DataError);
  std::string big_header = "\x93NUMPY";
  big_header += '\x02';
  big_header += '\0';
  big_header += std::string("\xff\xff\xff\x7f", 4);  // a 2 GiB header length
  EXPECT_THROW(load_npy(dir.write("header.npy", big_header + "{")), DataError);
  EXPECT_THROW(load_npy(dir.path()), NoInputError);  // a directory
}

}  // namespace
}  // namespace dpmcmc
