// IDX reader: synthetic gzip IDX files written with zlib in a temporary directory are read back
// byte for byte, and every kind of malformed file gives the right error class with a message
// naming the file and the offset or field. The real Fashion-MNIST files are checked in
// fashion_mnist_test.cpp.
#include "data/idx_reader.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <string>
#include <vector>

#include "../error_message.hpp"
#include "core/error.hpp"
#include "temp_dir.hpp"

namespace dpmcmc {
namespace {

using test::message_of;

using testing::TempDir;

void put_u32(std::string& s, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) s.push_back(static_cast<char>((v >> shift) & 0xff));
}

std::string header(std::uint32_t magic, const std::vector<std::uint32_t>& dims) {
  std::string s;
  put_u32(s, magic);
  for (auto d : dims) put_u32(s, d);
  return s;
}

// Writes `bytes` gzip-compressed with zlib's gzwrite.
std::filesystem::path write_gz(const TempDir& dir, const std::string& name,
                               const std::string& bytes) {
  const auto path = dir / name;
  gzFile f = gzopen(path.c_str(), "wb");
  if (f == nullptr) throw std::runtime_error("gzopen failed");
  if (!bytes.empty()) {
    const int wrote = gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size()));
    if (wrote != static_cast<int>(bytes.size())) throw std::runtime_error("gzwrite failed");
  }
  gzclose(f);
  return path;
}

// 3 images of 2×4 pixels with values 0, 1, …, 23 (pixel k = k, so the layout is checkable).
std::string three_images() {
  std::string s = header(0x00000803, {3, 2, 4});
  for (int k = 0; k < 24; ++k) s.push_back(static_cast<char>(k * 10));
  return s;
}

std::string labels(const std::vector<int>& values) {
  std::string s = header(0x00000801, {static_cast<std::uint32_t>(values.size())});
  for (int v : values) s.push_back(static_cast<char>(v));
  return s;
}

TEST(IdxReader, ReadsGzipImagesAndLabelsBack) {
  TempDir dir;
  const auto img = write_gz(dir, "img.gz", three_images());
  const auto lab = write_gz(dir, "lab.gz", labels({9, 0, 4}));
  const IdxLabeledImages data = read_idx_labeled(img, lab);
  EXPECT_EQ(data.images.count, 3u);
  EXPECT_EQ(data.images.rows, 2u);
  EXPECT_EQ(data.images.cols, 4u);
  ASSERT_EQ(data.images.pixels.size(), 24u);
  for (int k = 0; k < 24; ++k) EXPECT_EQ(data.images.pixels[k], k * 10);
  // Image 1, row 1, column 2 is element (1·2 + 1)·4 + 2 = 14 of the row-major payload.
  EXPECT_EQ(data.images.pixels[(1 * 2 + 1) * 4 + 2], 140);
  EXPECT_EQ(data.labels, (std::vector<std::uint8_t>{9, 0, 4}));
}

TEST(IdxReader, ReadsUncompressedFiles) {
  TempDir dir;
  const auto lab = dir.write("labels.idx", labels({1, 2, 3, 255}));
  EXPECT_EQ(read_idx_labels(lab, 255), (std::vector<std::uint8_t>{1, 2, 3, 255}));
}

TEST(IdxReader, MissingFileIsNoInput) {
  TempDir dir;
  const auto msg = message_of<NoInputError>([&] { read_idx_images(dir / "absent.gz"); });
  EXPECT_NE(msg.find("absent.gz"), std::string::npos) << msg;
}

TEST(IdxReader, WrongMagicNamesOffsetZero) {
  TempDir dir;
  // A labels file given as images.
  const auto path = write_gz(dir, "swapped.gz", labels({1, 2}));
  const auto msg = message_of<DataError>([&] { read_idx_images(path); });
  EXPECT_NE(msg.find("swapped.gz"), std::string::npos) << msg;
  EXPECT_NE(msg.find("offset 0"), std::string::npos) << msg;
  EXPECT_NE(msg.find("0x00000801"), std::string::npos) << msg;
  EXPECT_NE(msg.find("0x00000803"), std::string::npos) << msg;
  // A non-byte element type (0x0D = float).
  const auto floats = write_gz(dir, "float.gz", header(0x00000D01, {1}) + "abcd");
  EXPECT_NE(message_of<DataError>([&] { read_idx_labels(floats); }).find("0x00000d01"),
            std::string::npos);
}

TEST(IdxReader, TooShortForMagicOrHeader) {
  TempDir dir;
  const auto empty = write_gz(dir, "empty.gz", "");
  EXPECT_NE(message_of<DataError>([&] { read_idx_labels(empty); }).find("magic"),
            std::string::npos);
  // Magic and only two of the three sizes.
  const auto shorthead = write_gz(dir, "head.gz", header(0x00000803, {3, 2}));
  const auto msg = message_of<DataError>([&] { read_idx_images(shorthead); });
  EXPECT_NE(msg.find("header of 16 bytes"), std::string::npos) << msg;
}

TEST(IdxReader, ZeroDimensionIsRefusedWithItsOffset) {
  TempDir dir;
  const auto path = write_gz(dir, "zero.gz", header(0x00000803, {3, 0, 4}));
  const auto msg = message_of<DataError>([&] { read_idx_images(path); });
  EXPECT_NE(msg.find("offset 8"), std::string::npos) << msg;
  EXPECT_NE(msg.find("rows"), std::string::npos) << msg;
}

TEST(IdxReader, TruncatedPayloadIsRefused) {
  TempDir dir;
  std::string bytes = three_images();
  bytes.pop_back();
  const auto path = write_gz(dir, "cut.gz", bytes);
  const auto msg = message_of<DataError>([&] { read_idx_images(path); });
  EXPECT_NE(msg.find("truncated"), std::string::npos) << msg;
  EXPECT_NE(msg.find("24 bytes"), std::string::npos) << msg;
  EXPECT_NE(msg.find("only 23"), std::string::npos) << msg;
  // Sizes whose product overflows 64 bits are a truncation too, not a wrap-around.
  const auto huge =
      write_gz(dir, "huge.gz", header(0x00000803, {0xffffffffu, 0xffffffffu, 0xffffffffu}));
  EXPECT_NE(message_of<DataError>([&] { read_idx_images(huge); }).find("truncated"),
            std::string::npos);
  // A truncated labels file.
  std::string lab = labels({1, 2, 3});
  lab.pop_back();
  const auto labpath = write_gz(dir, "labcut.gz", lab);
  EXPECT_NE(message_of<DataError>([&] { read_idx_labels(labpath); }).find("only 2"),
            std::string::npos);
}

TEST(IdxReader, TrailingBytesAreRefusedWithTheirOffset) {
  TempDir dir;
  const auto path = write_gz(dir, "long.gz", three_images() + "xy");
  const auto msg = message_of<DataError>([&] { read_idx_images(path); });
  EXPECT_NE(msg.find("2 trailing byte"), std::string::npos) << msg;
  EXPECT_NE(msg.find("offset 40"), std::string::npos) << msg;  // 16 + 24
}

TEST(IdxReader, TruncatedGzipStreamIsRefused) {
  TempDir dir;
  const auto good = write_gz(dir, "good.gz", three_images());
  std::string raw = testing::read_text(good);
  raw.resize(raw.size() - 6);  // cut into the gzip trailer
  const auto cut = dir.write("cutgz.gz", raw);
  message_of<DataError>([&] { read_idx_images(cut); });
}

TEST(IdxReader, LabelOutOfRangeNamesItemAndOffset) {
  TempDir dir;
  const auto path = write_gz(dir, "lab.gz", labels({0, 9, 10, 3}));
  const auto msg = message_of<DataError>([&] { read_idx_labels(path); });
  EXPECT_NE(msg.find("offset 10"), std::string::npos) << msg;  // 8 + 2
  EXPECT_NE(msg.find("label 10 of item 2"), std::string::npos) << msg;
  EXPECT_NE(msg.find("0 to 9"), std::string::npos) << msg;
}

TEST(IdxReader, CountMismatchNamesBothFiles) {
  TempDir dir;
  const auto img = write_gz(dir, "img.gz", three_images());
  const auto lab = write_gz(dir, "lab.gz", labels({1, 2}));
  const auto msg = message_of<DataError>([&] { read_idx_labeled(img, lab); });
  EXPECT_NE(msg.find("img.gz"), std::string::npos) << msg;
  EXPECT_NE(msg.find("lab.gz"), std::string::npos) << msg;
  EXPECT_NE(msg.find("3 images but 2 labels"), std::string::npos) << msg;
}

}  // namespace
}  // namespace dpmcmc
