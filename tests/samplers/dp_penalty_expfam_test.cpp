// The exponential-family penalty kernel ([Yildirim2020] Algorithm 3) and its two
// models. Independent values: the conjugate posteriors (Beta(a + S, b + n − S) computed here
// from the data; GaussianModel's closed-form moments), the per-row log-likelihood ratios of the
// existing GaussianModel summed over the rows (against the η/A form), the planner's spend for
// the template (against the recorded log), hand values of σ_d = σ|logit p′ − logit p|.
#include "samplers/dp_penalty_expfam.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>

#include "chain_moments.hpp"
#include "models/expfam_bernoulli.hpp"
#include "models/expfam_gaussian.hpp"
#include "privacy/gaussian_pld.hpp"
#include "privacy/planner.hpp"
#include "test_allowance.hpp"
#include "test_noise.hpp"

namespace dpmcmc {
namespace {

Vec vec2(double a, double b) {
  Vec v(2);
  v << a, b;
  return v;
}

ExpFamGaussianModel gauss_box() {
  Mat cov(2, 2);
  cov << 1.0, 0.3, 0.3, 0.5;
  return ExpFamGaussianModel(Vec::Zero(2), Mat::Identity(2, 2) * 10.0, cov, vec2(-3.0, -2.0),
                             vec2(4.0, 5.0));
}

Dataset bernoulli_data(const ExpFamBernoulliModel& m, std::size_t n) {
  Rng rng = make_rng(11, 0, Stream::data);
  return m.simulate(Vec::Constant(1, 0.3), n, rng);
}

// Monte Carlo standard error of the mean of x by 50 batch means (the batches are long compared
// with the chains' autocorrelation times, a few tens of steps here, so the batch means are
// nearly independent).
double batch_mcse(const Eigen::VectorXd& x) {
  constexpr Eigen::Index kBatches = 50;
  const Eigen::Index len = x.size() / kBatches;
  Eigen::VectorXd means(kBatches);
  for (Eigen::Index b = 0; b < kBatches; ++b) means[b] = x.segment(b * len, len).mean();
  const double mu = means.mean();
  const double var = (means.array() - mu).square().sum() / (kBatches - 1);
  return std::sqrt(var / kBatches);
}

// A PrivateData with a large allowance and its log.
struct Chain {
  Chain(const Model& m, const Dataset& d, std::uint64_t allowance)
      : pd(std::make_unique<PrivateData>(
            m, d, test_noise_rng(5, 0), log,
            gaussian_allowance({{ReleaseKind::suff_stat, allowance}}, kLowestTestMultiplier))) {}
  EventLog log;
  std::unique_ptr<PrivateData> pd;
};

// The exponential-family form reproduces the existing Gaussian model's likelihood ratio:
// (η(θ′) − η(θ))ᵀ Σx − n(A(θ′) − A(θ)) = Σᵢ [log p(xᵢ|θ′) − log p(xᵢ|θ)].
TEST(ExpFamModels, RatioFromStatisticEqualsSumOfPerRowRatios) {
  const auto m = gauss_box();
  Rng rng = make_rng(1, 0, Stream::data);
  const Dataset data = m.simulate(vec2(0.5, 1.0), 300, rng);
  const Vec t = vec2(0.2, 0.7), tp = vec2(0.6, 1.3);
  Vec lp(300), lq(300);
  m.log_lik_rows(tp, data.x, lp);
  m.log_lik_rows(t, data.x, lq);
  const double direct = (lp - lq).sum();
  const Vec s = data.x.colwise().sum().transpose();
  EXPECT_NEAR(m.log_lik_ratio_from_stat(t, tp, s, 300), direct, 1e-9 * std::abs(direct));
  EXPECT_DOUBLE_EQ(m.stat_sensitivity(), std::sqrt(49.0 + 49.0));  // ‖(7, 7)‖

  const ExpFamBernoulliModel b(2.0, 3.0);
  const Dataset y = bernoulli_data(b, 200);
  Vec l1(200), l0(200);
  b.log_lik_rows(Vec::Constant(1, 0.4), y.x, l1);
  b.log_lik_rows(Vec::Constant(1, 0.25), y.x, l0);
  const double d2 = (l1 - l0).sum();
  EXPECT_NEAR(b.log_lik_ratio_from_stat(Vec::Constant(1, 0.25), Vec::Constant(1, 0.4),
                                        Vec::Constant(1, y.x.sum()), 200),
              d2, 1e-10 * std::abs(d2));
}

// Beta(a + S, b + n − S) draws: mean and variance against the closed form. 20000 independent
// draws; the mean's se is sd/√20000, and 4 se bounds a deterministic (fixed-seed) check that a
// wrong parameter (e.g. b + S) would miss by > 100 se.
TEST(ExpFamModels, BernoulliExactPosteriorMatchesBetaMoments) {
  const ExpFamBernoulliModel b(2.0, 3.0);
  const Dataset y = bernoulli_data(b, 200);
  const double s = y.x.sum();
  const double pa = 2.0 + s, pb = 3.0 + 200.0 - s;
  const double mean = pa / (pa + pb);
  const double var = pa * pb / ((pa + pb) * (pa + pb) * (pa + pb + 1.0));
  Rng rng = make_rng(2, 0, Stream::exact);
  const Mat draws = b.sample_posterior(y, 20000, rng);
  EXPECT_NEAR(draws.mean(), mean, 4.0 * std::sqrt(var / 20000));
  const double v = (draws.array() - draws.mean()).square().sum() / 19999.0;
  // Relative se of a sample variance ≈ √(2/N) = 1%; 5% is 5 se.
  EXPECT_NEAR(v, var, 0.05 * var);
}

// Exactness. With tiny noise (σ_d ~ 1e-7) the kernel is the exact RWMH on the posterior given
// the data; with moderate noise (σ_d ≈ 1.6 on average) the penalty −σ_d²/2 must still make it
// exact. Mean and variance (the mean of (p − μ)², μ the exact mean) of the draws against the Beta
// posterior within 4 batch-means MCSE each. Mutation check (done by hand): without the penalty the
// τ = 0.6 chain over-accepts and its variance is ~1.9× the exact one (0.00197 vs 0.00102, about
// 36 MCSE off), so this test fails; with the penalty it passes.
TEST(DpPenaltyExpFamKernel, BernoulliChainTargetsTheExactPosteriorAtTinyAndModerateNoise) {
  const ExpFamBernoulliModel b(2.0, 3.0);
  const std::size_t n = 200;
  const Dataset y = bernoulli_data(b, n);
  const double s = y.x.sum();
  const double pa = 2.0 + s, pb = 3.0 + static_cast<double>(n) - s;
  const double mean = pa / (pa + pb);
  const double var = pa * pb / ((pa + pb) * (pa + pb) * (pa + pb + 1.0));
  for (const double tau : {1e-7, 0.6}) {
    Chain c(b, y, 60000);
    DpPenaltyExpFamConfig cfg;
    cfg.scale = Vec::Constant(1, 0.05);
    cfg.tau = tau;
    DpPenaltyExpFamKernel k(b, *c.pd, cfg);
    const auto mom = testing::run_kernel(k, Vec::Constant(1, mean), 1000, 50000, 17);
    const Eigen::VectorXd p = mom.draws.col(0);
    const Eigen::VectorXd sq = (p.array() - mean).square();
    EXPECT_NEAR(p.mean(), mean, 4.0 * batch_mcse(p)) << "tau " << tau;
    EXPECT_NEAR(sq.mean(), var, 4.0 * batch_mcse(sq)) << "tau " << tau;
    const double mean_sd = mom.extras.col(1).mean();
    if (tau < 1e-3) {
      EXPECT_LT(mean_sd, 1e-5);
    } else {
      EXPECT_GT(mean_sd, 1.0);  // the noise really matters in the second run
    }
    EXPECT_GT(mom.acceptance, 0.2);
  }
}

// The 2-d Gaussian mean with data in a box, tiny noise: posterior mean against the closed form
// (GaussianModel::posterior_moments), within 4 MCSE per component; the variance within 15%
// (batch-means relative se of a variance with ~2000 effective draws ≈ 3%; 15% ≈ 5 se).
TEST(DpPenaltyExpFamKernel, GaussianBoxChainTargetsTheExactPosterior) {
  const auto m = gauss_box();
  Rng rng = make_rng(7, 0, Stream::data);
  const Dataset data = m.simulate(vec2(0.5, 1.0), 500, rng);
  const auto exact = m.posterior_moments(data);
  Chain c(m, data, 60000);
  DpPenaltyExpFamConfig cfg;
  cfg.scale = vec2(0.05, 0.035);
  cfg.tau = 1e-7;
  DpPenaltyExpFamKernel k(m, *c.pd, cfg);
  const auto mom = testing::run_kernel(k, exact.mean, 1000, 40000, 23);
  for (int j = 0; j < 2; ++j) {
    const Eigen::VectorXd x = mom.draws.col(j);
    EXPECT_NEAR(x.mean(), exact.mean[j], 4.0 * batch_mcse(x)) << j;
    EXPECT_NEAR(mom.cov(j, j), exact.cov(j, j), 0.15 * exact.cov(j, j)) << j;
  }
  EXPECT_EQ(c.log.releases(), 41000u);  // one release per transition (no free moves here)
}

// Recorded = planned: the Gaussian PLD of the log equals the planner's spend for k iterations of
// dp_penalty_expfam_template (rounding only); then the chain is exhausted and no further release
// is possible. noise_sd__ after an accepted move is σ|logit p′ − logit p| with σ = τ√n·1.
TEST(DpPenaltyExpFamKernel, RecordedSpendEqualsPlannedAndNoiseColumnIsSigmaTimesEtaStep) {
  const ExpFamBernoulliModel b(2.0, 3.0);
  const std::size_t n = 400;
  const Dataset y = bernoulli_data(b, n);
  constexpr std::uint64_t kIters = 250;
  Chain c(b, y, kIters);
  DpPenaltyExpFamConfig cfg;
  cfg.scale = Vec::Constant(1, 0.03);
  cfg.tau = 0.05;
  DpPenaltyExpFamKernel k(b, *c.pd, cfg);
  EXPECT_DOUBLE_EQ(k.noise_multiplier(), 0.05 * 20.0);
  k.init(Vec::Constant(1, 0.3));
  Rng rng = make_rng(3, 0);
  double extras[3];
  std::uint64_t steps = 0;
  bool checked_column = false;
  while (!k.exhausted()) {
    const double before = k.position()[0];
    const auto info = k.transition(rng, extras);
    ++steps;
    ASSERT_LE(steps, 2 * kIters);
    if (info.accepted && !checked_column) {
      const double after = k.position()[0];
      const double deta = std::log(after / (1 - after)) - std::log(before / (1 - before));
      EXPECT_NEAR(extras[1], 1.0 * std::abs(deta), 1e-6 * std::abs(deta));  // + the grid's share
      checked_column = true;
    }
  }
  EXPECT_TRUE(checked_column);
  EXPECT_EQ(c.log.releases(), kIters);
  for (const PrivacyEvent& e : c.log.events()) {
    EXPECT_EQ(e.kind, ReleaseKind::suff_stat);
    EXPECT_NEAR(e.noise_multiplier(), 1.0, 1e-12);
  }
  const GaussianPldAccountant pld;
  const double delta = 1e-5;
  const double recorded = pld.compose(c.log.events())->epsilon(delta);
  const double planned = iterations_spend(
      pld, dp_penalty_expfam_template(0.05, static_cast<double>(n)), kIters, delta);
  EXPECT_NEAR(recorded, planned, 1e-9 * planned);
  EXPECT_THROW(k.transition(rng, extras), BudgetExhausted);
  EXPECT_EQ(c.log.releases(), kIters);
}

TEST(DpPenaltyExpFamKernel, BadInput) {
  // Box with hi ≤ lo, wrong size, non-finite.
  EXPECT_THROW(ExpFamGaussianModel(Vec::Zero(2), Mat::Identity(2, 2), Mat::Identity(2, 2),
                                   vec2(0.0, 1.0), vec2(1.0, 1.0)),
               ConfigError);
  EXPECT_THROW(ExpFamGaussianModel(Vec::Zero(2), Mat::Identity(2, 2), Mat::Identity(2, 2),
                                   vec2(0.0, 1.0), vec2(1.0, 0.5)),
               ConfigError);
  EXPECT_THROW(ExpFamGaussianModel(Vec::Zero(2), Mat::Identity(2, 2), Mat::Identity(2, 2),
                                   Vec::Zero(1), Vec::Ones(1)),
               ConfigError);
  EXPECT_THROW(ExpFamGaussianModel(Vec::Zero(2), Mat::Identity(2, 2), Mat::Identity(2, 2),
                                   vec2(-INFINITY, 0.0), vec2(1.0, 1.0)),
               ConfigError);
  EXPECT_THROW(ExpFamBernoulliModel(0.0, 1.0), ConfigError);
  EXPECT_THROW(ExpFamBernoulliModel(1.0, std::nan("")), ConfigError);

  // Data outside the box: building the kernel refuses with a DataError naming the row and the
  // column, and nothing is released.
  const auto m = gauss_box();
  Rng rng = make_rng(7, 0, Stream::data);
  Dataset data = m.simulate(vec2(0.5, 1.0), 100, rng);
  data.x(41, 0) = -3.5;
  Chain c(m, data, 10);
  DpPenaltyExpFamConfig cfg;
  cfg.scale = Vec::Constant(1, 0.1);
  try {
    DpPenaltyExpFamKernel k(m, *c.pd, cfg);
    ADD_FAILURE() << "no DataError";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("row 42"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'x.1'"), std::string::npos) << e.what();
  }
  EXPECT_EQ(c.log.releases(), 0u);

  // Kernel parameters and start.
  const ExpFamBernoulliModel b(1.0, 1.0);
  const Dataset y = bernoulli_data(b, 50);
  Chain cb(b, y, 10);
  for (const double bad : {0.0, -1.0, std::nan("")}) {
    DpPenaltyExpFamConfig t;
    t.tau = bad;
    EXPECT_THROW(DpPenaltyExpFamKernel(b, *cb.pd, t), ConfigError);
    DpPenaltyExpFamConfig a;
    a.alpha = bad;
    EXPECT_THROW(DpPenaltyExpFamKernel(b, *cb.pd, a), ConfigError);
    DpPenaltyExpFamConfig s;
    s.scale = Vec::Constant(1, bad);
    EXPECT_THROW(DpPenaltyExpFamKernel(b, *cb.pd, s), ConfigError);
  }
  DpPenaltyExpFamKernel kb(b, *cb.pd, DpPenaltyExpFamConfig{});
  EXPECT_THROW(kb.init(Vec::Constant(1, 1.5)), ConfigError);  // outside (0, 1)
  EXPECT_THROW(kb.init(Vec::Constant(2, 0.5)), ConfigError);  // wrong size
  EXPECT_THROW(dp_penalty_expfam_template(0.0, 10.0), ConfigError);
}

}  // namespace
}  // namespace dpmcmc
