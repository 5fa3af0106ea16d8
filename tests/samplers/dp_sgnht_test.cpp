// DP-SGNHT: the discretisation of Ding et al. 2014 (Algorithm 1) step by step, the injected
// momentum noise √(2Ah) supplied by the release (measured), the stationary law on a Gaussian
// target with the thermostat's own stationary mean A, recorded = planned privacy, bad options.
#include "samplers/dp_sgnht.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "chain_moments.hpp"
#include "gaussian_test_model.hpp"
#include "privacy/planner.hpp"
#include "privacy/rdp_accountant.hpp"
#include "test_allowance.hpp"
#include "test_noise.hpp"

namespace dpmcmc {
namespace {

using testing::GaussianTestModel;

// Flat prior, zero per-row gradients: the only force is the release's noise.
class NoForceModel final : public Model {
 public:
  explicit NoForceModel(double temperature) : t_(temperature) {}
  std::string name() const override { return "no-force"; }
  int dim() const override { return 2; }
  std::vector<std::string> data_columns() const override { return {"x1", "x2"}; }
  double log_prior(const Vec&) const override { return 0.0; }
  void grad_log_prior(const Vec&, Eigen::Ref<Vec> out) const override { out.setZero(); }
  double temperature() const override { return t_; }
  void log_lik_rows(const Vec&, const RowBlock&, Eigen::Ref<Vec> out) const override {
    out.setZero();
  }
  void grad_log_lik_rows(const Vec&, const RowBlock&, Eigen::Ref<Mat> out) const override {
    out.setZero();
  }
  Dataset simulate(const Vec&, std::size_t n, Rng&) const override {
    Dataset d;
    d.columns = data_columns();
    d.x = Mat::Zero(static_cast<Eigen::Index>(n), 2);
    return d;
  }

 private:
  double t_;
};

struct Fixture {
  Dataset data;
  EventLog log;
  std::unique_ptr<PrivateData> pd;
  Fixture(const Model& model, Dataset d, std::uint64_t allowance, const BatchSpec& batch)
      : data(std::move(d)) {
    pd = std::make_unique<PrivateData>(model, data, test_noise_rng(7, 0), log,
                                       batch_test_allowance(batch, data.rows(), allowance));
  }
};

// One step with no force is p' = (1 − ξh)p + ε, θ' = θ + h p', ξ' = ξ + h(p'ᵀp'/d − 1) with
// ε ~ N(0, 2Ah I) from the release alone. The first two identities are checked to rounding at
// every step; the residual ε's sample variance over N = 20000 steps × 2 coordinates must be 2Ah
// within 4 relative sds √(2/40000) = 2.8% (a missing factor 2 in A is a 50% error).
TEST(DpSgnht, DingDiscretisationAndInjectedNoise) {
  constexpr int kSteps = 20000;
  const double h = 0.01, a = 2.0;
  for (const BatchSpec batch :
       {BatchSpec{BatchSampling::poisson, 20}, BatchSpec{BatchSampling::without_replacement, 20}}) {
    for (const double t : {1.0, 0.3}) {
      NoForceModel model(t);
      Rng data_rng = make_rng(1, 0, Stream::data);
      Fixture f(model, model.simulate(Vec::Zero(2), 200, data_rng), kSteps, batch);
      DpSgnhtKernel kernel(model, *f.pd, {h, 2.0, a, batch});
      kernel.init(Vec::Zero(2));
      EXPECT_EQ(kernel.thermostat(), a) << "xi(0) = A";
      Rng rng = make_rng(3, 0);
      double extras[5];
      // The first step draws p(0) ~ N(0, I) itself; start measuring after it.
      kernel.transition(rng, extras);
      double sum2 = 0.0;
      for (int i = 0; i < kSteps - 1; ++i) {
        const Vec theta = kernel.position(), p = kernel.momentum();
        const double xi = kernel.thermostat();
        kernel.transition(rng, extras);
        const Vec& p1 = kernel.momentum();
        ASSERT_LT((kernel.position() - (theta + h * p1)).norm(), 1e-12 * (1 + theta.norm()));
        ASSERT_NEAR(kernel.thermostat(), xi + h * (p1.squaredNorm() / 2.0 - 1.0),
                    1e-12 * (1 + std::abs(xi)));
        ASSERT_EQ(extras[4], kernel.thermostat());
        sum2 += (p1 - (1.0 - xi * h) * p).squaredNorm();
      }
      const double m = 2.0 * (kSteps - 1);
      EXPECT_NEAR(sum2 / m / (2.0 * a * h), 1.0, 4.0 * std::sqrt(2.0 / m))
          << batch_sampling_name(batch.sampling) << ", T = " << t;
    }
  }
}

// Batch-means standard error of the mean of x (50 batches).
double batch_se(const Eigen::VectorXd& x) {
  constexpr int kBatches = 50;
  const Eigen::Index len = x.size() / kBatches;
  Eigen::VectorXd means(kBatches);
  for (int i = 0; i < kBatches; ++i) means[i] = x.segment(i * len, len).mean();
  const double mu = means.mean();
  return std::sqrt((means.array() - mu).square().sum() / (kBatches - 1) / kBatches);
}

// STATIONARY LAW. With exact gradients (full batch, no clipping) the SGNHT dynamics leave
// π(θ) ∝ exp(−U) × N(p; 0, I) × N(ξ; A, 1/d) invariant (Ding et al. 2014, Section 3), so the
// chain's θ mean and variances should match the exact posterior, and the mean of ξ should be A.
// Tolerance: 5 batch-means standard errors plus a discretisation allowance of 3% of the
// variance (first-order scheme at h·√λ_max ≈ 0.06; measured deviations of the variances −2.3%
// and −1.4%, 1.8 and 0.9 standard errors). The thermostat makes the θ variance insensitive to a
// wrong injected noise level (ξ adapts); the check of E ξ = A is the one that catches it.
TEST(DpSgnht, FullBatchChainTargetsThePosterior) {
  GaussianTestModel model = testing::standard_model();
  const Dataset data = testing::standard_data(model);
  const std::size_t n = data.rows();
  const Mat cov = model.posterior_cov(data);
  const Vec mean = model.posterior_mean(data);
  constexpr std::size_t kBurn = 5000, kDraws = 300000;
  const double a = 5.0;
  Fixture f(model, data, kBurn + kDraws, BatchSpec{BatchSampling::without_replacement, n});
  DpSgnhtKernel kernel(model, *f.pd,
                       {0.01, 1e9, a, BatchSpec{BatchSampling::without_replacement, n}});
  const testing::ChainMoments cm = testing::run_kernel(kernel, mean, kBurn, kDraws, 13);
  for (int j = 0; j < 2; ++j) {
    const Eigen::VectorXd x = cm.draws.col(j);
    const Eigen::VectorXd sq = (x.array() - mean[j]).square().matrix();
    const double sd = std::sqrt(cov(j, j));
    EXPECT_NEAR(cm.mean[j], mean[j], 5.0 * batch_se(x)) << "component " << j;
    EXPECT_NEAR(sq.mean(), cov(j, j), 5.0 * batch_se(sq) + 0.03 * cov(j, j))
        << "component " << j << ", posterior sd " << sd;
  }
  const Eigen::VectorXd xi = cm.extras.col(4);
  EXPECT_NEAR(xi.mean(), a, 5.0 * batch_se(xi)) << "E xi = A";
  EXPECT_EQ(cm.acceptance, 1.0);
}

// PLANNED = RECORDED, the multiplier m = (b/n)√(2A/h)/Δ, the allowance.
TEST(DpSgnht, RecordedEventsEqualTemplateTimesIterations) {
  constexpr std::uint64_t k = 120;
  GaussianTestModel model(Vec::Zero(2), 100.0 * Mat::Identity(2, 2), Mat::Identity(2, 2), 0.5);
  Rng data_rng = make_rng(4, 0, Stream::data);
  const Dataset data = model.simulate(Vec::Constant(2, 0.3), 400, data_rng);
  for (const BatchSampling s : {BatchSampling::poisson, BatchSampling::without_replacement}) {
    const BatchSpec batch{s, 40};
    Fixture f(model, data, k, batch);
    DpSgnhtKernel kernel(model, *f.pd, {1e-3, 2.0, 3.0, batch});
    const double delta_unit = (s == BatchSampling::poisson ? 1.0 : 2.0) * 0.5 * 2.0;
    const double m = 40.0 / 400.0 * std::sqrt(2.0 * 3.0 / 1e-3) / delta_unit;
    EXPECT_NEAR(kernel.noise_multiplier(), m, 1e-12 * m);
    const std::vector<PrivacyEvent> tmpl = sg_iteration_template(batch, 400, m);
    kernel.init(Vec::Constant(2, 0.3));
    Rng rng = make_rng(2, 0);
    double extras[5];
    std::uint64_t steps = 0;
    while (!kernel.exhausted()) {
      kernel.transition(rng, extras);
      ASSERT_LE(++steps, k);
    }
    EXPECT_EQ(steps, k);
    EXPECT_EQ(f.log.releases(), k);
    for (const PrivacyEvent& e : f.log.events()) {
      EXPECT_EQ(e.sampling,
                s == BatchSampling::poisson ? Sampling::poisson : Sampling::without_replacement);
      EXPECT_EQ(e.relation,
                s == BatchSampling::poisson ? Neighbouring::add_remove : Neighbouring::substitute);
      EXPECT_EQ(e.kind, ReleaseKind::grad_batch);
      EXPECT_NEAR(e.noise_multiplier(), m, 1e-12 * m);
    }
    const RdpAccountant rdp;
    const double recorded = rdp.compose(f.log.events())->epsilon(1e-5);
    const double planned = iterations_spend(rdp, tmpl, k, 1e-5);
    EXPECT_NEAR(recorded, planned, 1e-9 * planned);
    EXPECT_THROW(kernel.transition(rng, extras), BudgetExhausted);
  }
}

TEST(DpSgnht, ColumnsInitAndBadOptions) {
  GaussianTestModel model = testing::standard_model();
  const Dataset data = testing::standard_data(model);  // n = 30
  const BatchSpec batch{BatchSampling::poisson, 10};
  Fixture f(model, data, 20, batch);
  DpSgnhtKernel kernel(model, *f.pd, {1e-3, 1.0, 4.0, batch});
  EXPECT_EQ(kernel.name(), "dp-sgnht");
  EXPECT_EQ(kernel.extra_columns(),
            (std::vector<std::string>{"grad_clip_frac__", "noise_sd__", "batch_size__",
                                      "eps_spent__", "xi__"}));
  kernel.init(Vec::Constant(2, 0.5));
  Rng rng = make_rng(2, 0);
  double extras[5];
  const TransitionInfo info = kernel.transition(rng, extras);
  EXPECT_TRUE(std::isnan(info.log_density));
  EXPECT_EQ(info.accept_stat, 1.0);
  EXPECT_TRUE(std::isnan(extras[3])) << "no spend callback";
  EXPECT_NE(kernel.thermostat(), 4.0);
  kernel.init(Vec::Constant(2, 0.5));
  EXPECT_EQ(kernel.thermostat(), 4.0) << "init resets xi to A";

  const auto expect = [&](DpSgnhtConfig c, const std::string& needle) {
    try {
      DpSgnhtKernel k(model, *f.pd, c);
      ADD_FAILURE() << "no ConfigError naming " << needle;
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect({1e-3, 1.0, 0.0, batch}, "--thermostat");
  expect({1e-3, 1.0, -2.0, batch}, "--thermostat");
  expect({1e-3, 1.0, std::nan(""), batch}, "--thermostat");
  expect({0.0, 1.0, 1.0, batch}, "--step-size");
  expect({1e-3, 0.0, 1.0, batch}, "--clip");
  expect({1e-3, 1.0, 1.0, BatchSpec{BatchSampling::without_replacement, 0}}, "--batch");
  expect({1e-3, 1.0, 1.0, BatchSpec{BatchSampling::poisson, 31}}, "--batch");
}

}  // namespace
}  // namespace dpmcmc
