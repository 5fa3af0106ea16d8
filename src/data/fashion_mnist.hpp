// Fashion-MNIST (Xiao, Rasul and Vollgraf 2017: 70000 28×28 grey-scale images of ten clothing
// classes, 6000 training and 1000 test images per class) as a two-class logistic-regression data
// set: the analogue of the MNIST 7-vs-9 task with 50 principal components of
// [ZhangZhang2023] Section 6 and Appendix E.2.
//
// Pipeline (load_fashion_mnist):
//  1. read the four IDX files of `dir` (idx_reader.hpp), keep the images of the two chosen classes,
//     label y = 0 for `class0` and y = 1 for `class1`, scale pixels to [0, 1] (divide by 255);
//  2. PCA (pca.hpp) of the chosen classes of the TRAINING set only: centre by the training mean,
//     keep the first k components, project train and test with the same mean and components;
//  3. scale so that every training row satisfies ‖x_i‖₂ ≤ R, the declared norm bound of the
//     logistic model's Assumption 1 (c_i = ‖x_i‖ ≤ R; see models/logistic_regression.hpp): the
//     scores are multiplied by s = R(1 − 1e-12) / max_i ‖z_i‖ (the margin keeps the largest row
//     strictly inside the bound despite rounding). With an intercept, a constant column of value
//     R′/√2 is appended and the scores are scaled to norm ≤ R′/√2, R′ = R(1 − 1e-12), so
//     ‖x_i‖² ≤ R′²/2 + R′²/2 ≤ R².
//     Test rows get the same transformation; they are public evaluation data (they never enter
//     a private release) and may exceed R, which is allowed.
//
// Privacy note: the PCA basis, the centring mean and the scale s are computed from the training
// data without noise, as in the paper's experiment (which follows Zhang et al. 2020). They are
// treated as public preprocessing; a fully private pipeline would need a DP PCA and a
// data-independent scale (for pixels in [0, 1], ‖z_i‖ ≤ √784 = 28 always holds).
//
// Intercept: off by default, so θ has the k = 50 components of the paper. With centred scores and
// balanced classes (6000 per class), the intercept of the MAP is close to 0 anyway.
#pragma once

#include <array>
#include <filesystem>
#include <string>
#include <string_view>

#include "data/dataset.hpp"
#include "data/pca.hpp"

namespace dpmcmc {

// The class names of the data set, by label 0–9 (Xiao et al. 2017, Table 1).
inline constexpr std::array<std::string_view, 10> kFashionMnistClasses = {
    "T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
    "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};

// Where Debian's dataset-fashion-mnist package installs the files.
inline constexpr std::string_view kFashionMnistDefaultDir = "/usr/share/datasets/fashion-mnist";

// The label of a class given as its number ("6") or name, case-insensitively ("shirt",
// "T-shirt/top", "ankle boot"). ConfigError naming `option` and listing the classes otherwise.
int fashion_mnist_class(std::string_view name_or_label, std::string_view option = "class");

struct FashionMnistOptions {
  std::filesystem::path dir{kFashionMnistDefaultDir};
  int class0 = 0;           // y = 0 (default T-shirt/top)
  int class1 = 6;           // y = 1 (default Shirt: the hardest pair of the data set)
  int components = 50;      // k
  double norm_bound = 1.0;  // R
  bool intercept = false;
};

// Labelled images of two classes, pixels in [0, 1] (n × p, one image per row), y ∈ {0, 1}.
struct BinaryImages {
  Mat pixels;
  Vec y;
};

// The feature pipeline's output.
struct PcaFeatures {
  Dataset train;  // columns x.1, …, x.d, y (d = k, or k + 1 with the intercept last)
  Dataset test;
  Pca pca;
  double scale = 0.0;       // s: multiplier of the PCA scores
  double intercept = 0.0;   // value of the constant column (0 when there is none)
  double norm_bound = 0.0;  // R: every training row has ‖x_i‖ ≤ R
};

// Steps 2–3 above on given images (any width p). ConfigError for k ∉ [1, p] or R not positive and
// finite; DataError when the training set has fewer than 2 rows or its rows are all identical
// (no scale exists).
PcaFeatures make_pca_features(const BinaryImages& train, const BinaryImages& test, int components,
                              double norm_bound, bool intercept);

// Step 1 for one split: the images of class0 (y = 0) and class1 (y = 1), in file order.
BinaryImages load_fashion_mnist_pair(const std::filesystem::path& images,
                                     const std::filesystem::path& labels, int class0, int class1);

// The whole pipeline on dir/{train,t10k}-{images-idx3,labels-idx1}-ubyte.gz. ConfigError for a
// class outside 0–9 or two equal classes; NoInputError for a missing file; DataError for a
// malformed one.
PcaFeatures load_fashion_mnist(const FashionMnistOptions& options = {});

}  // namespace dpmcmc
