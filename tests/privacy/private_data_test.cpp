// PrivateData (docs/architecture.md): every release equals the clipped sum computed independently
// here plus exactly the noise drawn from the same noise stream; clip counts, events, the allowance
// and tempering are checked against hand values.
#include "privacy/private_data.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <memory>

#include "models/gaussian.hpp"
#include "test_allowance.hpp"
#include "test_grid.hpp"
#include "test_noise.hpp"

namespace dpmcmc {
namespace {

constexpr std::uint64_t kNoiseSeed = 77;

NoiseRng noise() {
  return test_noise_rng(kNoiseSeed, 0);
}

// Delegates to a model, counting block evaluations; optionally returns NaN ratios.
class CountingModel final : public Model {
 public:
  explicit CountingModel(const Model& inner) : inner_(inner) {}
  std::string name() const override { return "counting"; }
  int dim() const override { return inner_.dim(); }
  std::vector<std::string> data_columns() const override { return inner_.data_columns(); }
  double log_prior(const Vec& t) const override { return inner_.log_prior(t); }
  void grad_log_prior(const Vec& t, Eigen::Ref<Vec> out) const override {
    inner_.grad_log_prior(t, out);
  }
  double temperature() const override { return inner_.temperature(); }
  void log_lik_rows(const Vec& t, const RowBlock& rows, Eigen::Ref<Vec> out) const override {
    ++calls;
    inner_.log_lik_rows(t, rows, out);
  }
  void log_lik_ratio_rows(const Vec& t, const Vec& tp, const RowBlock& rows,
                          Eigen::Ref<Vec> out) const override {
    ++calls;
    inner_.log_lik_ratio_rows(t, tp, rows, out);
    if (inject_nan) out(0) = std::numeric_limits<double>::quiet_NaN();
  }
  void grad_log_lik_rows(const Vec& t, const RowBlock& rows, Eigen::Ref<Mat> out) const override {
    ++calls;
    inner_.grad_log_lik_rows(t, rows, out);
  }
  Dataset simulate(const Vec& t, std::size_t n, Rng& rng) const override {
    return inner_.simulate(t, n, rng);
  }
  mutable int calls = 0;
  bool inject_nan = false;

 private:
  const Model& inner_;
};

GaussianModel gauss2(double temperature = 1.0) {
  Mat cov(2, 2);
  cov << 1.0, 0.5, 0.5, 2.0;
  return GaussianModel(Vec::Zero(2), Mat::Identity(2, 2) * 100.0, cov, temperature);
}

Dataset simulated(const Model& m, std::size_t n) {
  Rng rng = make_rng(5, 0, Stream::data);
  return m.simulate(Vec::Constant(m.dim(), 0.3), n, rng);
}

Vec vec2(double a, double b) {
  Vec v(2);
  v << a, b;
  return v;
}

// The clipped sum the slow way: each row's log p(x|θ′) − log p(x|θ) from two separate
// log_lik_rows calls over the whole dataset (not the model's fused ratio, not in blocks).
struct Direct {
  double sum = 0.0;
  std::size_t clipped = 0;
};
Direct direct_llr(const Model& m, const Dataset& d, const Vec& t, const Vec& tp, double b) {
  Vec a(d.rows()), c(d.rows());
  m.log_lik_rows(t, d.x, a);
  m.log_lik_rows(tp, d.x, c);
  Direct out;
  for (std::size_t i = 0; i < d.rows(); ++i) {
    const double r = c[i] - a[i];
    if (std::abs(r) > b) ++out.clipped;
    out.sum += std::clamp(r, -b, b);
  }
  return out;
}

TEST(PrivateData, LlrSumIsDirectClippedSumPlusTheNoiseDraw) {
  const GaussianModel m = gauss2();
  // 10 000 rows: two full blocks of 4096 and a partial one.
  const Dataset d = simulated(m, 10000);
  EventLog log;
  PrivateData pd(m, d, noise(), log,
                 gaussian_allowance({{ReleaseKind::llr_sum, 10}}, kLowestTestMultiplier));
  const Vec t = vec2(0.3, 0.2), tp = vec2(0.35, 0.1);
  const double b = 0.08;  // clips a sizeable share of rows (|r| ~ ‖Σ⁻¹(x−θ̄)‖·‖Δθ‖ ≈ 0.1)
  const Direct want = direct_llr(m, d, t, tp, b);
  ASSERT_GT(want.clipped, 100u);
  ASSERT_LT(want.clipped, 9900u);
  const ScalarRelease r = pd.llr_sum(t, tp, b, 0.5);
  NoiseRng replay = noise();
  // Float-safe noise: the sensitivity of the sum rounded to the grid, Δ_eff ≥ Δ = 2b (larger
  // by less than 1e-6 relative here), and σ = s·h ≥ 0.5·Δ_eff.
  const GridNoise g = release_grid(0.5, 2.0 * b, 1, 10000, 1.0, b);
  EXPECT_EQ(r.clipped, want.clipped);
  EXPECT_EQ(r.rows, 10000u);
  EXPECT_EQ(r.sensitivity, g.sensitivity);
  EXPECT_NEAR(r.sensitivity, 2.0 * b, 1e-6 * b);
  EXPECT_EQ(r.noise_sd, g.noise_sd());
  EXPECT_GE(r.noise_sd, 0.5 * r.sensitivity);
  // Summation order differs (blocks vs one pass): rounding ~1e-16·n·b.
  EXPECT_NEAR(r.value, replay_release(want.sum, g, replay), 1e-10);
  EXPECT_EQ(pd.releases(), 1u);
  EXPECT_EQ(pd.remaining(ReleaseKind::llr_sum), 9u);
}

// 1-d Gaussian, Σ = 1, θ = 0, θ′ = 1: log N(x;1,1) − log N(x;0,1) = x − ½, by hand.
TEST(PrivateData, HandCountedClipping) {
  const GaussianModel m(Vec::Zero(1), Mat::Identity(1, 1), Mat::Identity(1, 1));
  Dataset d;
  d.x.resize(6, 1);
  d.x << -2.0, -0.4, 0.5, 1.2, 1.6, 3.0;  // ratios −2.5, −0.9, 0, 0.7, 1.1, 2.5
  d.columns = m.data_columns();
  EventLog log;
  PrivateData pd(m, d, noise(), log,
                 gaussian_allowance({{ReleaseKind::llr_sum, 1}}, kLowestTestMultiplier));
  const ScalarRelease r = pd.llr_sum(Vec::Zero(1), Vec::Ones(1), 1.0, 3.0);
  NoiseRng replay = noise();
  EXPECT_EQ(r.clipped, 3u);  // −2.5, 1.1, 2.5
  // Clipped values −1, −0.9, 0, 0.7, 1, 1 sum to 0.8; σ = 3 · 2 · 1 = 6 (and a hair more for
  // the rounding to the grid).
  EXPECT_NEAR(r.noise_sd, 6.0, 1e-7);
  EXPECT_NEAR(r.value, replay_release(0.8, release_grid(3.0, 2.0, 1, 6, 1.0, 1.0), replay), 1e-11);
}

TEST(PrivateData, EventOfARelease) {
  const GaussianModel m = gauss2(0.25);
  const Dataset d = simulated(m, 50);
  EventLog log;
  PrivateData pd(m, d, noise(), log,
                 gaussian_allowance({{ReleaseKind::llr_sum, 5}, {ReleaseKind::grad_sum, 5}},
                                    kLowestTestMultiplier));
  pd.llr_sum(vec2(0, 0), vec2(0.1, 0), 1.5, 7.0);
  pd.grad_sum(vec2(0, 0), 2.0, 3.0);
  ASSERT_EQ(log.size(), 2u);
  const PrivacyEvent& e = log.events()[0];
  EXPECT_EQ(e.mechanism, Mechanism::gaussian);
  EXPECT_EQ(e.sampling, Sampling::none);
  EXPECT_EQ(e.sampling_rate, 1.0);
  EXPECT_EQ(e.relation, Neighbouring::substitute);
  EXPECT_EQ(e.count, 1u);
  EXPECT_EQ(e.kind, ReleaseKind::llr_sum);
  // Δ = 2·T·b, and the rounded query's Δ_eff exceeds it by less than 1e-6 relative.
  EXPECT_EQ(e.sensitivity, release_grid(7.0, 2.0 * 0.25 * 1.5, 1, 50, 0.25, 1.5).sensitivity);
  EXPECT_NEAR(e.sensitivity, 2.0 * 0.25 * 1.5, 1e-6);
  EXPECT_NEAR(e.noise_sd, 7.0 * e.sensitivity, 1e-10);
  EXPECT_GE(e.noise_multiplier(), 7.0);
  EXPECT_NEAR(e.noise_multiplier(), 7.0, 1e-11);
  const PrivacyEvent& g = log.events()[1];
  EXPECT_EQ(g.kind, ReleaseKind::grad_sum);
  EXPECT_NEAR(g.sensitivity, 2.0 * 0.25 * 2.0, 1e-6);
  EXPECT_GE(g.noise_multiplier(), 3.0);
  EXPECT_NEAR(g.noise_multiplier(), 3.0, 1e-11);
  EXPECT_EQ(log.releases(), 2u);
}

TEST(PrivateData, AllowanceRefusesTheNextReleaseBeforeComputing) {
  const GaussianModel inner = gauss2();
  const CountingModel m(inner);
  const Dataset d = simulated(inner, 100);
  EventLog log;
  PrivateData pd(m, d, noise(), log,
                 gaussian_allowance({{ReleaseKind::llr_sum, 3}}, kLowestTestMultiplier));
  for (int i = 0; i < 3; ++i) pd.llr_sum(vec2(0, 0), vec2(0.1, 0), 1.0, 1.0);
  EXPECT_EQ(pd.remaining(ReleaseKind::llr_sum), 0u);
  const int calls = m.calls;
  try {
    pd.llr_sum(vec2(0, 0), vec2(0.1, 0), 1.0, 1.0);
    FAIL() << "the 4th release was allowed";
  } catch (const BudgetExhausted& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("llr_sum"), std::string::npos) << msg;
    EXPECT_NE(msg.find("allowance 3"), std::string::npos) << msg;
  }
  EXPECT_EQ(m.calls, calls) << "the data were evaluated for a refused release";
  EXPECT_EQ(log.releases(), 3u);
  // A label the plan does not contain is refused too.
  EXPECT_EQ(pd.remaining(ReleaseKind::grad_sum), 0u);
  EXPECT_THROW(pd.grad_sum(vec2(0, 0), 1.0, 1.0), BudgetExhausted);
  EXPECT_EQ(m.calls, calls);
}

// The allowance checks each release's calibration, built from public inputs, before a row is
// read: a release with less noise, a larger sensitivity than the plan's cap, another sampling
// rate or another relation is refused (ReleaseRefused), evaluates nothing and records nothing,
// and a release matching the plan then goes through.
TEST(PrivateData, ReleasesOutsideThePlannedCalibrationAreRefusedBeforeComputing) {
  const GaussianModel inner = gauss2();
  const CountingModel m(inner);
  const Dataset d = simulated(inner, 100);
  EventLog log;
  ReleaseAllowance plan;
  PrivacyEvent llr;
  llr.kind = ReleaseKind::llr_sum;
  llr.sensitivity = 1.0;
  llr.noise_sd = 4.0;
  llr.relation = Neighbouring::substitute;
  plan.add(llr, 5);
  PrivacyEvent grad = llr;
  grad.kind = ReleaseKind::grad_sum;
  plan.add(grad, 5, 2.0);  // Δ = 2·T·bound ≤ 2: bound ≤ 1
  PrivacyEvent batch = llr;
  batch.kind = ReleaseKind::grad_batch;
  batch.mechanism = Mechanism::subsampled_gaussian;
  batch.sampling = Sampling::poisson;
  batch.sampling_rate = 0.1;
  batch.relation = Neighbouring::add_remove;
  plan.add(batch, 5);
  PrivateData pd(m, d, noise(), log, plan);

  const auto refused = [&](const std::function<void()>& release, const std::string& why) {
    SCOPED_TRACE(why);
    const int calls = m.calls;
    try {
      release();
      ADD_FAILURE() << "released";
    } catch (const ReleaseRefused& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
    EXPECT_EQ(m.calls, calls) << "the data were evaluated for a refused release";
    EXPECT_TRUE(log.empty());
  };
  const Vec t = vec2(0, 0), tp = vec2(0.1, 0);
  refused([&] { pd.llr_sum(t, tp, 1.0, 3.9); }, "noise multiplier");  // under-noised
  refused([&] { pd.grad_sum(t, 1.5, 4.0); }, "sensitivity");          // over-sensitive
  refused(
      [&] {
        pd.grad_sum_batch(t, 1.0, 4.0, {BatchSampling::poisson, 20});
      },
      "sampling rate");  // q = 0.2, planned 0.1
  refused(
      [&] {
        pd.grad_sum_batch(t, 1.0, 4.0, {BatchSampling::without_replacement, 10});
      },
      "relation substitute");  // same q, another relation
  EXPECT_EQ(pd.remaining(ReleaseKind::llr_sum), 5u);

  pd.llr_sum(t, tp, 1.0, 4.0);
  pd.grad_sum(t, 1.0, 4.5);
  pd.grad_sum_batch(t, 1.0, 4.0, {BatchSampling::poisson, 10});
  EXPECT_EQ(log.releases(), 3u);
  EXPECT_GT(m.calls, 0);
}

TEST(PrivateData, RejectsBadBoundsAndMultipliers) {
  const GaussianModel m = gauss2();
  const Dataset d = simulated(m, 10);
  EventLog log;
  PrivateData pd(m, d, noise(), log,
                 gaussian_allowance({{ReleaseKind::llr_sum, 100}, {ReleaseKind::grad_sum, 100}},
                                    kLowestTestMultiplier));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (double bad : {0.0, -1.0, nan, inf}) {
    EXPECT_THROW(pd.llr_sum(vec2(0, 0), vec2(0.1, 0), bad, 1.0), ConfigError) << bad;
    EXPECT_THROW(pd.llr_sum(vec2(0, 0), vec2(0.1, 0), 1.0, bad), ConfigError) << bad;
    EXPECT_THROW(pd.grad_sum(vec2(0, 0), bad, 1.0), ConfigError) << bad;
    EXPECT_THROW(pd.grad_sum(vec2(0, 0), 1.0, bad), ConfigError) << bad;
  }
  EXPECT_TRUE(log.empty());
  EXPECT_EQ(pd.remaining(ReleaseKind::llr_sum), 100u);
}

TEST(PrivateData, RejectsMismatchedOrEmptyData) {
  const GaussianModel m = gauss2();
  EventLog log;
  Dataset wide;
  wide.x = Mat::Zero(5, 3);
  wide.columns = {"a", "b", "c"};
  EXPECT_THROW(PrivateData(m, wide, noise(), log, {}), DataError);
  Dataset empty;
  empty.x = Mat::Zero(0, 2);
  empty.columns = m.data_columns();
  EXPECT_THROW(PrivateData(m, empty, noise(), log, {}), DataError);
}

// A NaN ratio (a broken model, or a row it cannot evaluate) must neither stop the run nor skip
// the release: that would reveal the row without noise. It counts as 0 (models/clipped_rows.hpp),
// and the release is made and recorded as usual, with a finite value.
TEST(PrivateData, NanRatioIsMappedIntoTheClipRangeAndReleased) {
  const GaussianModel inner = gauss2();
  CountingModel m(inner);
  m.inject_nan = true;
  const Dataset d = simulated(inner, 10);
  EventLog log;
  PrivateData pd(m, d, noise(), log,
                 gaussian_allowance({{ReleaseKind::llr_sum, 1}}, kLowestTestMultiplier));
  const ScalarRelease r = pd.llr_sum(vec2(0, 0), vec2(0.1, 0), 1.0, 1.0);
  EXPECT_TRUE(std::isfinite(r.value));
  EXPECT_GE(r.clipped, 1u);
  EXPECT_EQ(log.releases(), 1u);
}

// The released noise over 10⁴ releases on a fixed move has mean 0 and sd σ. Sampling error of
// the sample sd is σ/√(2N) = 0.71% and of the mean σ/√N = 1%; we allow 4 standard errors
// (two-sided failure probability 6e-5 each for a correct implementation). A σ off by a factor
// (e.g. a missing 2 in Δ, or T applied twice) fails by far more.
TEST(PrivateData, NoiseSdOfManyReleases) {
  const GaussianModel m = gauss2(0.5);
  const Dataset d = simulated(m, 20);
  constexpr int kN = 10000;
  EventLog log;
  PrivateData pd(m, d, noise(), log,
                 gaussian_allowance({{ReleaseKind::llr_sum, kN}}, kLowestTestMultiplier));
  const Vec t = vec2(0.1, 0.2), tp = vec2(0.2, 0.1);
  const double b = 0.05;
  const double exact = 0.5 * direct_llr(m, d, t, tp, b).sum;
  double s = 0.0, s2 = 0.0, sigma = 0.0;
  for (int i = 0; i < kN; ++i) {
    const ScalarRelease r = pd.llr_sum(t, tp, b, 2.0);
    sigma = r.noise_sd;
    const double e = r.value - exact;
    s += e;
    s2 += e * e;
  }
  EXPECT_NEAR(sigma, 2.0 * 2.0 * 0.5 * b, 1e-6 * sigma);
  const double mean = s / kN;
  const double sd = std::sqrt((s2 - kN * mean * mean) / (kN - 1));
  EXPECT_NEAR(mean, 0.0, 4.0 * sigma / std::sqrt(double(kN)));
  EXPECT_NEAR(sd, sigma, 4.0 * sigma / std::sqrt(2.0 * kN));
  EXPECT_EQ(log.releases(), std::uint64_t{kN});
  EXPECT_EQ(log.size(), 1u);  // identical releases merge into one entry
}

// Tempering by T scales the clipped sum, Δ and σ by T: each release is its own tempered direct sum
// plus the replayed noise of its own calibration (the grid and the discrete Gaussian's scale
// depend on σ, so the two releases are no longer exact multiples of each other).
TEST(PrivateData, TemperingScalesValueSensitivityAndNoise) {
  const GaussianModel m1 = gauss2(1.0), mt = gauss2(0.3);
  const Dataset d = simulated(m1, 5000);
  EventLog log1, logt;
  PrivateData p1(m1, d, noise(), log1,
                 gaussian_allowance({{ReleaseKind::llr_sum, 1}, {ReleaseKind::grad_sum, 1}},
                                    kLowestTestMultiplier));
  PrivateData pt(mt, d, noise(), logt,
                 gaussian_allowance({{ReleaseKind::llr_sum, 1}, {ReleaseKind::grad_sum, 1}},
                                    kLowestTestMultiplier));
  EXPECT_DOUBLE_EQ(pt.temperature(), 0.3);
  const Vec t = vec2(0.3, 0.2), tp = vec2(0.32, 0.25);
  const ScalarRelease a = p1.llr_sum(t, tp, 0.05, 1.5);
  const ScalarRelease b = pt.llr_sum(t, tp, 0.05, 1.5);
  const double sum = direct_llr(m1, d, t, tp, 0.05).sum;
  NoiseRng replay1 = noise(), replayt = noise();
  EXPECT_NEAR(a.value, replay_release(sum, release_grid(1.5, 0.1, 1, 5000, 1.0, 0.05), replay1),
              1e-11);
  EXPECT_NEAR(b.value,
              replay_release(0.3 * sum, release_grid(1.5, 0.3 * 0.1, 1, 5000, 0.3, 0.05), replayt),
              1e-11);
  EXPECT_NEAR(b.sensitivity, 0.3 * a.sensitivity, 1e-6 * b.sensitivity);
  EXPECT_NEAR(b.noise_sd, 0.3 * a.noise_sd, 1e-6 * b.noise_sd);
  EXPECT_EQ(b.clipped, a.clipped);
  const VectorRelease ga = p1.grad_sum(t, 1.0, 0.7);
  const VectorRelease gb = pt.grad_sum(t, 1.0, 0.7);
  EXPECT_NEAR(gb.noise_sd, 0.3 * ga.noise_sd, 1e-6 * gb.noise_sd);
}

// Gradient release against Σ⁻¹(x_i − θ) computed here, each row scaled to norm ≤ b, plus d
// noise draws in coordinate order.
TEST(PrivateData, GradSumIsDirectClippedSumPlusTheNoiseDraws) {
  const GaussianModel m = gauss2();
  const Dataset d = simulated(m, 9000);
  EventLog log;
  PrivateData pd(m, d, noise(), log,
                 gaussian_allowance({{ReleaseKind::grad_sum, 1}}, kLowestTestMultiplier));
  const Vec t = vec2(0.1, 0.5);
  const double b = 1.2;
  const Mat prec = m.covariance().inverse();
  Vec want = Vec::Zero(2);
  std::size_t clipped = 0;
  for (std::size_t i = 0; i < d.rows(); ++i) {
    Vec g = prec * (d.x.row(static_cast<Eigen::Index>(i)).transpose() - t);
    const double norm = g.norm();
    if (norm > b) {
      ++clipped;
      g *= b / norm;
    }
    want += g;
  }
  ASSERT_GT(clipped, 100u);
  const VectorRelease r = pd.grad_sum(t, b, 0.25);
  NoiseRng replay = noise();
  EXPECT_EQ(r.clipped, clipped);
  const GridNoise g = release_grid(0.25, 2.0 * b, 2, 9000, 1.0, b);
  EXPECT_EQ(r.noise_sd, g.noise_sd());
  EXPECT_NEAR(r.noise_sd, 0.25 * 2.0 * b, 1e-6);
  for (int j = 0; j < 2; ++j) {
    EXPECT_NEAR(r.value[j], replay_release(want[j], g, replay), 1e-9) << j;
  }
  EXPECT_EQ(log.events()[0].kind, ReleaseKind::grad_sum);
}

}  // namespace
}  // namespace dpmcmc
