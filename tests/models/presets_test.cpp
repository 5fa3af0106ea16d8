#include "models/presets.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include <cmath>
#include <set>

#include "core/error.hpp"
#include "model_test_util.hpp"
#include "models/banana.hpp"
#include "models/gaussian.hpp"
#include "models/gaussian_mixture.hpp"
#include "models/grid_posterior.hpp"
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

// Table 5.1 of [Raisa2021] and [RaisaKoskelaHonkela2021] Section 4.
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
    {"mixture-fastmh-2d", 2, 50000, "gaussian-mixture", 1.0 / 500},  // [ZhangZhang2023] Section 6.1
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
    // δ = 0.1/n in the thesis' experiments; 10⁻⁵ in DP-Fast MH's ([ZhangZhang2023] Section 6).
    const bool fastmh = p.load_data || std::string(e.model) == "gaussian-mixture";
    EXPECT_DOUBLE_EQ(p.delta, fastmh ? 1e-5 : 0.1 / static_cast<double>(e.n));
    const auto model = p.make_model();
    EXPECT_EQ(model->name(), e.model);
    EXPECT_EQ(model->dim(), e.dim);
    EXPECT_DOUBLE_EQ(model->temperature(), e.temperature);
    EXPECT_EQ(p.true_theta.size(), e.dim);
    EXPECT_EQ(p.start_centre.size(), e.dim);
    EXPECT_EQ(p.data_columns(), model->data_columns());
    // The Section 5.2 start rule (spread from exact draws) wherever the exact reference is cheap;
    // a fixed public spread otherwise (no exact posterior, or a costly grid reference: issue 28).
    EXPECT_EQ(model->has_exact_posterior() && model->reference_row_evaluations(p.n) == 0.0,
              !p.start_sd.has_value());
    // Every preset has defaults for the non-private baselines and its private samplers, each
    // with a source: DP penalty and DP HMC for the papers' models, the sufficient-statistic
    // penalty for the exponential-family presets, DP-Fast MH and TunaMH for [ZhangZhang2023]'s
    // mixture. HMC everywhere: issue 25 asks `--sampler hmc` to run with default options on every
    // preset.
    const bool expfam =
        std::string(e.model) == "gaussian-box" || std::string(e.model) == "bernoulli-beta";
    const bool mixture = std::string(e.model) == "gaussian-mixture";
    const std::vector<const char*> required =
        expfam    ? std::vector<const char*>{"rwmh", "hmc", "dp-penalty-expfam"}
        : mixture ? std::vector<const char*>{"rwmh", "hmc", "tunamh", "dp-fast-mh"}
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

// Spot checks of transcribed hyperparameters against docs/references.md,
// "Hyperparameters the papers' authors ran".
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

// mixture-fastmh-2d ([ZhangZhang2023] Section 6.1, Appendix E.1; docs/references.md):
// the model's settings and the sampler defaults as published.
TEST(Presets, MixtureFastMhSettings) {
  const Preset& p = find_preset("mixture-fastmh-2d");
  const auto model = p.make_model();
  const auto& m = dynamic_cast<const GaussianMixtureModel&>(*model);
  EXPECT_DOUBLE_EQ(m.params().sigma_x2, 2.0);
  // The rows are drawn untruncated as in the authors' mog/dpfastmh.jl; [-8, 8] removes ≈ 2e-7.
  EXPECT_DOUBLE_EQ(m.params().data_range, 8.0);
  EXPECT_DOUBLE_EQ(m.params().theta_bound1, 3.0);
  EXPECT_DOUBLE_EQ(m.params().theta_bound2, 3.0);
  // Flat prior on the box (E.1): the log prior differs by < 1e-7 between centre and corner.
  Vec centre = Vec::Zero(2), corner = Vec::Constant(2, 2.999);
  EXPECT_NEAR(m.log_prior(centre), m.log_prior(corner), 1e-7);
  EXPECT_EQ(p.true_theta, (Vec(2) << 0.0, 1.0).finished());
  const auto& f = p.sampler_defaults("dp-fast-mh");
  EXPECT_DOUBLE_EQ(f.at("proposal_sd").get<double>(), 0.06);
  EXPECT_DOUBLE_EQ(f.at("epsilon").get<double>(), 0.05);
  EXPECT_DOUBLE_EQ(f.at("lambda").get<double>(), 10.0);
  EXPECT_EQ(f.at("max_batch").get<int>(), 60);
  // Per-iteration δ: [ZhangZhang2023]'s 20 000 iterations must compose within the run's δ = 1e-5.
  EXPECT_LT(20000 * f.at("delta").get<double>(), p.delta);
  EXPECT_DOUBLE_EQ(p.sampler_defaults("tunamh").at("proposal_sd").get<double>(), 0.06);
  EXPECT_DOUBLE_EQ(p.sampler_defaults("tunamh").at("lambda").get<double>(), 10.0);
  EXPECT_DOUBLE_EQ(p.experiment.at("full_batch_proposal_sd").get<double>(), 0.08);
  EXPECT_EQ(p.experiment.at("iterations").get<int>(), 20000);
}

// The preset builds, simulates rows inside the declared range (so every row bound holds,
// [ZhangZhang2023] Assumption 1), and its exact draws (the adaptive grid: coarse 32², fine 100²
// around the mass) have the moments of an independent brute-force grid over the whole prior box
// (160² cells, h = 0.0375). n = 2500 rows (N·T = 5) keeps it fast. Tolerance per mean: 5 SE of
// 20 000 draws (sd/√20000) plus 0.01 for the two grids' discretisation (each density's moments are
// within O(h²) ~ 1e-3 of the true ones); per variance: 5 SE (SE ≈ var·√(2/20000) for a
// near-Gaussian marginal, doubled for the bimodal one) plus 0.01.
TEST(Presets, MixtureFastMhExactDrawsMatchABruteForceGrid) {
  const Preset& p = find_preset("mixture-fastmh-2d");
  const auto model = p.make_model();
  const auto& m = dynamic_cast<const GaussianMixtureModel&>(*model);
  const Dataset data = simulate_preset(p, *model, 11, 2500);
  EXPECT_LE(data.x.cwiseAbs().maxCoeff(), 8.0);
  Vec bounds(data.rows());
  EXPECT_NO_THROW(m.row_bounds(data.x, bounds));
  ASSERT_TRUE(model->has_exact_posterior());
  Rng rng = make_rng(12, 0, Stream::exact);
  const Mat draws = model->sample_posterior(data, 20000, rng);
  ASSERT_EQ(draws.rows(), 20000);
  ASSERT_EQ(draws.cols(), 2);
  const GridPosterior brute(*model, data, m.support(), 160, 2);
  const Vec mean = brute.mean();
  const Mat cov = brute.covariance();
  const Vec dmean = draws.colwise().mean().transpose();
  const Mat centred = draws.rowwise() - dmean.transpose();
  const Mat dcov = centred.transpose() * centred / (draws.rows() - 1.0);
  for (int k = 0; k < 2; ++k) {
    const double se = std::sqrt(cov(k, k) / 20000.0);
    EXPECT_NEAR(dmean(k), mean(k), 5 * se + 0.01) << k;
    EXPECT_NEAR(dcov(k, k), cov(k, k), 5 * 2 * cov(k, k) * std::sqrt(2.0 / 20000) + 0.01) << k;
  }
  // The grid is kept in the model's cache: a second call reuses it (same object); another
  // instance has its own cache unless it is handed this one; another data set gets its own grid.
  const auto g1 = m.grid_reference(data);
  EXPECT_EQ(g1.get(), m.grid_reference(data).get());
  const auto shared = std::make_shared<ReferenceCache>();
  model->share_reference_cache(shared);
  const auto g2 = m.grid_reference(data);  // computed again, now in the shared cache
  EXPECT_NE(g1.get(), g2.get());
  const auto again = p.make_model();
  again->share_reference_cache(shared);
  EXPECT_EQ(g2.get(), dynamic_cast<const GaussianMixtureModel&>(*again).grid_reference(data).get());
  const Dataset other = simulate_preset(p, *model, 13, 2500);
  EXPECT_NE(g1.get(), m.grid_reference(other).get());
  // The fine box holds all but a negligible mass of the brute-force grid: its cells outside the
  // box sum to < 1e-6 (the rule's bound is 32² × 1e-10 = 1.1e-7 by the coarse grid).
  const Box2d b = m.grid_reference(data)->box();
  double outside = 0.0;
  const Mat& pr = brute.probabilities();
  for (Eigen::Index i = 0; i < pr.rows(); ++i) {
    for (Eigen::Index j = 0; j < pr.cols(); ++j) {
      const double t1 = -3.0 + (i + 0.5) * brute.width1(), t2 = -3.0 + (j + 0.5) * brute.width2();
      if (t1 < b.lo1 || t1 > b.hi1 || t2 < b.lo2 || t2 > b.hi2) outside += pr(i, j);
    }
  }
  EXPECT_LT(outside, 1e-6);
}

// [ZhangZhang2023]'s Figure 2 shows two modes, at (0, 1) and (1, −1). The preset's rows must be
// drawn as the authors' code draws them (untruncated, variance σx² + ¼ = 2.25): truncated to
// [−3, 3] their variance falls to ≈ 1.70 < σx², and the posterior becomes one ridge with its mode
// at θ2 ≈ 0. Computed independently (numpy, a 201 × 241 grid, three data sets of 50 000 rows):
// untruncated P(θ2 < −0.5) = 0.37, P(|θ2| < 0.3) = 0.14; truncated 0.22 and 0.35. The bounds
// below sit between the two; 20 000 exact draws have a binomial SE ≤ 0.0035 on each fraction.
TEST(Presets, MixtureFastMhPosteriorHasTheTwoModesOfThePaper) {
  const Preset& p = find_preset("mixture-fastmh-2d");
  const auto model = p.make_model();
  const Dataset data = simulate_preset(p, *model, 1);
  const Eigen::ArrayXd x = data.x.col(0).array();
  const double var = (x - x.mean()).square().mean();
  EXPECT_NEAR(var, 2.25, 0.1);  // SE of the variance of 50 000 rows ≈ 0.015
  Rng rng = make_rng(5, 0, Stream::exact);
  const Mat draws = model->sample_posterior(data, 20000, rng);
  const Eigen::ArrayXd t2 = draws.col(1).array();
  const double lower = (t2 < -0.5).cast<double>().mean();
  const double upper = (t2 > 0.5).cast<double>().mean();
  const double between = (t2.abs() < 0.3).cast<double>().mean();
  EXPECT_GT(lower, 0.3);
  EXPECT_GT(upper, 0.3);
  EXPECT_LT(between, 0.25);
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
