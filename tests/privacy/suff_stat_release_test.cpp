// PrivateData::suff_stat ([Yildirim2020] Algorithm 3, step 1): each release equals
// the sum Σ s(x_i) computed directly here plus exactly the normals of a replayed noise stream
// times σ = multiplier·Δ, Δ = ‖hi − lo‖₂ (hand value), one "suff_stat" event per release, the
// allowance, refusal of rows outside the declared range (naming row and column, releasing
// nothing), and the n-independent cost of later releases (the statistic is evaluated once).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "../error_message.hpp"
#include "models/expfam_bernoulli.hpp"
#include "models/expfam_gaussian.hpp"
#include "privacy/private_data.hpp"
#include "test_allowance.hpp"
#include "test_grid.hpp"
#include "test_noise.hpp"

namespace dpmcmc {
namespace {

using test::message_of;

constexpr std::uint64_t kNoiseSeed = 91;

Vec vec2(double a, double b) {
  Vec v(2);
  v << a, b;
  return v;
}

// Box [−1, 2] × [0, 4]: hi − lo = (3, 4), so Δ = 5 exactly.
ExpFamGaussianModel box_model() {
  return ExpFamGaussianModel(Vec::Zero(2), Mat::Identity(2, 2) * 10.0, Mat::Identity(2, 2),
                             vec2(-1.0, 0.0), vec2(2.0, 4.0));
}

Dataset box_data(const Model& m, std::size_t n) {
  Rng rng = make_rng(3, 0, Stream::data);
  return m.simulate(vec2(0.5, 1.0), n, rng);
}

// Delegates the statistic to a model and counts the rows it evaluates.
class CountingStatistic final : public SufficientStatistic {
 public:
  explicit CountingStatistic(const SufficientStatistic& inner) : inner_(inner) {}
  int stat_dim() const override { return inner_.stat_dim(); }
  std::vector<std::string> stat_names() const override { return inner_.stat_names(); }
  void stat_rows(const RowBlock& rows, Eigen::Ref<Mat> out) const override {
    evaluated += static_cast<std::size_t>(rows.rows());
    inner_.stat_rows(rows, out);
  }
  const Vec& stat_lower() const override { return inner_.stat_lower(); }
  const Vec& stat_upper() const override { return inner_.stat_upper(); }
  mutable std::size_t evaluated = 0;

 private:
  const SufficientStatistic& inner_;
};

TEST(SuffStatRelease, EqualsDirectSumPlusReplayedNoiseAndRecordsOneEventEach) {
  const auto model = box_model();
  const std::size_t n = 10000;  // more than one block of 4096 rows
  const Dataset data = box_data(model, n);
  ASSERT_GE(data.x.minCoeff(), -1.0);
  EventLog log;
  PrivateData pd(model, data, test_noise_rng(kNoiseSeed, 0), log,
                 gaussian_allowance({{ReleaseKind::suff_stat, 3}}, kLowestTestMultiplier));
  CountingStatistic stat(model);
  const Vec direct = data.x.colwise().sum().transpose();
  NoiseRng replay = test_noise_rng(kNoiseSeed, 0);
  const double m = 0.3;
  for (int r = 0; r < 3; ++r) {
    const VectorRelease out = pd.suff_stat(stat, m);
    // Δ = 5 and σ = mΔ, each larger by < 1e-6 relative for the rounding to the grid.
    EXPECT_NEAR(out.sensitivity, 5.0, 5e-6);
    EXPECT_NEAR(out.noise_sd, m * 5.0, 5e-6);
    EXPECT_GE(out.noise_sd, m * out.sensitivity);
    EXPECT_EQ(out.rows, n);
    EXPECT_EQ(out.clipped, 0u);
    ASSERT_EQ(out.value.size(), 2);
    const GridNoise g = grid_of(m, 5.0, out.sensitivity, out.noise_sd);
    for (int j = 0; j < 2; ++j) {
      const double expected = replay_release(direct[j], g, replay);
      // The block sums differ from one column sum only by rounding: |S| ≤ 4·10⁴, so 1e-9
      // relative is far above rounding and far below one noise sd (1.5).
      EXPECT_NEAR(out.value[j], expected, 1e-9 * std::abs(direct[j]) + 1e-12);
    }
  }
  // Later releases reuse the sum: the rows were evaluated exactly once.
  EXPECT_EQ(stat.evaluated, n);
  ASSERT_EQ(log.events().size(), 1u);  // merged identical events
  EXPECT_EQ(log.releases(), 3u);
  const PrivacyEvent& e = log.events()[0];
  EXPECT_EQ(e.kind, ReleaseKind::suff_stat);
  EXPECT_EQ(e.mechanism, Mechanism::gaussian);
  EXPECT_EQ(e.relation, Neighbouring::substitute);
  EXPECT_EQ(e.sampling, Sampling::none);
  EXPECT_NEAR(e.sensitivity, 5.0, 5e-6);
  EXPECT_NEAR(e.noise_sd, 1.5, 5e-6);
  EXPECT_EQ(e.count, 3u);
}

// prepare_suff_stat evaluates the rows once and releases nothing; the releases reuse its sum.
TEST(SuffStatRelease, PrepareComputesOnceAndReleasesNothing) {
  const auto model = box_model();
  const Dataset data = box_data(model, 5000);
  EventLog log;
  PrivateData pd(model, data, test_noise_rng(kNoiseSeed, 0), log,
                 gaussian_allowance({{ReleaseKind::suff_stat, 1}}, kLowestTestMultiplier));
  CountingStatistic stat(model);
  pd.prepare_suff_stat(stat);
  pd.prepare_suff_stat(stat);
  EXPECT_EQ(stat.evaluated, 5000u);
  EXPECT_EQ(log.releases(), 0u);
  EXPECT_EQ(pd.remaining(ReleaseKind::suff_stat), 1u);
  NoiseRng replay = test_noise_rng(kNoiseSeed, 0);
  const VectorRelease out = pd.suff_stat(stat, 1.0);
  EXPECT_EQ(stat.evaluated, 5000u);
  const double expected =
      replay_release(data.x.col(0).sum(), grid_of(1.0, 5.0, out.sensitivity, out.noise_sd), replay);
  EXPECT_NEAR(out.value[0], expected, 1e-9 * std::abs(expected));
}

TEST(SuffStatRelease, RefusedBeyondTheAllowanceAndWithoutOne) {
  const auto model = box_model();
  const Dataset data = box_data(model, 50);
  EventLog log;
  PrivateData pd(model, data, test_noise_rng(kNoiseSeed, 0), log,
                 gaussian_allowance({{ReleaseKind::suff_stat, 2}}, kLowestTestMultiplier));
  pd.suff_stat(model, 1.0);
  pd.suff_stat(model, 1.0);
  EXPECT_EQ(pd.remaining(ReleaseKind::suff_stat), 0u);
  EXPECT_THROW(pd.suff_stat(model, 1.0), BudgetExhausted);
  EXPECT_EQ(log.releases(), 2u);

  EventLog log2;
  PrivateData other(model, data, test_noise_rng(kNoiseSeed, 0), log2,
                    gaussian_allowance({{ReleaseKind::llr_sum, 5}}, kLowestTestMultiplier));
  EXPECT_THROW(other.suff_stat(model, 1.0), BudgetExhausted);
  EXPECT_EQ(log2.releases(), 0u);
}

// A model's statistic applied to another model's data of a different width is a software error,
// caught before any row is read.
TEST(SuffStatRelease, StatisticOfAModelWithOtherColumnsIsRefused) {
  const auto model = box_model();
  const Dataset data = box_data(model, 20);
  EventLog log;
  PrivateData pd(model, data, test_noise_rng(kNoiseSeed, 0), log,
                 gaussian_allowance({{ReleaseKind::suff_stat, 2}}, kLowestTestMultiplier));
  const ExpFamBernoulliModel other(1.0, 1.0);
  EXPECT_THROW(pd.suff_stat(other, 1.0), SoftwareError);
  EXPECT_EQ(log.releases(), 0u);
}

TEST(SuffStatRelease, BadMultiplierIsAConfigError) {
  const auto model = box_model();
  const Dataset data = box_data(model, 20);
  EventLog log;
  PrivateData pd(model, data, test_noise_rng(kNoiseSeed, 0), log,
                 gaussian_allowance({{ReleaseKind::suff_stat, 2}}, kLowestTestMultiplier));
  for (double bad : {0.0, -1.0, std::nan(""), std::numeric_limits<double>::infinity()}) {
    EXPECT_THROW(pd.suff_stat(model, bad), ConfigError) << bad;
  }
  EXPECT_EQ(log.releases(), 0u);
  EXPECT_EQ(pd.remaining(ReleaseKind::suff_stat), 2u);
}

TEST(SuffStatRelease, RowOutsideTheBoxIsRefusedNamingRowAndColumnAndReleasesNothing) {
  const auto model = box_model();
  Dataset data = box_data(model, 5000);
  data.x(4200, 1) = 4.5;  // row 4201 (1-based, in the second block), column x.2 > 4
  EventLog log;
  PrivateData pd(model, data, test_noise_rng(kNoiseSeed, 0), log,
                 gaussian_allowance({{ReleaseKind::suff_stat, 2}}, kLowestTestMultiplier));
  const std::string msg = message_of<DataError>([&] { pd.suff_stat(model, 1.0); });
  EXPECT_NE(msg.find("row 4201"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'x.2'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[0, 4]"), std::string::npos) << msg;
  EXPECT_EQ(log.releases(), 0u);
  EXPECT_EQ(pd.remaining(ReleaseKind::suff_stat), 2u);

  data.x(4200, 1) = std::nan("");
  EXPECT_THROW(pd.suff_stat(model, 1.0), DataError);
  EXPECT_EQ(log.releases(), 0u);
}

TEST(SuffStatRelease, BernoulliHasUnitSensitivityAndRefusesNonBinaryRows) {
  const ExpFamBernoulliModel model(2.0, 3.0);
  Rng rng = make_rng(4, 0, Stream::data);
  Dataset data = model.simulate(Vec::Constant(1, 0.3), 300, rng);
  const double direct = data.x.sum();
  EventLog log;
  PrivateData pd(model, data, test_noise_rng(kNoiseSeed, 0), log,
                 gaussian_allowance({{ReleaseKind::suff_stat, 2}}, kLowestTestMultiplier));
  NoiseRng replay = test_noise_rng(kNoiseSeed, 0);
  const VectorRelease out = pd.suff_stat(model, 2.0);
  EXPECT_NEAR(out.sensitivity, 1.0, 1e-6);
  EXPECT_NEAR(out.noise_sd, 2.0, 1e-6);
  EXPECT_NEAR(out.value[0],
              replay_release(direct, grid_of(2.0, 1.0, out.sensitivity, out.noise_sd), replay),
              1e-12 * direct);

  data.x(7, 0) = 0.5;  // inside [0, 1] but not a Bernoulli outcome
  EventLog log2;
  PrivateData bad(model, data, test_noise_rng(kNoiseSeed, 0), log2,
                  gaussian_allowance({{ReleaseKind::suff_stat, 2}}, kLowestTestMultiplier));
  const std::string msg = message_of<DataError>([&] { bad.suff_stat(model, 1.0); });
  EXPECT_NE(msg.find("row 8"), std::string::npos) << msg;
  EXPECT_NE(msg.find("0 or 1"), std::string::npos) << msg;
  EXPECT_EQ(log2.releases(), 0u);
}

}  // namespace
}  // namespace dpmcmc
