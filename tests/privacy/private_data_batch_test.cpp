// Subsampled releases of PrivateData (grad_sum_batch, llr_batch_corrected) and the batch
// drawers behind them: inclusion frequencies against q within binomial standard errors, the
// uniformity of without-replacement subsets by a χ² test, each release against the clipped sum
// computed independently on the same batch (replayed from an identically seeded noise stream)
// plus exactly the noise drawn, events and bad input; the minibatch penalty's sensitivity
// against brute-force maximisation, and the moments of its released value against exact
// enumeration of all batches.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/math/distributions/chi_squared.hpp>
#include <cmath>
#include <map>
#include <numeric>
#include <set>
#include <vector>

#include "models/gaussian.hpp"
#include "privacy/batch_sampling.hpp"
#include "privacy/minibatch_templates.hpp"
#include "privacy/private_data.hpp"
#include "test_allowance.hpp"
#include "test_grid.hpp"
#include "test_noise.hpp"

namespace dpmcmc {
namespace {

constexpr std::uint64_t kSeed = 313;

NoiseRng noise() {
  return test_noise_rng(kSeed, 0);
}

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

// --- Batch drawers ------------------------------------------------------------------------

// Each row's inclusion frequency over N draws is within 4.5 binomial standard errors
// √(q(1−q)/N) of q: a correct drawer fails one of the n rows with probability ≤ n·6.8e-6.
void expect_inclusion_rate(const std::vector<int>& hits, int draws, double q) {
  const double se = std::sqrt(q * (1.0 - q) / draws);
  for (std::size_t i = 0; i < hits.size(); ++i) {
    EXPECT_NEAR(double(hits[i]) / draws, q, 4.5 * se) << "row " << i;
  }
}

TEST(BatchDrawer, WithoutReplacementHasExactlyBDistinctSortedRowsAtRateBOverN) {
  constexpr std::size_t n = 50, b = 10;
  constexpr int kDraws = 20000;
  NoiseRng rng = noise();
  BatchDrawer drawer;
  std::vector<int> hits(n, 0);
  for (int k = 0; k < kDraws; ++k) {
    const auto idx = drawer.without_replacement(n, b, rng);
    ASSERT_EQ(idx.size(), b);
    ASSERT_TRUE(std::is_sorted(idx.begin(), idx.end()));
    ASSERT_EQ(std::adjacent_find(idx.begin(), idx.end()), idx.end()) << "duplicate row";
    ASSERT_LT(idx.back(), n);
    for (std::size_t i : idx) ++hits[i];
  }
  expect_inclusion_rate(hits, kDraws, double(b) / n);
  // b = n: every row once.
  const auto all = drawer.without_replacement(7, 7, rng);
  EXPECT_EQ(std::vector<std::size_t>(all.begin(), all.end()),
            (std::vector<std::size_t>{0, 1, 2, 3, 4, 5, 6}));
}

// The drawer's two membership sets (bitmap for n < 2048·(b + 1), hash table + sort otherwise)
// against Floyd written out with std::set, fed the same noise stream: the same indices for every
// draw, in both regimes and at their boundary (n = 2048·(b + 1) − 1 and n = 2048·(b + 1)).
TEST(BatchDrawer, WithoutReplacementMatchesFloydWithAnOrderedSet) {
  const std::vector<std::pair<std::size_t, std::size_t>> cases = {
      {50, 10},    {100000, 1000}, {100000, 1}, {1000000, 10}, {5120, 10},
      {22527, 10}, {22528, 10},    {65, 65},    {64, 1}};
  for (const auto& [n, b] : cases) {
    NoiseRng rng = noise();
    NoiseRng replay = noise();
    BatchDrawer drawer;
    for (int k = 0; k < 5; ++k) {
      const auto got = drawer.without_replacement(n, b, rng);
      std::set<std::size_t> chosen;
      for (std::size_t j = n - b; j < n; ++j) {
        const auto t = static_cast<std::size_t>(replay.index(j + 1));
        chosen.insert(chosen.count(t) ? j : t);
      }
      ASSERT_EQ(std::vector<std::size_t>(got.begin(), got.end()),
                std::vector<std::size_t>(chosen.begin(), chosen.end()))
          << "n = " << n << ", b = " << b << ", draw " << k;
    }
  }
}

// Floyd's algorithm makes all C(n, b) subsets equally likely (not only the marginals): χ² test
// of the 10 subsets of size 2 of 5 rows over N = 50 000 draws, at level 1e-4 (the 0.9999
// quantile of χ²₉, computed by Boost).
TEST(BatchDrawer, WithoutReplacementSubsetsAreUniform) {
  constexpr int kDraws = 50000;
  NoiseRng rng = noise();
  BatchDrawer drawer;
  std::map<std::pair<std::size_t, std::size_t>, int> counts;
  for (int k = 0; k < kDraws; ++k) {
    const auto idx = drawer.without_replacement(5, 2, rng);
    ++counts[{idx[0], idx[1]}];
  }
  ASSERT_EQ(counts.size(), 10u);
  const double expected = kDraws / 10.0;
  double chi2 = 0.0;
  for (const auto& [subset, c] : counts) chi2 += (c - expected) * (c - expected) / expected;
  const double limit = boost::math::quantile(boost::math::chi_squared(9.0), 0.9999);
  EXPECT_LT(chi2, limit);
}

// Poisson: rows included independently with q. Per-row frequencies as above; the batch size is
// Binomial(n, q): its mean within 4.5 SE √(nq(1−q)/N), its variance nq(1−q) within 4.5 SE of a
// sample variance (≈ v√(2/N), the normal approximation, ample for Binomial(200, 0.15)).
// A fixed-size batch would have variance 0 and fail.
TEST(BatchDrawer, PoissonIncludesEachRowIndependentlyWithRateQ) {
  constexpr std::size_t n = 200;
  constexpr double q = 30.0 / 200.0;
  constexpr int kDraws = 20000;
  NoiseRng rng = noise();
  BatchDrawer drawer;
  std::vector<int> hits(n, 0);
  double s1 = 0.0, s2 = 0.0;
  for (int k = 0; k < kDraws; ++k) {
    const auto idx = drawer.poisson(n, q, rng);
    ASSERT_TRUE(std::is_sorted(idx.begin(), idx.end()));
    ASSERT_EQ(std::adjacent_find(idx.begin(), idx.end()), idx.end());
    if (!idx.empty()) {
      ASSERT_LT(idx.back(), n);
    }
    for (std::size_t i : idx) ++hits[i];
    s1 += double(idx.size());
    s2 += double(idx.size()) * double(idx.size());
  }
  expect_inclusion_rate(hits, kDraws, q);
  const double mean = s1 / kDraws;
  const double var = (s2 - kDraws * mean * mean) / (kDraws - 1);
  const double v = n * q * (1 - q);
  EXPECT_NEAR(mean, n * q, 4.5 * std::sqrt(v / kDraws));
  EXPECT_NEAR(var, v, 4.5 * v * std::sqrt(2.0 / kDraws));
  // q = 1: every row.
  EXPECT_EQ(drawer.poisson(5, 1.0, rng).size(), 5u);
  // Large n, small q: O(qn) work (a run of O(n) would still pass, but takes 10⁹ steps here);
  // the size is within 6 SE of qn = 1000.
  const auto big = drawer.poisson(1'000'000'000, 1e-6, rng);
  EXPECT_NEAR(double(big.size()), 1000.0, 6.0 * std::sqrt(1000.0));
}

TEST(BatchDrawer, BadBatchSizesNameTheSizeAndN) {
  for (auto sampling : {BatchSampling::poisson, BatchSampling::without_replacement}) {
    for (std::size_t size : {std::size_t{0}, std::size_t{11}}) {
      try {
        validate_batch({sampling, size}, 10, "test");
        FAIL() << "accepted batch size " << size;
      } catch (const ConfigError& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("batch size " + std::to_string(size)), std::string::npos) << msg;
        EXPECT_NE(msg.find("n = 10"), std::string::npos) << msg;
      }
    }
  }
  EXPECT_NO_THROW(validate_batch({BatchSampling::without_replacement, 10}, 10, "test"));
}

// --- grad_sum_batch -----------------------------------------------------------------------

struct DirectGrad {
  Vec sum;
  std::size_t clipped = 0;
};

// The clipped gradient sum of the listed rows, one row at a time.
DirectGrad direct_grad(const Model& m, const Dataset& d, const Vec& t,
                       std::span<const std::size_t> idx, double bound) {
  DirectGrad out{Vec::Zero(m.dim()), 0};
  Mat g(1, m.dim());
  for (std::size_t i : idx) {
    m.grad_log_lik_rows(t, d.block(i, 1), g);
    const double norm = g.row(0).norm();
    if (norm > bound) ++out.clipped;
    out.sum += g.row(0).transpose() * std::min(1.0, bound / norm);
  }
  return out;
}

// 10 000 rows, batch 5000 (two blocks of 4096 for WOR), T = 0.5, a bound that clips a share of
// the rows. The release must be T × the direct sum over the batch replayed from an identically
// seeded noise stream, plus σ × the next normals of that stream.
void check_grad_batch(BatchSampling sampling) {
  const GaussianModel m = gauss2(0.5);
  const Dataset d = simulated(m, 10000);
  EventLog log;
  const BatchSpec spec{sampling, 5000};
  PrivateData pd(m, d, noise(), log, batch_test_allowance(spec, d.rows(), 3));
  const Vec t = vec2(0.2, -0.1);
  const double bound = 1.0, nm = 0.7;
  const VectorRelease r = pd.grad_sum_batch(t, bound, nm, spec);

  NoiseRng replay = noise();
  BatchDrawer drawer;
  const auto idx = drawer.draw(spec, d.rows(), replay);
  const DirectGrad want = direct_grad(m, d, t, idx, bound);
  ASSERT_GT(want.clipped, 100u);
  ASSERT_LT(want.clipped, idx.size() - 100);
  const bool poisson = sampling == BatchSampling::poisson;
  const double delta = (poisson ? 1.0 : 2.0) * 0.5 * bound;
  EXPECT_EQ(r.rows, idx.size());
  if (!poisson) {
    EXPECT_EQ(r.rows, 5000u);
  }
  EXPECT_EQ(r.clipped, want.clipped);
  // The rounded query's sensitivity (Δ plus < 1e-6 relative) and σ ≥ nm·Δ_eff; a Poisson
  // batch's float error is that of n + 1 rows (the largest add/remove neighbour).
  const GridNoise g = release_grid(nm, delta, 2, poisson ? 10001 : 5000, 0.5, bound);
  EXPECT_EQ(r.sensitivity, g.sensitivity);
  EXPECT_NEAR(r.sensitivity, delta, 1e-6 * delta);
  EXPECT_EQ(r.noise_sd, g.noise_sd());
  ASSERT_EQ(r.value.size(), 2);
  for (int j = 0; j < 2; ++j) {
    // Summation order differs: rounding ~1e-16 · 5000 · bound.
    EXPECT_NEAR(r.value[j], replay_release(0.5 * want.sum[j], g, replay), 1e-9) << j;
  }

  ASSERT_EQ(log.size(), 1u);
  const PrivacyEvent& e = log.events()[0];
  EXPECT_EQ(e.mechanism, Mechanism::subsampled_gaussian);
  EXPECT_EQ(e.sampling, poisson ? Sampling::poisson : Sampling::without_replacement);
  EXPECT_EQ(e.relation, poisson ? Neighbouring::add_remove : Neighbouring::substitute);
  EXPECT_DOUBLE_EQ(e.sampling_rate, 0.5);
  EXPECT_EQ(e.sensitivity, g.sensitivity);
  EXPECT_GE(e.noise_multiplier(), nm);
  EXPECT_NEAR(e.noise_multiplier(), nm, 1e-11);
  EXPECT_EQ(e.kind, ReleaseKind::grad_batch);
  // Two more identical releases merge into the same entry; the fourth is refused.
  pd.grad_sum_batch(t, bound, nm, spec);
  pd.grad_sum_batch(t, bound, nm, spec);
  EXPECT_EQ(log.size(), 1u);
  EXPECT_EQ(log.events()[0].count, 3u);
  EXPECT_EQ(pd.remaining(ReleaseKind::grad_batch), 0u);
  EXPECT_THROW(pd.grad_sum_batch(t, bound, nm, spec), BudgetExhausted);
  EXPECT_EQ(log.releases(), 3u);
}

TEST(PrivateDataBatch, GradSumBatchWithoutReplacement) {
  check_grad_batch(BatchSampling::without_replacement);
}

TEST(PrivateDataBatch, GradSumBatchPoisson) {
  check_grad_batch(BatchSampling::poisson);
}

TEST(PrivateDataBatch, BadBatchIsRefusedBeforeAnyRelease) {
  const GaussianModel m = gauss2();
  const Dataset d = simulated(m, 20);
  EventLog log;
  ReleaseAllowance plan = batch_test_allowance(BatchSpec{BatchSampling::poisson, 5}, 20, 5);
  const ReleaseAllowance llr = llr_batch_test_allowance(5, 20, 5);
  for (const auto& slot : llr.slots()) plan.add(slot.planned, slot.remaining);
  PrivateData pd(m, d, noise(), log, plan);
  for (std::size_t bad : {std::size_t{0}, std::size_t{21}}) {
    for (auto s : {BatchSampling::poisson, BatchSampling::without_replacement}) {
      try {
        pd.grad_sum_batch(vec2(0, 0), 1.0, 1.0, {s, bad});
        FAIL() << "batch size " << bad << " accepted";
      } catch (const ConfigError& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("batch size " + std::to_string(bad)), std::string::npos) << msg;
        EXPECT_NE(msg.find("n = 20"), std::string::npos) << msg;
      }
    }
    EXPECT_THROW(pd.llr_batch_corrected(vec2(0, 0), vec2(0.1, 0), 1.0, 1.0, bad), ConfigError);
  }
  EXPECT_THROW(pd.llr_batch_corrected(vec2(0, 0), vec2(0.1, 0), 0.0, 1.0, 5), ConfigError);
  EXPECT_THROW(pd.llr_batch_corrected(vec2(0, 0), vec2(0.1, 0), 1.0, -1.0, 5), ConfigError);
  EXPECT_THROW(pd.grad_sum_batch(vec2(0, 0), 1.0, 0.0, {BatchSampling::poisson, 5}), ConfigError);
  EXPECT_TRUE(log.empty());
  EXPECT_EQ(pd.remaining(ReleaseKind::grad_batch), 5u);
  EXPECT_EQ(pd.remaining(ReleaseKind::llr_batch), 5u);
}

// --- Minibatch penalty release -------------------------------------------------------------

// Clipped log-likelihood ratios of the listed rows, from two separate log_lik_rows calls.
std::vector<double> clipped_ratios(const Model& m, const Dataset& d, const Vec& t, const Vec& tp,
                                   std::span<const std::size_t> idx, double bound,
                                   std::size_t* clipped = nullptr) {
  Vec a(d.rows()), c(d.rows());
  m.log_lik_rows(t, d.x, a);
  m.log_lik_rows(tp, d.x, c);
  std::vector<double> r;
  for (std::size_t i : idx) {
    const double v = c[i] - a[i];
    if (clipped != nullptr && std::abs(v) > bound) ++*clipped;
    r.push_back(std::clamp(v, -bound, bound));
  }
  return r;
}

// λ − σ_b²/2 of a batch by the definitions: λ = (nT/b)ΣR, σ_b² = (nT/b)² Σ(r − r̄)² (two-pass).
double corrected_value(const std::vector<double>& r, double n, double t) {
  const double b = double(r.size());
  const double mean = std::accumulate(r.begin(), r.end(), 0.0) / b;
  double ss = 0.0;
  for (double v : r) ss += (v - mean) * (v - mean);
  const double a = n * t / b;
  return a * mean * b - 0.5 * a * a * ss;
}

// Sensitivity by hand: 2nTβ/b + 2(b−1)(nT)²β²/b³ (the exact supremum derived in
// minibatch_templates.hpp; brute-forced below).
double c_by_hand(double n, double t, double b, double beta) {
  return 2 * n * t * beta / b + 2 * (b - 1) * (n * t) * (n * t) * beta * beta / (b * b * b);
}

TEST(PrivateDataBatch, LlrBatchCorrectedIsTheDirectValuePlusTheNoiseDraw) {
  const GaussianModel m = gauss2(0.25);
  const Dataset d = simulated(m, 10000);
  EventLog log;
  PrivateData pd(m, d, noise(), log, llr_batch_test_allowance(6000, d.rows(), 2));
  const Vec t = vec2(0.3, 0.2), tp = vec2(0.35, 0.1);
  const double bound = 0.08, nm = std::sqrt(0.7);
  constexpr std::size_t b = 6000;  // two blocks
  const ScalarRelease r = pd.llr_batch_corrected(t, tp, bound, nm, b);

  NoiseRng replay = noise();
  BatchDrawer drawer;
  const auto idx = drawer.without_replacement(d.rows(), b, replay);
  std::size_t clipped = 0;
  const auto ratios = clipped_ratios(m, d, t, tp, idx, bound, &clipped);
  ASSERT_GT(clipped, 100u);
  ASSERT_LT(clipped, b - 100);
  const double c = c_by_hand(1e4, 0.25, b, bound);
  EXPECT_EQ(r.rows, b);
  EXPECT_EQ(r.clipped, clipped);
  EXPECT_NEAR(r.sensitivity, c, 1e-7 * c);  // the rounded query's: c plus its float error
  EXPECT_GE(r.noise_sd, nm * r.sensitivity);
  EXPECT_NEAR(r.noise_sd, nm * c, 1e-7 * c);
  const double want = replay_release(corrected_value(ratios, 1e4, 0.25),
                                     grid_of(nm, c, r.sensitivity, r.noise_sd), replay);
  EXPECT_NEAR(r.value, want, 1e-9 * (1.0 + std::abs(want)));

  ASSERT_EQ(log.size(), 1u);
  const PrivacyEvent& e = log.events()[0];
  EXPECT_EQ(e.mechanism, Mechanism::subsampled_gaussian);
  EXPECT_EQ(e.sampling, Sampling::without_replacement);
  EXPECT_EQ(e.relation, Neighbouring::substitute);
  EXPECT_DOUBLE_EQ(e.sampling_rate, 0.6);
  EXPECT_EQ(e.kind, ReleaseKind::llr_batch);
  EXPECT_GE(e.noise_multiplier(), nm);
  EXPECT_NEAR(e.noise_multiplier(), nm, 1e-11);
  // The template's event has the same kind, rate and multiplier: planned = recorded.
  const auto tmpl = dp_penalty_minibatch_template(0.7, b, 10000);
  ASSERT_EQ(tmpl.size(), 1u);
  EXPECT_EQ(tmpl[0].mechanism, e.mechanism);
  EXPECT_EQ(tmpl[0].sampling, e.sampling);
  EXPECT_EQ(tmpl[0].relation, e.relation);
  EXPECT_EQ(tmpl[0].kind, e.kind);
  EXPECT_EQ(tmpl[0].sampling_rate, e.sampling_rate);
  EXPECT_NEAR(tmpl[0].noise_multiplier(), e.noise_multiplier(), 1e-11);
}

// Brute force over a grid of (r, r′, S) including the corners: the largest |f(B) − f(B′)|,
// with f evaluated by the definitions on concrete batches (B* = b − 1 equal ratios S/(b−1);
// only their sum matters since Σr² over B* cancels — checked by random B* below), equals the
// derived c (attained at a grid corner, so equality to rounding), and the variance term alone
// has supremum 2(b−1)(nT)²β²/b³, 2/3 of Lemma 3.4's bound 3(b−1)(nT)²β²/b³.
TEST(MinibatchPenaltySensitivity, MatchesBruteForceMaximisation) {
  struct Case {
    double n, t, beta;
    std::size_t b;
  };
  for (const Case& k :
       {Case{100, 1.0, 0.3, 1}, Case{100, 1.0, 0.3, 2}, Case{50, 0.5, 1.0, 3},
        Case{1e5, 1e-2, 0.01, 10}, Case{1e5, 1.0, 1e-3, 100}, Case{1e3, 1.0, 2.0, 37}}) {
    const double b = double(k.b);
    const int grid = k.b > 20 ? 40 : 80;
    std::vector<double> batch(k.b), other(k.b);
    double best = 0.0, best_var = 0.0;
    auto var_of = [&](const std::vector<double>& r) {
      const double mean = std::accumulate(r.begin(), r.end(), 0.0) / b;
      double ss = 0.0;
      for (double v : r) ss += (v - mean) * (v - mean);
      const double a = k.n * k.t / b;
      return a * a * ss;
    };
    for (int i = 0; i <= grid; ++i) {
      const double r = k.beta * (2.0 * i / grid - 1.0);
      for (int j = 0; j <= grid; ++j) {
        const double rp = k.beta * (2.0 * j / grid - 1.0);
        for (int s = 0; s <= (k.b == 1 ? 0 : grid); ++s) {
          const double each = k.b == 1 ? 0.0 : k.beta * (2.0 * s / grid - 1.0);
          std::fill(batch.begin(), batch.end() - 1, each);
          std::fill(other.begin(), other.end() - 1, each);
          batch.back() = r;
          other.back() = rp;
          best = std::max(
              best, std::abs(corrected_value(batch, k.n, k.t) - corrected_value(other, k.n, k.t)));
          best_var = std::max(best_var, 0.5 * std::abs(var_of(batch) - var_of(other)));
        }
      }
    }
    const double c = minibatch_penalty_sensitivity(k.n, k.t, k.b, k.beta);
    const double var_term = 2 * (b - 1) * std::pow(k.n * k.t, 2) * k.beta * k.beta / (b * b * b);
    EXPECT_NEAR(c, c_by_hand(k.n, k.t, b, k.beta), 1e-14 * c);
    EXPECT_NEAR(best, c, 1e-9 * c) << "b = " << k.b;
    EXPECT_NEAR(best_var, var_term, 1e-9 * c) << "b = " << k.b;
    if (k.b > 1) {
      const double lemma34 = 3 * (b - 1) * std::pow(k.n * k.t, 2) * k.beta * k.beta / (b * b * b);
      EXPECT_NEAR(best_var / lemma34, 2.0 / 3.0, 1e-9);
    }
  }
}

// Random batches with arbitrary (unequal) B*: never above c.
TEST(MinibatchPenaltySensitivity, RandomNeighboursNeverExceedIt) {
  Rng rng = make_rng(8, 0);
  for (std::size_t bs : {2u, 3u, 5u, 20u}) {
    const double n = 500, t = 1.0, beta = 0.4;
    const double c = minibatch_penalty_sensitivity(n, t, bs, beta);
    std::vector<double> batch(bs), other(bs);
    double best = 0.0;
    for (int k = 0; k < 100000; ++k) {
      for (std::size_t i = 0; i + 1 < bs; ++i) {
        // Mostly at the bounds, where the extremes are.
        batch[i] = rng.bernoulli(0.5) ? beta * (2 * rng.uniform() - 1)
                                      : (rng.bernoulli(0.5) ? beta : -beta);
        other[i] = batch[i];
      }
      batch.back() = beta * (2 * rng.uniform() - 1);
      other.back() = beta * (2 * rng.uniform() - 1);
      best = std::max(best, std::abs(corrected_value(batch, n, t) - corrected_value(other, n, t)));
    }
    EXPECT_LE(best, c * (1 + 1e-12)) << "b = " << bs;
    EXPECT_GT(best, 0.5 * c) << "b = " << bs;  // the search gets near the supremum
  }
}

// Moments of the released value at fixed (θ, θ′), n = 8, b = 3: exact enumeration of all 56
// batches gives the mean and variance of λ − σ_b²/2; (i) they agree with the closed forms
//   E[λ − σ_b²/2] = λ_full − ½(nT)²(b−1)S²/b²,  Var λ = (nT)²(1 − b/n)S²/b
// (S² = Σ_all (r − r̄)²/(n−1); WOR sample variance is unbiased for S²), and (ii) 200 000 releases
// have sample mean and variance within 4.5 standard errors of mean and Var_f + σ² (the errors
// from the exact fourth central moment μ4_f + 6Var_f σ² + 3σ⁴ of the sum of the independent
// batch value and noise).
TEST(PrivateDataBatch, LlrBatchMomentsMatchEnumerationOfAllBatches) {
  const GaussianModel m = gauss2(0.5);
  const Dataset d = simulated(m, 8);
  const Vec t = vec2(0.3, 0.2), tp = vec2(0.9, -0.4);
  const double bound = 1.5, t_ = 0.5, n = 8;
  constexpr std::size_t b = 3;
  std::vector<std::size_t> all(8);
  std::iota(all.begin(), all.end(), 0);
  const auto r_all = clipped_ratios(m, d, t, tp, all, bound);
  // Enumerate all C(8, 3) batches.
  std::vector<double> f;
  double lam_mean = 0, lam_sq = 0;
  for (std::size_t i = 0; i < 8; ++i)
    for (std::size_t j = i + 1; j < 8; ++j)
      for (std::size_t k = j + 1; k < 8; ++k) {
        const std::vector<double> r = {r_all[i], r_all[j], r_all[k]};
        f.push_back(corrected_value(r, n, t_));
        const double lam = n * t_ / b * (r[0] + r[1] + r[2]);
        lam_mean += lam;
        lam_sq += lam * lam;
      }
  ASSERT_EQ(f.size(), 56u);
  const double nf = double(f.size());
  const double mean_f = std::accumulate(f.begin(), f.end(), 0.0) / nf;
  double var_f = 0, m4_f = 0;
  for (double v : f) {
    var_f += (v - mean_f) * (v - mean_f) / nf;
    m4_f += std::pow(v - mean_f, 4) / nf;
  }
  lam_mean /= nf;
  const double var_lam = lam_sq / nf - lam_mean * lam_mean;
  const double rbar = std::accumulate(r_all.begin(), r_all.end(), 0.0) / n;
  double s2 = 0;
  for (double v : r_all) s2 += (v - rbar) * (v - rbar) / (n - 1);
  const double lambda_full = t_ * rbar * n;
  const double nt = n * t_;
  EXPECT_NEAR(lam_mean, lambda_full, 1e-12);
  EXPECT_NEAR(var_lam, nt * nt * (1 - b / n) * s2 / b, 1e-10);
  EXPECT_NEAR(mean_f, lambda_full - 0.5 * nt * nt * (b - 1) * s2 / (b * b), 1e-10);

  // Noise comparable to the batch spread, so both parts of the variance matter.
  const double c = minibatch_penalty_sensitivity(n, t_, b, bound);
  const double nm = 0.7 * std::sqrt(var_f) / c;
  const double s2n = (nm * c) * (nm * c);
  constexpr int kDraws = 200000;
  EventLog log;
  PrivateData pd(m, d, noise(), log,
                 llr_batch_test_allowance(b, static_cast<std::size_t>(n), kDraws));
  double sum = 0, sum_sq = 0;
  for (int i = 0; i < kDraws; ++i) {
    const double v = pd.llr_batch_corrected(t, tp, bound, nm, b).value - mean_f;
    sum += v;
    sum_sq += v * v;
  }
  const double var = var_f + s2n;
  const double m4 = m4_f + 6 * var_f * s2n + 3 * s2n * s2n;
  const double mean_hat = sum / kDraws;
  const double var_hat = sum_sq / kDraws - mean_hat * mean_hat;
  EXPECT_NEAR(mean_hat, 0.0, 4.5 * std::sqrt(var / kDraws));
  EXPECT_NEAR(var_hat, var, 4.5 * std::sqrt((m4 - var * var) / kDraws));
  ::testing::Test::RecordProperty("var_f", std::to_string(var_f));
  ::testing::Test::RecordProperty("noise_var", std::to_string(s2n));
  EXPECT_EQ(log.releases(), std::uint64_t(kDraws));
  EXPECT_EQ(log.size(), 1u);
}

TEST(MinibatchTemplate, EventAndBadInput) {
  const auto t = dp_penalty_minibatch_template(0.7, 1000, 100000);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].mechanism, Mechanism::subsampled_gaussian);
  EXPECT_EQ(t[0].sampling, Sampling::without_replacement);
  EXPECT_EQ(t[0].relation, Neighbouring::substitute);
  EXPECT_DOUBLE_EQ(t[0].sampling_rate, 0.01);
  EXPECT_DOUBLE_EQ(t[0].sensitivity, 1.0);
  EXPECT_DOUBLE_EQ(t[0].noise_sd, std::sqrt(0.7));
  EXPECT_EQ(t[0].kind, ReleaseKind::llr_batch);
  EXPECT_EQ(t[0].count, 1u);
  EXPECT_THROW(dp_penalty_minibatch_template(0.0, 10, 100), ConfigError);
  EXPECT_THROW(dp_penalty_minibatch_template(0.7, 0, 100), ConfigError);
  EXPECT_THROW(dp_penalty_minibatch_template(0.7, 101, 100), ConfigError);
}

}  // namespace
}  // namespace dpmcmc
