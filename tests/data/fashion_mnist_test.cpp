// Fashion-MNIST loader: class names, the two-class selection and labels on tiny synthetic IDX
// files, the PCA feature pipeline against a direct computation, the norm bound, bad options; and,
// when Debian's dataset-fashion-mnist is installed, the documented sizes and class balance of
// the real files (Xiao et al. 2017: 60000 training and 10000 test images, 6000 and 1000 per class).
#include "data/fashion_mnist.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "data/idx_reader.hpp"
#include "temp_dir.hpp"

namespace dpmcmc {
namespace {

using testing::TempDir;

void put_u32(std::string& s, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) s.push_back(static_cast<char>((v >> shift) & 0xff));
}

void write_gz(const std::filesystem::path& path, const std::string& bytes) {
  gzFile f = gzopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size())),
            static_cast<int>(bytes.size()));
  gzclose(f);
}

// A split of `labels.size()` images of 3×2 pixels; pixel j of image i is (7·i + 13·j) mod 256.
void write_split(const TempDir& dir, const std::string& prefix, const std::vector<int>& labels) {
  std::string img, lab;
  put_u32(img, 0x00000803);
  put_u32(img, static_cast<std::uint32_t>(labels.size()));
  put_u32(img, 3);
  put_u32(img, 2);
  put_u32(lab, 0x00000801);
  put_u32(lab, static_cast<std::uint32_t>(labels.size()));
  for (std::size_t i = 0; i < labels.size(); ++i) {
    for (int j = 0; j < 6; ++j) img.push_back(static_cast<char>((7 * i + 13 * j) % 256));
    lab.push_back(static_cast<char>(labels[i]));
  }
  write_gz(dir / (prefix + "-images-idx3-ubyte.gz"), img);
  write_gz(dir / (prefix + "-labels-idx1-ubyte.gz"), lab);
}

TEST(FashionMnist, ClassNamesAndLabels) {
  EXPECT_EQ(fashion_mnist_class("6"), 6);
  EXPECT_EQ(fashion_mnist_class("shirt"), 6);
  EXPECT_EQ(fashion_mnist_class("T-SHIRT/TOP"), 0);
  EXPECT_EQ(fashion_mnist_class("ankle boot"), 9);
  EXPECT_EQ(fashion_mnist_class("Trouser"), 1);
  for (const char* bad : {"10", "-1", "sock", ""}) {
    try {
      fashion_mnist_class(bad, "--positive-class");
      ADD_FAILURE() << bad;
    } catch (const ConfigError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("--positive-class"), std::string::npos) << msg;
      EXPECT_NE(msg.find("6 = Shirt"), std::string::npos) << msg;
    }
  }
}

TEST(FashionMnist, SelectsTwoClassesScalesPixelsAndLabelsSecondClassOne) {
  TempDir dir;
  write_split(dir, "train", {3, 0, 6, 6, 1, 0, 6, 3});
  const BinaryImages pair = load_fashion_mnist_pair(dir / "train-images-idx3-ubyte.gz",
                                                    dir / "train-labels-idx1-ubyte.gz", 3, 6);
  // Items 0, 2, 3, 6, 7 (labels 3, 6, 6, 6, 3), in file order.
  const std::vector<int> items = {0, 2, 3, 6, 7};
  ASSERT_EQ(pair.pixels.rows(), 5);
  ASSERT_EQ(pair.pixels.cols(), 6);
  for (int r = 0; r < 5; ++r) {
    EXPECT_EQ(pair.y(r), items[r] == 0 || items[r] == 7 ? 0.0 : 1.0) << r;
    for (int j = 0; j < 6; ++j) {
      EXPECT_DOUBLE_EQ(pair.pixels(r, j), ((7 * items[r] + 13 * j) % 256) / 255.0);
    }
  }
}

TEST(FashionMnist, BadClassesAndMissingFilesAreRefused) {
  TempDir dir;
  write_split(dir, "train", {0, 6});
  const auto img = dir / "train-images-idx3-ubyte.gz";
  const auto lab = dir / "train-labels-idx1-ubyte.gz";
  EXPECT_THROW(load_fashion_mnist_pair(img, lab, 6, 6), ConfigError);
  EXPECT_THROW(load_fashion_mnist_pair(img, lab, 0, 10), ConfigError);
  EXPECT_THROW(load_fashion_mnist_pair(img, lab, -1, 6), ConfigError);
  FashionMnistOptions options;
  options.dir = dir / "nowhere";
  try {
    load_fashion_mnist(options);
    ADD_FAILURE() << "missing directory accepted";
  } catch (const NoInputError& e) {
    EXPECT_NE(std::string(e.what()).find("nowhere"), std::string::npos) << e.what();
  }
}

// Random pixel matrices (fixed seed) with a low-rank structure, so the PCA is non-trivial.
BinaryImages random_images(int n, int p, std::uint64_t seed) {
  Rng rng = make_rng(seed, 0, Stream::data);
  BinaryImages b;
  b.pixels.resize(n, p);
  b.y.resize(n);
  for (int i = 0; i < n; ++i) {
    const double a = rng.uniform(), c = rng.uniform();
    for (int j = 0; j < p; ++j) {
      b.pixels(i, j) = std::clamp(a * j / p + c * (j % 3) / 3.0 + 0.05 * rng.normal(), 0.0, 1.0);
    }
    b.y(i) = rng.bernoulli(0.5) ? 1.0 : 0.0;
  }
  return b;
}

TEST(FashionMnist, PcaFeaturesAreTheScaledProjectionWithinTheNormBound) {
  const BinaryImages train = random_images(400, 12, 5), test = random_images(50, 12, 6);
  const double R = 2.5;
  const PcaFeatures f = make_pca_features(train, test, 4, R, false);
  ASSERT_EQ(f.train.cols(), 5u);
  EXPECT_EQ(f.train.columns, (std::vector<std::string>{"x.1", "x.2", "x.3", "x.4", "y"}));
  // Independent computation of one test row: s · Vᵀ(x − x̄), with x̄ the TRAINING mean.
  const Vec train_mean = train.pixels.colwise().mean().transpose();
  EXPECT_LT((f.pca.mean - train_mean).norm(), 1e-14);
  for (int i : {0, 49}) {
    const Vec z =
        f.scale * f.pca.components.transpose() * (test.pixels.row(i).transpose() - train_mean);
    EXPECT_LT((f.test.x.row(i).head(4).transpose() - z).norm(), 1e-12) << i;
    EXPECT_EQ(f.test.x(i, 4), test.y(i));
  }
  // The largest training row sits at R (to the 1e-12 margin), none above.
  const Vec norms = f.train.x.leftCols(4).rowwise().norm();
  EXPECT_LE(norms.maxCoeff(), R);
  EXPECT_NEAR(norms.maxCoeff(), R, 1e-9);
  EXPECT_EQ(f.train.x.col(4), train.y);
}

TEST(FashionMnist, InterceptColumnSharesTheNormBound) {
  const BinaryImages train = random_images(300, 8, 7), test = random_images(20, 8, 8);
  const double R = 1.0;
  const PcaFeatures f = make_pca_features(train, test, 3, R, true);
  ASSERT_EQ(f.train.cols(), 5u);  // x.1..x.3, intercept x.4, y
  EXPECT_EQ(f.train.columns[3], "x.4");
  EXPECT_NEAR(f.intercept, 1.0 / std::sqrt(2.0), 1e-9);
  EXPECT_TRUE((f.train.x.col(3).array() == f.intercept).all());
  EXPECT_TRUE((f.test.x.col(3).array() == f.intercept).all());
  const Vec norms = f.train.x.leftCols(4).rowwise().norm();
  EXPECT_LE(norms.maxCoeff(), R);
  EXPECT_NEAR(norms.maxCoeff(), R, 1e-9);  // the largest score row has norm R/√2
}

TEST(FashionMnist, BadFeatureOptionsAreRefused) {
  const BinaryImages b = random_images(20, 6, 9);
  EXPECT_THROW(make_pca_features(b, b, 7, 1.0, false), ConfigError);
  EXPECT_THROW(make_pca_features(b, b, 2, 0.0, false), ConfigError);
  EXPECT_THROW(make_pca_features(b, b, 2, std::nan(""), false), ConfigError);
  BinaryImages same = b;
  same.pixels.setConstant(0.5);
  EXPECT_THROW(make_pca_features(same, b, 2, 1.0, false), DataError);
}

// The real data set, when installed (scripts/install-deps.sh installs dataset-fashion-mnist).
const std::filesystem::path kDir{kFashionMnistDefaultDir};

bool have_real_data() {
  return std::filesystem::exists(kDir / "train-images-idx3-ubyte.gz") &&
         std::filesystem::exists(kDir / "t10k-labels-idx1-ubyte.gz");
}

TEST(FashionMnistReal, FileSizesAndClassBalance) {
  if (!have_real_data()) GTEST_SKIP() << "Fashion-MNIST not installed in " << kDir;
  const IdxLabeledImages train =
      read_idx_labeled(kDir / "train-images-idx3-ubyte.gz", kDir / "train-labels-idx1-ubyte.gz");
  EXPECT_EQ(train.images.count, 60000u);
  EXPECT_EQ(train.images.rows, 28u);
  EXPECT_EQ(train.images.cols, 28u);
  std::vector<int> counts(10, 0);
  for (auto l : train.labels) ++counts[l];
  for (int c = 0; c < 10; ++c) EXPECT_EQ(counts[c], 6000) << c;
  const std::vector<std::uint8_t> test = read_idx_labels(kDir / "t10k-labels-idx1-ubyte.gz");
  EXPECT_EQ(test.size(), 10000u);
  std::vector<int> test_counts(10, 0);
  for (auto l : test) ++test_counts[l];
  for (int c = 0; c < 10; ++c) EXPECT_EQ(test_counts[c], 1000) << c;
}

TEST(FashionMnistReal, TshirtVsShirtPca50) {
  if (!have_real_data()) GTEST_SKIP() << "Fashion-MNIST not installed in " << kDir;
  const auto start = std::chrono::steady_clock::now();
  const PcaFeatures f = load_fashion_mnist();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  RecordProperty("load_pca_seconds", std::to_string(seconds));
  std::printf("load + PCA-50 of T-shirt vs Shirt: %.2f s\n", seconds);
  ASSERT_EQ(f.train.rows(), 12000u);
  ASSERT_EQ(f.test.rows(), 2000u);
  ASSERT_EQ(f.train.cols(), 51u);
  EXPECT_EQ(f.train.columns.front(), "x.1");
  EXPECT_EQ(f.train.columns.back(), "y");
  EXPECT_DOUBLE_EQ(f.train.x.col(50).sum(), 6000.0);  // balanced classes
  EXPECT_DOUBLE_EQ(f.test.x.col(50).sum(), 1000.0);
  EXPECT_LE(f.train.x.leftCols(50).rowwise().norm().maxCoeff(), 1.0);
  EXPECT_TRUE(f.test.x.allFinite());
  // Variances decrease; the first component (overall brightness/shape of the garment) carries a
  // large share of the 50 leading variances (measured 41%; a broken centring or a component
  // taken from the wrong end of the spectrum would give a share far below 20%).
  for (int j = 1; j < 50; ++j) EXPECT_GE(f.pca.variances(j - 1), f.pca.variances(j));
  EXPECT_GT(f.pca.variances(0) / f.pca.variances.sum(), 0.2);
}

}  // namespace
}  // namespace dpmcmc
