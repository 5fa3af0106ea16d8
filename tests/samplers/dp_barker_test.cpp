// DP Barker kernel and release ([Raisa2021] Algorithm 3): the acceptance
// probability of the noisy test against Barker's 1/(1 + e^{−λ}) by simulation at fixed λ with a
// large batch-variance share, recorded = planned events, no early end, the draw columns, and bad
// configuration.
#include "samplers/dp_barker.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <numbers>
#include <vector>

#include "gaussian_test_model.hpp"
#include "privacy/barker_accounting.hpp"
#include "privacy/planner.hpp"
#include "test_allowance.hpp"
#include "test_noise.hpp"

namespace dpmcmc {
namespace {

using testing::GaussianTestModel;

// 1-d Gaussian mean model, unit likelihood variance, tempered T = n0/n.
GaussianTestModel model_1d(double temperature) {
  return GaussianTestModel(Vec::Zero(1), 100.0 * Mat::Identity(1, 1), Mat::Identity(1, 1),
                           temperature);
}

Dataset data_1d(const Model& model, std::size_t n) {
  Rng rng = make_rng(77, 0, Stream::data);
  return model.simulate(Vec::Zero(1), n, rng);
}

// P(accept) = P(Y + c > 0) for the release Y at fixed (θ, θ′), against logistic(λ + c) with
// λ = T Σ_i clip(r_i) over ALL rows (computed here from the data, independently of the release).
// The step d makes the batch variance σ_b² ≈ 0.5 (a quarter of σ² = 2), so the test is sensitive
// to how the noise is split: the rule that forgets to subtract σ_b² (noise N(0, σ²) on top of the
// batch error) has an acceptance probability off by more than the tolerance, computed below.
// Tolerance: the V_corr fit's sup CDF error + 4 binomial standard errors of the 5·10⁴ draws (the
// CLT error of a 500-row batch mean of clipped Gaussian ratios, skewness ≈ 0, is far smaller).
TEST(DpBarkerRelease, AcceptanceProbabilityIsLogisticWithinTheCorrectionError) {
  const std::size_t n = 100000, b = 500;
  const double n0 = 1000.0;
  const GaussianTestModel model = model_1d(n0 / double(n));
  const Dataset data = data_1d(model, n);
  const double step = std::sqrt(0.8 * double(b)) / n0;
  Vec theta = Vec::Zero(1), theta_p = Vec::Constant(1, step);

  // Independent λ and the full-data σ² of the clipped ratios.
  const double bound = std::sqrt(double(b)) / n0;
  Vec r(static_cast<Eigen::Index>(n));
  model.log_lik_ratio_rows(theta, theta_p, data.block(0, n), r);
  r = r.array().max(-bound).min(bound);
  const double lambda = model.temperature() * r.sum();
  const double var_r = (r.array() - r.mean()).square().mean();
  const double sigma_b2 = n0 * n0 / double(b) * var_r;
  RecordProperty("sigma_b2", std::to_string(sigma_b2));
  ASSERT_GT(sigma_b2, 0.4);
  ASSERT_LT(sigma_b2, 1.0);

  const LogisticCorrection corr(2.0);
  const std::function<double(NoiseRng&)> draw = [&corr](NoiseRng& g) { return corr.sample(g); };
  constexpr int kDraws = 50000;
  EventLog log;
  PrivateData pd(model, data, test_noise_rng(3, 0), log,
                 template_allowance(dp_barker_template(2.0, b, n), kDraws));
  std::vector<double> y(kDraws);
  for (auto& v : y) v = pd.llr_batch_barker(theta, theta_p, 2.0, b, draw).value;
  EXPECT_EQ(log.releases(), static_cast<std::uint64_t>(kDraws));

  const double tol = corr.fit().cdf_sup + 4.0 * std::sqrt(0.25 / kDraws);
  for (double c : {-2.0, -0.7, 0.0, 0.5, 1.5, 3.0}) {
    const double x = lambda + c;
    double hits = 0;
    for (double v : y) hits += (v + c > 0.0);
    const double p = hits / kDraws;
    EXPECT_NEAR(p, logistic_cdf(x), tol) << "λ + c = " << x;
    // Power: the naive rule's probability E_s[F(x + s)], s ~ N(0, σ_b²), F the CDF of
    // N(0, σ²) + V_corr (Simpson over ±8 sd).
    const int m = 400;
    const double sd = std::sqrt(sigma_b2), h = 16.0 * sd / m;
    double naive = 0.0;
    for (int i = 0; i <= m; ++i) {
      const double s = -8.0 * sd + i * h;
      const double w = (i == 0 || i == m) ? 1.0 : (i % 2 ? 4.0 : 2.0);
      naive += w * corr.convolved_cdf(x + s) * std::exp(-0.5 * s * s / sigma_b2);
    }
    naive *= h / 3.0 / (sd * std::sqrt(2.0 * std::numbers::pi));
    std::printf("λ + c = %+.3f: P(accept) %.4f, logistic %.4f, naive rule %.4f, tolerance %.4f\n",
                x, p, logistic_cdf(x), naive, tol);
    if (std::abs(x) > 1.0) {
      EXPECT_GT(std::abs(naive - logistic_cdf(x)), tol) << x;
    }
  }
}

struct Problem {
  GaussianTestModel model = model_1d(1000.0 / 20000.0);
  Dataset data = data_1d(model, 20000);
};

DpBarkerConfig config(std::size_t batch = 400) {
  DpBarkerConfig c;
  c.scale = Vec::Constant(1, 0.05);
  c.noise_variance = 2.0;
  c.batch = batch;
  return c;
}

// k iterations of the configuration's plan.
ReleaseAllowance barker_plan(const DpBarkerConfig& c, const Dataset& data, std::uint64_t k) {
  return template_allowance(dp_barker_template(c.noise_variance, c.batch, data.rows()), k);
}

TEST(DpBarkerKernel, RecordedSpendEqualsPlannedAndTheChainRunsToTheAllowance) {
  const Problem p;
  constexpr std::uint64_t k = 3000;
  EventLog log;
  PrivateData pd(p.model, p.data, test_noise_rng(8, 0), log, barker_plan(config(), p.data, k));
  DpBarkerKernel kernel(p.model, pd, config());
  kernel.init(Vec::Constant(1, 0.01));
  Rng rng = make_rng(8, 0);
  double extras[3];
  std::uint64_t steps = 0, accepted = 0;
  while (!kernel.exhausted()) {
    accepted += kernel.transition(rng, extras).accepted;
    ++steps;
    ASSERT_LE(steps, k);
    EXPECT_TRUE(std::isfinite(kernel.position()[0]));
  }
  EXPECT_EQ(steps, k);  // no early end: every planned iteration ran
  EXPECT_EQ(log.releases(), k);
  EXPECT_GT(accepted, k / 10);
  EXPECT_LT(accepted, k);
  const auto tmpl = dp_barker_template(2.0, 400, 20000);
  const BarkerRdpAccountant acc;
  const double planned = iterations_spend(acc, tmpl, k, 1e-5);
  EXPECT_DOUBLE_EQ(acc.compose(log.events())->epsilon(1e-5), planned);
  for (const auto& e : log.events()) {
    EXPECT_EQ(e.kind, tmpl[0].kind);
    EXPECT_EQ(e.epsilon, tmpl[0].epsilon);
    EXPECT_EQ(e.sensitivity, tmpl[0].sensitivity);
    EXPECT_EQ(e.noise_sd, tmpl[0].noise_sd);
    EXPECT_EQ(e.sampling_rate, tmpl[0].sampling_rate);
  }
  EXPECT_THROW(
      pd.llr_batch_barker(Vec::Zero(1), Vec::Ones(1), 2.0, 400, [](NoiseRng&) { return 0.0; }),
      BudgetExhausted);
}

// Float-safe noise (privacy/barker_grid.hpp): without V_corr the release is a multiple of the
// grid h = 2⁻⁴¹ (an integer number of grid steps, which floating-point Gaussian noise would not
// give), and the same noise key gives the same values.
TEST(DpBarkerRelease, ValueIsOnTheGridAndReproducesWithTheSameKey) {
  const Problem p;
  const auto zero = [](NoiseRng&) { return 0.0; };
  const auto run = [&](std::uint64_t key) {
    EventLog log;
    PrivateData pd(p.model, p.data, test_noise_rng(key, 0), log, barker_plan(config(), p.data, 20));
    std::vector<double> out;
    for (int i = 0; i < 20; ++i) {
      out.push_back(
          pd.llr_batch_barker(Vec::Zero(1), Vec::Constant(1, 0.01 * i), 2.0, 400, zero).value);
    }
    return out;
  };
  const auto a = run(4), b = run(4), c = run(5);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  for (double v : a) {
    const double steps = std::ldexp(v, 41);
    EXPECT_EQ(steps, std::nearbyint(steps)) << v;
  }
}

TEST(DpBarkerKernel, ExtraColumnsDescribeTheReleaseAndLeaveOutTheBatchVariance) {
  const Problem p;
  EventLog log;
  PrivateData pd(p.model, p.data, test_noise_rng(9, 0), log, barker_plan(config(), p.data, 10));
  DpBarkerKernel kernel(p.model, pd, config());
  EXPECT_EQ(kernel.name(), "dp-barker");
  EXPECT_EQ(kernel.extra_columns(),
            (std::vector<std::string>{"clip_frac__", "noise_sd__", "eps_spent__"}));
  EXPECT_DOUBLE_EQ(kernel.clip_bound(), std::sqrt(400.0) / 1000.0);
  kernel.set_spend_callback([](std::uint64_t r) { return 0.5 * double(r); });
  kernel.init(Vec::Constant(1, 0.01));
  Rng rng = make_rng(9, 0);
  double extras[3];
  const TransitionInfo info = kernel.transition(rng, extras);
  EXPECT_TRUE(std::isnan(info.log_density));
  EXPECT_TRUE(info.accept_stat == 0.0 || info.accept_stat == 1.0);
  EXPECT_GE(extras[0], 0.0);
  EXPECT_LE(extras[0], 1.0);
  EXPECT_DOUBLE_EQ(extras[1], std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(extras[2], 0.5);
}

// Large steps clip every row: the batch variance stays ≤ 1 and the chain keeps going.
TEST(DpBarkerKernel, HeavyClippingNeverStopsTheChain) {
  const Problem p;
  EventLog log;
  DpBarkerConfig c = config(16);
  PrivateData pd(p.model, p.data, test_noise_rng(10, 0), log, barker_plan(c, p.data, 500));
  c.scale = Vec::Constant(1, 50.0);
  DpBarkerKernel kernel(p.model, pd, c);
  kernel.init(Vec::Constant(1, 0.0));
  Rng rng = make_rng(10, 0);
  double extras[3], clip = 0.0;
  for (int i = 0; i < 500; ++i) {
    kernel.transition(rng, extras);
    clip += extras[0];
  }
  EXPECT_GT(clip / 500, 0.9);
  EXPECT_EQ(log.releases(), 500u);
}

// Approximate exactness where the clip does not bind: 1-d Gaussian mean, n = 20000, n0 = 1000
// (T = 0.05), b = 1000, clip √b/n0 = 0.032, step 0.01 (a third of the posterior sd 0.0316), so a
// row is clipped only when |θ′ − θ|·|x − θ̄| > 0.032 (measured: 1.6% of rows). Barker's rule is
// reversible for the tempered posterior N(m, s²) (closed form); the chain's mean must be within 4
// MCSE (batch means) and its sd within 10% (measured: mean 0.7 MCSE off, sd 3.5% high).
TEST(DpBarkerKernel, TargetsTheTemperedPosteriorWhenTheClipDoesNotBind) {
  const GaussianTestModel model = model_1d(1000.0 / 20000.0);
  const Dataset data = data_1d(model, 20000);
  const double m = model.posterior_mean(data)[0];
  const double s = std::sqrt(model.posterior_cov(data)(0, 0));
  constexpr std::size_t k = 40000, burn = 2000;
  EventLog log;
  DpBarkerConfig c = config(1000);
  PrivateData pd(model, data, test_noise_rng(12, 0), log, barker_plan(c, data, k));
  c.scale = Vec::Constant(1, 0.01);
  DpBarkerKernel kernel(model, pd, c);
  kernel.init(Vec::Constant(1, m));
  Rng rng = make_rng(12, 0);
  double extras[3], clip = 0.0;
  Eigen::VectorXd x(static_cast<Eigen::Index>(k - burn));
  for (std::size_t i = 0; i < k; ++i) {
    kernel.transition(rng, extras);
    clip += extras[0];
    if (i >= burn) x[static_cast<Eigen::Index>(i - burn)] = kernel.position()[0];
  }
  constexpr Eigen::Index kBatches = 50;
  const Eigen::Index len = x.size() / kBatches;
  Eigen::VectorXd means(kBatches);
  for (Eigen::Index bi = 0; bi < kBatches; ++bi) means[bi] = x.segment(bi * len, len).mean();
  const double mcse =
      std::sqrt((means.array() - means.mean()).square().sum() / (kBatches - 1) / kBatches);
  const double mean = x.mean();
  const double sd = std::sqrt((x.array() - mean).square().mean());
  std::printf(
      "dp-barker gaussian: mean %.5f (exact %.5f, mcse %.5f), sd %.5f (exact %.5f), "
      "clipped %.4f\n",
      mean, m, mcse, sd, s, clip / k);
  EXPECT_LT(clip / k, 0.03);
  EXPECT_NEAR(mean, m, 4.0 * mcse);
  EXPECT_NEAR(sd, s, 0.1 * s);
}

TEST(DpBarkerKernel, BadConfigurationNamesTheParameter) {
  const Problem p;
  auto message = [&](DpBarkerConfig c, const Model& m) {
    EventLog log;
    PrivateData pd(m, p.data, test_noise_rng(1, 0), log, barker_plan(config(), p.data, 1));
    try {
      DpBarkerKernel kernel(m, pd, std::move(c));
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  DpBarkerConfig c = config();
  c.noise_variance = std::numbers::pi * std::numbers::pi / 3.0;
  EXPECT_NE(message(c, p.model).find("--noise-variance"), std::string::npos);
  c.noise_variance = 0.0;
  EXPECT_NE(message(c, p.model).find("--noise-variance"), std::string::npos);
  c = config(5);
  EXPECT_NE(message(c, p.model).find("--batch"), std::string::npos);
  c = config(20001);
  EXPECT_NE(message(c, p.model).find("n = 20000"), std::string::npos);
  c = config();
  c.scale = Vec::Constant(1, -1.0);
  EXPECT_NE(message(c, p.model).find("proposal sd"), std::string::npos);
  // n0 > n: T > 1 (the test model accepts it; the sampler refuses).
  const GaussianTestModel hot = model_1d(2.0);
  EXPECT_NE(message(config(), hot).find("n0 ≤ n"), std::string::npos);
  EXPECT_EQ(message(config(), p.model), "");
}

}  // namespace
}  // namespace dpmcmc
