// DP penalty kernels: the penalty accept rule against the closed form of
// [Yildirim2020] Proposition 1 (checked by quadrature and by simulation), the recorded
// privacy events against the planner's template, the allowance, the variants' proposals, and
// bad configuration.
#include "samplers/dp_penalty.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#include "models/gaussian.hpp"
#include "privacy/gaussian_pld.hpp"
#include "privacy/iteration_templates.hpp"
#include "privacy/planner.hpp"
#include "test_allowance.hpp"
#include "test_noise.hpp"

namespace dpmcmc {
namespace {

double phi(double x) {
  return std::exp(-0.5 * x * x) / std::sqrt(2.0 * std::numbers::pi);
}

// ∫_a^b f by adaptive Gauss–Kronrod, split at fixed breakpoints so that no piece has its mass
// far from where the rule samples (an infinite range is mapped to a finite one around 0).
template <class F>
double integrate(F f, double a, double b, std::vector<double> breaks) {
  using boost::math::quadrature::gauss_kronrod;
  std::sort(breaks.begin(), breaks.end());
  double total = 0.0, lo = a;
  for (double x : breaks) {
    if (x <= lo || x >= b) continue;
    total += gauss_kronrod<double, 61>::integrate(f, lo, x, 15, 1e-13);
    lo = x;
  }
  return total + gauss_kronrod<double, 61>::integrate(f, lo, b, 15, 1e-13);
}

// ∫ min{1, e^{r+σx−σ²/2}} φ(x) dx, split at the kink x0 = σ/2 − r/σ where the exponent
// crosses 0 (independent of the closed form). e^{r+σx−σ²/2}φ(x) = e^r φ(x − σ) peaks at σ.
double acceptance_by_quadrature(double r, double s) {
  const double x0 = s / 2.0 - r / s;
  const double inf = std::numeric_limits<double>::infinity();
  const auto below = [&](double x) { return std::exp(r + s * x - s * s / 2.0) * phi(x); };
  const std::vector<double> breaks = {-10, -3, 0, 3, 10, s - 10, s - 3, s, s + 3, s + 10};
  return integrate(below, -inf, x0, breaks) + integrate(phi, x0, inf, breaks);
}

TEST(PenaltyAcceptance, ClosedFormMatchesQuadrature) {
  for (double r : {-5.0, -1.0, -0.1, 0.0, 0.3, 2.0, 8.0}) {
    for (double s : {0.05, 0.3, 1.0, 2.5, 6.0}) {
      EXPECT_NEAR(penalty_expected_acceptance(r, s), acceptance_by_quadrature(r, s), 1e-10)
          << "r = " << r << ", sigma = " << s;
    }
  }
  // σ → 0 recovers Metropolis.
  EXPECT_DOUBLE_EQ(penalty_expected_acceptance(-1.3, 0.0), std::exp(-1.3));
  EXPECT_DOUBLE_EQ(penalty_expected_acceptance(0.4, 0.0), 1.0);
  EXPECT_NEAR(penalty_expected_acceptance(-1.3, 1e-6), std::exp(-1.3), 1e-6);
}

// Proposition 1: decreasing in σ, with dα/dσ = −φ(σ/2 − r/σ) (the paper's proof), checked by
// central differences of the closed form (step 1e-5: truncation error ~1e-10, rounding ~1e-11).
TEST(PenaltyAcceptance, DecreasesInSigmaWithThePapersDerivative) {
  for (double r : {-3.0, -0.5, 0.0, 1.0, 4.0}) {
    double previous = penalty_expected_acceptance(r, 0.0);
    for (double s = 0.1; s <= 8.0; s += 0.1) {
      const double a = penalty_expected_acceptance(r, s);
      // Strictly smaller wherever the decrease (≈ 0.1·|dα/dσ|) exceeds double rounding.
      EXPECT_LE(a, previous) << "r = " << r << ", sigma = " << s;
      if (0.1 * phi(s / 2.0 - r / s) > 1e-13) {
        EXPECT_LT(a, previous) << "r = " << r << ", sigma = " << s;
      }
      previous = a;
      const double h = 1e-5;
      const double fd =
          (penalty_expected_acceptance(r, s + h) - penalty_expected_acceptance(r, s - h)) / (2 * h);
      EXPECT_NEAR(fd, -phi(s / 2.0 - r / s), 1e-8) << "r = " << r << ", sigma = " << s;
    }
  }
}

// The kernel's accept rule on a fixed move (exact log ratio r) over N = 10⁵ noise draws:
// the acceptance frequency is within 4 binomial standard errors √(p(1−p)/N) ≤ 0.0016 of the
// closed form (failure probability 6e-5 per case for a correct rule). Omitting the −σ²/2 penalty
// moves p by ≥ 0.05 in every case below, ≥ 30 standard errors.
TEST(PenaltyAcceptance, RuleAcceptsAtTheClosedFormRate) {
  constexpr int kN = 100000;
  Rng rng = make_rng(3, 0);
  NoiseRng noise = test_noise_rng(4, 0);
  for (const auto& [r, s] : {std::pair{-0.5, 0.5}, {0.0, 1.0}, {1.0, 2.0}, {-2.0, 1.5}}) {
    int accepted = 0;
    double stat = 0.0;
    for (int i = 0; i < kN; ++i) {
      const AcceptDecision d = penalty_accept(r + s * noise.normal(), s, rng);
      accepted += d.accept;
      stat += d.accept_stat;
    }
    const double p = penalty_expected_acceptance(r, s);
    const double se = std::sqrt(p * (1 - p) / kN);
    EXPECT_NEAR(double(accepted) / kN, p, 4 * se) << "r = " << r << ", sigma = " << s;
    // accept_stat is the conditional probability: its mean estimates p too (smaller variance).
    EXPECT_NEAR(stat / kN, p, 4 * se) << "r = " << r << ", sigma = " << s;
  }
}

TEST(PenaltyAcceptance, NanRatioIsRejected) {
  Rng rng = make_rng(1, 0);
  const AcceptDecision d = penalty_accept(std::numeric_limits<double>::quiet_NaN(), 1.0, rng);
  EXPECT_FALSE(d.accept);
  EXPECT_EQ(d.accept_stat, 0.0);
}

// --- Kernels -------------------------------------------------------------------------------

struct Chain {
  GaussianModel model;
  Dataset data;
  EventLog log;
  std::unique_ptr<PrivateData> pd;
  Chain(std::size_t n, std::uint64_t allowance, double temperature = 1.0)
      : model(Vec::Zero(2), Mat::Identity(2, 2) * 100.0, Mat::Identity(2, 2), temperature) {
    Rng rng = make_rng(9, 0, Stream::data);
    data = model.simulate(Vec::Constant(2, 0.5), n, rng);
    pd = std::make_unique<PrivateData>(
        model, data, test_noise_rng(9, 0), log,
        gaussian_allowance({{ReleaseKind::llr_sum, allowance}}, kLowestTestMultiplier));
  }
};

DpPenaltyConfig config(PenaltyProposal p, double alpha = 0.5) {
  DpPenaltyConfig c;
  c.scale = Vec::Constant(1, 0.05);
  c.tau = 0.02;
  c.clip = 5.0;
  c.alpha = alpha;
  c.proposal = p;
  return c;
}

// Recorded = planned: k iterations leave k "llr_sum" releases with multiplier τn^α in the log,
// and the Gaussian PLD of the log equals the planner's spend for k iterations of the template
// (to the event log's merge tolerance 1e-12 on σ/Δ). Then the chain is exhausted and no further
// release is possible through the public API.
TEST(DpPenaltyKernel, RecordedSpendEqualsPlannedAndStopsAtTheAllowance) {
  constexpr std::uint64_t k = 300;
  const double n = 400;
  for (const double alpha : {0.5, 0.7}) {
    for (const auto p :
         {PenaltyProposal::full, PenaltyProposal::one_component, PenaltyProposal::guided_walk}) {
      Chain s(400, k, 0.5);
      DpPenaltyKernel kernel(s.model, *s.pd, config(p, alpha));
      EXPECT_DOUBLE_EQ(kernel.noise_multiplier(), 0.02 * std::pow(n, alpha));
      kernel.init(Vec::Constant(2, 0.5));
      Rng rng = make_rng(2, 0);
      double extras[3];
      std::uint64_t steps = 0;
      while (!kernel.exhausted()) {
        kernel.transition(rng, extras);
        ++steps;
        ASSERT_LE(steps, k);
      }
      EXPECT_EQ(steps, k) << penalty_sampler_name(p);
      EXPECT_EQ(s.log.releases(), k);
      for (const PrivacyEvent& e : s.log.events()) {
        EXPECT_EQ(e.kind, ReleaseKind::llr_sum);
        EXPECT_NEAR(e.noise_multiplier(), kernel.noise_multiplier(),
                    1e-12 * kernel.noise_multiplier());
      }
      const GaussianPldAccountant pld;
      const double delta = 1e-5;
      const double recorded = pld.compose(s.log.events())->epsilon(delta);
      const double planned = iterations_spend(pld, dp_penalty_template(0.02, n, alpha), k, delta);
      EXPECT_NEAR(recorded, planned, 1e-9 * planned) << penalty_sampler_name(p);
      EXPECT_THROW(kernel.transition(rng, extras), BudgetExhausted);
      EXPECT_THROW(s.pd->llr_sum(Vec::Zero(2), Vec::Ones(2), 1.0, 1.0), BudgetExhausted);
      EXPECT_EQ(s.log.releases(), k);
    }
  }
}

// The draw columns: noise_sd__ is σ = τ√n·2·T·b‖θ′ − θ‖ of the release just recorded,
// clip_frac__ its clipped share, eps_spent__ the callback's value of the release count.
TEST(DpPenaltyKernel, ExtraColumnsDescribeTheRelease) {
  Chain s(400, 50, 0.5);
  DpPenaltyConfig c = config(PenaltyProposal::one_component);
  c.clip = 0.5;  // small enough to clip some rows
  DpPenaltyKernel kernel(s.model, *s.pd, c);
  EXPECT_EQ(kernel.name(), "dp-penalty-ocu");
  EXPECT_EQ(kernel.extra_columns(),
            (std::vector<std::string>{"clip_frac__", "noise_sd__", "eps_spent__"}));
  kernel.init(Vec::Constant(2, 0.5));
  Rng rng = make_rng(2, 0);
  double extras[3];
  const TransitionInfo info = kernel.transition(rng, extras);
  EXPECT_TRUE(std::isnan(info.log_density));
  EXPECT_TRUE(std::isnan(extras[2])) << "no callback set";
  ASSERT_EQ(s.log.size(), 1u);
  EXPECT_DOUBLE_EQ(extras[1], s.log.events()[0].noise_sd);
  // Replay the proposal: OCU draws the component index, then one normal.
  Rng replay = make_rng(2, 0);
  const auto j = static_cast<Eigen::Index>(replay.index(2));
  const double step = 0.05 * std::abs(replay.normal());
  EXPECT_NEAR(extras[1], 0.02 * std::sqrt(400.0) * 2.0 * 0.5 * 0.5 * step,
              1e-6 * extras[1]);  // + the grid's share
  // clip_frac__ against a direct count of |log p(x|θ′) − log p(x|θ)| > b·step.
  Vec tp = Vec::Constant(2, 0.5);
  Rng replay2 = make_rng(2, 0);
  replay2.index(2);
  tp[j] += 0.05 * replay2.normal();
  Vec a(400), b(400);
  s.model.log_lik_rows(Vec::Constant(2, 0.5), s.data.x, a);
  s.model.log_lik_rows(tp, s.data.x, b);
  const double clipped = ((b - a).array().abs() > 0.5 * step).count();
  ASSERT_GT(clipped, 0);
  EXPECT_DOUBLE_EQ(extras[0], clipped / 400.0);

  kernel.set_spend_callback([](std::uint64_t releases) { return 0.25 * double(releases); });
  kernel.transition(rng, extras);
  EXPECT_DOUBLE_EQ(extras[2], 0.5);
}

// OCU changes one component per accepted move; GWMH moves component j only in direction d_j,
// keeps d_j after an accept and flips it after a reject.
TEST(DpPenaltyKernel, OneComponentAndGuidedWalkMoves) {
  {
    Chain s(200, 500);
    DpPenaltyKernel kernel(s.model, *s.pd, config(PenaltyProposal::one_component));
    kernel.init(Vec::Constant(2, 0.5));
    Rng rng = make_rng(4, 0);
    double extras[3];
    int accepted = 0;
    for (int i = 0; i < 500; ++i) {
      const Vec before = kernel.position();
      const TransitionInfo t = kernel.transition(rng, extras);
      const Vec diff = kernel.position() - before;
      EXPECT_LE((diff.array() != 0.0).count(), 1);
      accepted += t.accepted;
    }
    EXPECT_GT(accepted, 50);
  }
  {
    Chain s(200, 500);
    DpPenaltyKernel kernel(s.model, *s.pd, config(PenaltyProposal::guided_walk));
    EXPECT_EQ(kernel.name(), "dp-penalty-gwmh");
    kernel.init(Vec::Constant(2, 0.5));
    EXPECT_EQ(kernel.directions(), Vec::Ones(2));
    Rng rng = make_rng(4, 0);
    double extras[3];
    int accepted = 0, rejected = 0;
    for (int i = 0; i < 500; ++i) {
      const Vec before = kernel.position(), dir = kernel.directions();
      const TransitionInfo t = kernel.transition(rng, extras);
      const Vec diff = kernel.position() - before;
      const Vec flipped = (kernel.directions().array() != dir.array()).cast<double>();
      if (t.accepted) {
        ++accepted;
        EXPECT_EQ(flipped.sum(), 0.0);
        ASSERT_LE((diff.array() != 0.0).count(), 1);
        for (int j = 0; j < 2; ++j) EXPECT_GE(diff[j] * dir[j], 0.0) << "moved against d_j";
      } else {
        ++rejected;
        EXPECT_EQ(flipped.sum(), 1.0);
        EXPECT_EQ(diff.norm(), 0.0);
      }
    }
    EXPECT_GT(accepted, 50);
    EXPECT_GT(rejected, 50);
  }
}

TEST(DpPenaltyKernel, RejectsBadConfigurationAndStarts) {
  Chain s(50, 10);
  const auto bad = [&](auto edit) {
    DpPenaltyConfig c = config(PenaltyProposal::full);
    edit(c);
    return [&s, c] { DpPenaltyKernel k(s.model, *s.pd, c); };
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(bad([](auto& c) { c.tau = 0; })(), ConfigError);
  EXPECT_THROW(bad([](auto& c) { c.tau = -1; })(), ConfigError);
  EXPECT_THROW(bad([&](auto& c) { c.clip = nan; })(), ConfigError);
  EXPECT_THROW(bad([](auto& c) { c.clip = 0; })(), ConfigError);
  EXPECT_THROW(bad([](auto& c) { c.alpha = 0; })(), ConfigError);
  EXPECT_THROW(bad([](auto& c) { c.scale = Vec::Constant(3, 0.1); })(), ConfigError);
  EXPECT_THROW(bad([](auto& c) { c.scale = Vec::Constant(1, -0.1); })(), ConfigError);
  try {
    bad([](auto& c) { c.tau = -2; })();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("tau"), std::string::npos) << e.what();
  }
  DpPenaltyKernel k(s.model, *s.pd, config(PenaltyProposal::full));
  EXPECT_THROW(k.init(Vec::Zero(3)), ConfigError);
  EXPECT_THROW(k.init(Vec::Constant(2, nan)), ConfigError);
  Rng rng = make_rng(1, 0);
  double extras[3];
  EXPECT_THROW(k.transition(rng, extras), SoftwareError);  // before init
  EXPECT_TRUE(s.log.empty());
}

// The owning form keeps the PrivateData alive with the kernel.
TEST(DpPenaltyKernel, OwnsItsPrivateData) {
  Chain s(50, 2);
  DpPenaltyKernel k(s.model, std::move(s.pd), config(PenaltyProposal::full));
  k.init(Vec::Constant(2, 0.5));
  Rng rng = make_rng(1, 0);
  double extras[3];
  k.transition(rng, extras);
  EXPECT_EQ(k.private_data().releases(), 1u);
  EXPECT_EQ(k.private_data().remaining(ReleaseKind::llr_sum), 1u);
  EXPECT_FALSE(k.exhausted());
}

}  // namespace
}  // namespace dpmcmc
