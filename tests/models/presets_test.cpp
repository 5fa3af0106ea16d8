#include "models/presets.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include <cmath>
#include <set>

#include "core/error.hpp"
#include "model_test_util.hpp"
#include "models/banana.hpp"
#include "models/gaussian.hpp"
#include "models/random_covariance.hpp"

namespace dpmcmc {
namespace {

struct Expected {
  const char* name;
  int dim;
  std::size_t n;
  const char* model;
  double temperature;
};

// Table 5.1 of 002_673c6a5269ae2454.txt and 000_24953f9f9db06b85.txt Section 4.
const Expected kExpected[] = {
    {"banana-flat-2d", 2, 100000, "banana", 1.0},
    {"banana-flat-10d", 10, 200000, "banana", 1.0},
    {"banana-tempered-2d", 2, 100000, "banana", 1000.0 / 100000},
    {"banana-tempered-10d", 10, 200000, "banana", 1000.0 / 200000},
    {"gauss-30d", 30, 200000, "banana", 1.0},
    {"banana-narrow-2d", 2, 150000, "banana", 1.0},
    {"gauss-correlated-2d", 2, 200000, "gaussian", 1.0},
    {"circle", 2, 100000, "circle", 1.0},
    {"gauss-10d", 10, 100000, "gaussian", 1.0},
    {"banana-dphmc-2d", 2, 100000, "banana", 1.0},
    {"gauss-box-2d", 2, 100000, "gaussian-box", 1.0},
    {"bernoulli-beta", 1, 10000, "bernoulli-beta", 1.0},
    {"logistic-fashion-mnist", 50, 12000, "logistic", 1.0},
};

TEST(Presets, RegistryHasDocumentedPresets) {
  ASSERT_EQ(presets().size(), std::size(kExpected));
  for (std::size_t i = 0; i < presets().size(); ++i) {
    const Preset& p = presets()[i];
    const Expected& e = kExpected[i];
    SCOPED_TRACE(p.name);
    EXPECT_EQ(p.name, e.name);
    EXPECT_EQ(&find_preset(e.name), &p);
    EXPECT_FALSE(p.description.empty());
    EXPECT_EQ(p.description.find('\n'), std::string::npos);
    EXPECT_FALSE(p.source.empty());
    EXPECT_EQ(p.dim, e.dim);
    EXPECT_EQ(p.n, e.n);
    // δ = 0.1/n in the thesis' experiments; 10⁻⁵ in DP-Fast MH's (003, Section 6).
    EXPECT_DOUBLE_EQ(p.delta, p.load_data ? 1e-5 : 0.1 / static_cast<double>(e.n));
    const auto model = p.make_model();
    EXPECT_EQ(model->name(), e.model);
    EXPECT_EQ(model->dim(), e.dim);
    EXPECT_DOUBLE_EQ(model->temperature(), e.temperature);
    EXPECT_EQ(p.true_theta.size(), e.dim);
    EXPECT_EQ(p.start_centre.size(), e.dim);
    EXPECT_EQ(p.data_columns(), model->data_columns());
    EXPECT_EQ(model->has_exact_posterior(), !p.start_sd.has_value());
    // Every preset has defaults for the non-private baselines and its private samplers, each
    // with a source: DP penalty and DP HMC for the papers' models, the sufficient-statistic
    // penalty for the exponential-family presets.
    const bool expfam =
        std::string(e.model) == "gaussian-box" || std::string(e.model) == "bernoulli-beta";
    const std::vector<const char*> required =
        expfam ? std::vector<const char*>{"rwmh", "hmc", "dp-penalty-expfam"}
               : std::vector<const char*>{"rwmh", "hmc", "dp-penalty", "dp-hmc"};
    for (const char* s : required) {
      ASSERT_TRUE(p.samplers.contains(s)) << s;
      EXPECT_TRUE(p.samplers.at(s).at("source").is_string()) << s;
    }
    for (const auto& [key, value] : p.samplers.items()) {
      EXPECT_TRUE(value.contains("source")) << key;
    }
    EXPECT_TRUE(p.experiment.contains("epsilons"));
  }
}

TEST(Presets, UnknownNamesListTheValidOnes) {
  try {
    find_preset("banana");
    FAIL() << "no exception";
  } catch (const UsageError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("'banana'"), std::string::npos);
    for (const auto& x : kExpected) EXPECT_NE(msg.find(x.name), std::string::npos) << x.name;
  }
  try {
    find_preset("circle").sampler_defaults("dp-barker");
    FAIL() << "no exception";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("dp-penalty"), std::string::npos);
  }
}

// Spot checks of transcribed hyperparameters against reference-configs.md.
TEST(Presets, PublishedHyperparameters) {
  const auto& t10 = find_preset("banana-tempered-10d");
  EXPECT_DOUBLE_EQ(t10.sampler_defaults("dp-penalty-ocu").at("tau").get<double>(), 0.1);
  EXPECT_DOUBLE_EQ(t10.sampler_defaults("dp-penalty-ocu").at("proposal_sd").get<double>(), 0.04);
  EXPECT_EQ(t10.sampler_defaults("dp-penalty-minibatch").at("batch_size").get<int>(), 1200);
  EXPECT_DOUBLE_EQ(t10.sampler_defaults("dp-barker").at("proposal_sd").get<double>(), 0.04);
  const auto& narrow = find_preset("banana-narrow-2d");
  EXPECT_DOUBLE_EQ(narrow.sampler_defaults("dp-hmc").at("step_size").get<double>(), 0.00045);
  EXPECT_DOUBLE_EQ(narrow.sampler_defaults("dp-hmc").at("clip_l").get<double>(), 5.0);
  EXPECT_EQ(narrow.sampler_defaults("dp-hmc").at("steps").get<int>(), 5);
  const auto& dphmc = find_preset("banana-dphmc-2d");
  EXPECT_DOUBLE_EQ(dphmc.sampler_defaults("dp-hmc").at("tau_g").get<double>(), 0.55);
  EXPECT_EQ(dphmc.sampler_defaults("dp-hmc").at("steps").get<int>(), 25);
  EXPECT_TRUE(dphmc.sampler_defaults("dp-hmc").at("randomized_step_size").get<bool>());
  EXPECT_DOUBLE_EQ(find_preset("circle").sampler_defaults("dp-penalty").at("clip").get<double>(),
                   0.002);
  EXPECT_DOUBLE_EQ(find_preset("gauss-10d").sampler_defaults("dp-sgnht").at("A").get<double>(),
                   30.0);
  // Non-private defaults: published for the flat 2-d banana (clipping study), borrowed elsewhere.
  EXPECT_DOUBLE_EQ(
      find_preset("banana-flat-2d").sampler_defaults("rwmh").at("proposal_sd").get<double>(), 0.01);
  EXPECT_DOUBLE_EQ(
      find_preset("gauss-30d").sampler_defaults("rwmh").at("proposal_sd").get<double>(), 0.00084);
  const auto dphmc_model = dphmc.make_model();
  const auto& banana = dynamic_cast<const BananaModel&>(*dphmc_model);
  EXPECT_DOUBLE_EQ(banana.params().lik_var(0), 2000.0);
  EXPECT_DOUBLE_EQ(banana.params().lik_var(1), 2500.0);
  EXPECT_DOUBLE_EQ(banana.params().prior_var, 1000.0);
  const auto flat = find_preset("banana-flat-10d").make_model();
  const auto& b10 = dynamic_cast<const BananaModel&>(*flat);
  EXPECT_DOUBLE_EQ(b10.params().a, 20.0);
  EXPECT_DOUBLE_EQ(b10.params().lik_var(0), 20.0);
  EXPECT_DOUBLE_EQ(b10.params().lik_var(1), 2.5);
  EXPECT_DOUBLE_EQ(b10.params().lik_var(9), 1.0);
  const auto corr = find_preset("gauss-correlated-2d").make_model();
  const auto& g = dynamic_cast<const GaussianModel&>(*corr);
  EXPECT_DOUBLE_EQ(g.covariance()(0, 1), 0.999);
  EXPECT_DOUBLE_EQ(g.prior_covariance()(0, 0), 1e4);  // prior sd 100
}

TEST(Presets, SimulatedDataHaveTheRightShapeAndSeedRule) {
  for (const Preset& p : presets()) {
    if (p.load_data) continue;  // a fixed data set (FashionMnistPresetLoadsTheFixedDataSet)
    SCOPED_TRACE(p.name);
    const auto model = p.make_model();
    const Dataset d = simulate_preset(p, *model, 7, 500);
    EXPECT_EQ(d.rows(), 500u);
    EXPECT_EQ(d.columns, p.data_columns());
    EXPECT_EQ(static_cast<std::size_t>(d.x.cols()), d.columns.size());
    EXPECT_TRUE(d.x.allFinite());
    // The documented rule, spelled out.
    Rng rng = make_rng(7, 0, Stream::data);
    EXPECT_EQ(d.x, model->simulate(p.true_theta, 500, rng).x);
    EXPECT_NE(d.x, simulate_preset(p, *model, 8, 500).x);
  }
  // Full size for one preset.
  const Preset& p = find_preset("banana-flat-2d");
  EXPECT_EQ(simulate_preset(p, *p.make_model(), 1).rows(), 100000u);
}

// The start deviation of banana-flat-2d from 1000 exact draws against its closed form: the
// component sds are √v1 and sqrt(v2 + a²(2v1² + 4μ1²v1)) (moments of θ = g(φ), see banana_test).
// A sample sd from 1000 draws has relative SE ≈ sqrt((κ − 1)/4000) (κ the kurtosis; ≈ 2.2% for
// a Gaussian, ≈ 3% for the skewed θ2 here), so the mean of the two is within 15% at ≥ 5 SE.
TEST(Presets, StartDeviationMatchesClosedForm) {
  const Preset& p = find_preset("banana-flat-2d");
  const auto model = p.make_model();
  const Dataset data = simulate_preset(p, *model, 3);
  const auto& banana = dynamic_cast<const BananaModel&>(*model);
  const auto g = banana.gaussian_posterior(data);
  const double a = banana.params().a;
  const double sd1 = std::sqrt(g.var(0));
  const double sd2 = std::sqrt(
      g.var(1) + a * a * (2 * g.var(0) * g.var(0) + 4 * g.mean(0) * g.mean(0) * g.var(0)));
  const double want = 0.5 * (sd1 + sd2);
  const double got = start_deviation(p, *model, data, 3);
  EXPECT_NEAR(got, want, 0.15 * want);
  EXPECT_EQ(got, start_deviation(p, *model, data, 3));  // reproducible
  EXPECT_EQ(start_deviation(find_preset("circle"), *find_preset("circle").make_model(), data, 3),
            1.0);
}

// gauss-10d's covariance: deterministic, symmetric positive definite, and its eigenvalues are
// the Gamma(0.5, 1) draws that start the documented stream (an independent recomputation).
TEST(Presets, Gauss10dCovarianceFollowsItsRule) {
  const Mat s = gauss_10d_covariance();
  EXPECT_EQ(s, gauss_10d_covariance());
  EXPECT_EQ(s, s.transpose());
  Rng rng = make_rng(kGauss10dCovarianceSeed, 0, Stream::data);
  std::vector<double> lambda;
  for (int j = 0; j < 10; ++j) lambda.push_back(rng.gamma(0.5, 1.0));
  std::sort(lambda.begin(), lambda.end());
  const Eigen::SelfAdjointEigenSolver<Mat> eig(s);
  for (int j = 0; j < 10; ++j) {
    EXPECT_NEAR(eig.eigenvalues()(j), lambda[static_cast<std::size_t>(j)], 1e-12) << j;
    EXPECT_GT(eig.eigenvalues()(j), 0.0);
  }
  // The eigenvectors are not the axes (the covariance is genuinely correlated).
  EXPECT_GT((s - Mat(s.diagonal().asDiagonal())).cwiseAbs().maxCoeff(), 1e-3);
}

// The real-data preset reads Debian's Fashion-MNIST files (skipped when they are absent): its
// training rows are the official split's T-shirt/top and shirt images (6000 each), every row
// within the model's norm bound, the test rows the 2000 of the test split; --n is refused
// because the data set is fixed.
TEST(Presets, FashionMnistPresetLoadsTheFixedDataSet) {
  if (!std::filesystem::exists("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz")) {
    GTEST_SKIP() << "dataset-fashion-mnist is not installed";
  }
  const Preset& p = find_preset("logistic-fashion-mnist");
  const auto model = p.make_model();
  const Dataset train = simulate_preset(p, *model, 1);
  EXPECT_EQ(train.rows(), p.n);
  EXPECT_EQ(train.cols(), static_cast<std::size_t>(p.dim) + 1);
  EXPECT_EQ(train.columns, model->data_columns());
  EXPECT_DOUBLE_EQ(train.x.col(p.dim).sum(), 6000.0);
  EXPECT_LE(train.x.leftCols(p.dim).rowwise().norm().maxCoeff(), 1.0);
  EXPECT_EQ(p.load_test_data().rows(), 2000u);
  EXPECT_THROW(simulate_preset(p, *model, 1, 100), UsageError);
}

TEST(RandomCovariance, RejectsBadArguments) {
  Rng rng = make_rng(1, 0);
  EXPECT_THROW(random_eigen_covariance(0, 0.5, rng), ConfigError);
  EXPECT_THROW(random_eigen_covariance(3, 0.0, rng), ConfigError);
}

}  // namespace
}  // namespace dpmcmc
