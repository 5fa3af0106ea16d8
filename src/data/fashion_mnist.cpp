#include "data/fashion_mnist.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <string>

#include "core/error.hpp"
#include "data/idx_reader.hpp"

namespace dpmcmc {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string class_list() {
  std::string out;
  for (std::size_t j = 0; j < kFashionMnistClasses.size(); ++j) {
    out += fmt::format("{}{} = {}", j == 0 ? "" : ", ", j, kFashionMnistClasses[j]);
  }
  return out;
}

void check_class(int label, std::string_view option) {
  if (label < 0 || label > 9) {
    throw ConfigError(fmt::format("Fashion-MNIST {}: class {} does not exist, expected one of {}",
                                  option, label, class_list()));
  }
}

std::vector<std::string> feature_columns(Eigen::Index d) {
  std::vector<std::string> names;
  for (Eigen::Index j = 1; j <= d; ++j) names.push_back("x." + std::to_string(j));
  names.push_back("y");
  return names;
}

// [scores·s, intercept column?, y].
Dataset assemble(const Mat& scores, double s, double intercept, const Vec& y) {
  const Eigen::Index n = scores.rows(), k = scores.cols();
  const Eigen::Index d = k + (intercept > 0 ? 1 : 0);
  Dataset data;
  data.x.resize(n, d + 1);
  data.x.leftCols(k) = s * scores;
  if (intercept > 0) data.x.col(k).setConstant(intercept);
  data.x.col(d) = y;
  data.columns = feature_columns(d);
  return data;
}

}  // namespace

int fashion_mnist_class(std::string_view name_or_label, std::string_view option) {
  if (name_or_label.size() == 1 && name_or_label[0] >= '0' && name_or_label[0] <= '9') {
    return name_or_label[0] - '0';
  }
  const std::string key = lower(name_or_label);
  for (std::size_t j = 0; j < kFashionMnistClasses.size(); ++j) {
    if (key == lower(kFashionMnistClasses[j])) return static_cast<int>(j);
  }
  throw ConfigError(
      fmt::format("Fashion-MNIST {}: unknown class '{}', expected a label 0-9 or a "
                  "name: {}",
                  option, name_or_label, class_list()));
}

PcaFeatures make_pca_features(const BinaryImages& train, const BinaryImages& test, int components,
                              double norm_bound, bool intercept) {
  if (!(norm_bound > 0.0 && std::isfinite(norm_bound))) {
    throw ConfigError(
        fmt::format("feature norm bound R = {}, expected a positive finite number", norm_bound));
  }
  PcaFeatures out;
  out.pca = fit_pca(train.pixels, components);
  const Mat train_scores = out.pca.transform(train.pixels);
  const Mat test_scores = out.pca.transform(test.pixels);
  const double max_norm = train_scores.rowwise().norm().maxCoeff();
  if (!(max_norm > 0.0)) {
    throw DataError("feature scaling: every training row projects to 0 (all images identical)");
  }
  // See the header, step 3: the margin keeps the largest row strictly below R after rounding.
  const double target = norm_bound * (1.0 - 1e-12) / (intercept ? std::sqrt(2.0) : 1.0);
  out.scale = target / max_norm;
  out.intercept = intercept ? target : 0.0;
  out.norm_bound = norm_bound;
  out.train = assemble(train_scores, out.scale, out.intercept, train.y);
  out.test = assemble(test_scores, out.scale, out.intercept, test.y);
  return out;
}

BinaryImages load_fashion_mnist_pair(const std::filesystem::path& images,
                                     const std::filesystem::path& labels, int class0, int class1) {
  check_class(class0, "class0");
  check_class(class1, "class1");
  if (class0 == class1) {
    throw ConfigError(
        fmt::format("Fashion-MNIST classes: class0 and class1 are both {} ({}), "
                    "expected two different classes",
                    class0, kFashionMnistClasses[class0]));
  }
  const IdxLabeledImages raw = read_idx_labeled(images, labels);
  const std::size_t p = raw.images.rows * raw.images.cols;
  std::vector<std::size_t> keep;
  for (std::size_t i = 0; i < raw.labels.size(); ++i) {
    if (raw.labels[i] == class0 || raw.labels[i] == class1) keep.push_back(i);
  }
  BinaryImages out;
  out.pixels.resize(static_cast<Eigen::Index>(keep.size()), static_cast<Eigen::Index>(p));
  out.y.resize(static_cast<Eigen::Index>(keep.size()));
  // Rows are written one image at a time into a column-major matrix (strided stores); converting
  // 12000 images of 784 bytes this way takes a few milliseconds.
  for (std::size_t r = 0; r < keep.size(); ++r) {
    const std::uint8_t* src = raw.images.pixels.data() + keep[r] * p;
    const auto row = static_cast<Eigen::Index>(r);
    for (std::size_t j = 0; j < p; ++j) {
      out.pixels(row, static_cast<Eigen::Index>(j)) = src[j] / 255.0;
    }
    out.y(row) = raw.labels[keep[r]] == class1 ? 1.0 : 0.0;
  }
  return out;
}

PcaFeatures load_fashion_mnist(const FashionMnistOptions& options) {
  const auto& dir = options.dir;
  const BinaryImages train =
      load_fashion_mnist_pair(dir / "train-images-idx3-ubyte.gz",
                              dir / "train-labels-idx1-ubyte.gz", options.class0, options.class1);
  const BinaryImages test =
      load_fashion_mnist_pair(dir / "t10k-images-idx3-ubyte.gz", dir / "t10k-labels-idx1-ubyte.gz",
                              options.class0, options.class1);
  PcaFeatures out =
      make_pca_features(train, test, options.components, options.norm_bound, options.intercept);
  const std::string what = fmt::format("({} vs {}, PCA-{}{})", kFashionMnistClasses[options.class0],
                                       kFashionMnistClasses[options.class1], options.components,
                                       options.intercept ? " + intercept" : "");
  out.train.source = "fashion-mnist train " + what + " from " + dir.string();
  out.test.source = "fashion-mnist test " + what + " from " + dir.string();
  return out;
}

}  // namespace dpmcmc
