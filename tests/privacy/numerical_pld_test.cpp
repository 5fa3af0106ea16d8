// Tests of the numerical PLD accountant against independent values: the closed-form Gaussian
// δ(ε) (written out here), published numbers, the RDP curves, and structural properties.
#include <gtest/gtest.h>

#include <boost/math/tools/roots.hpp>
#include <cmath>
#include <vector>

#include "core/error.hpp"
#include "privacy/numerical_pld.hpp"
#include "privacy/numerical_pld_factory.hpp"
#include "privacy/rdp.hpp"
#include "privacy/rdp_accountant.hpp"
#include "privacy/rdp_events.hpp"
#include "test_events.hpp"

namespace dpmcmc {
namespace {

using test::gaussian_event;
using test::subsampled_event;

// Closed form for compositions of Gaussian mechanisms with total μ = Σ Δᵢ²/(2σᵢ²):
// δ(ε) = ½[erfc((ε−μ)/(2√μ)) − e^ε erfc((ε+μ)/(2√μ))] ([RaisaKoskelaHonkela2021] Theorem 2.4).
double gaussian_delta(double mu, double eps) {
  return 0.5 * (std::erfc((eps - mu) / (2 * std::sqrt(mu))) -
                std::exp(eps) * std::erfc((eps + mu) / (2 * std::sqrt(mu))));
}

double gaussian_epsilon(double mu, double delta) {
  auto f = [&](double e) { return gaussian_delta(mu, e) - delta; };
  boost::uintmax_t it = 200;
  const auto r = boost::math::tools::toms748_solve(
      f, 0.0, 10 * mu + 100.0, boost::math::tools::eps_tolerance<double>(50), it);
  return 0.5 * (r.first + r.second);
}

const NumericalPldAccountant kUpper(PldRounding::pessimistic);
const NumericalPldAccountant kLower(PldRounding::optimistic);

TEST(NumericalPld, ClosedFormMatchesPublishedGaussianValues) {
  // The test's own closed form against the published values (σ = 1, Δ = 1: μ = 1/2), so that
  // the bracketing tests below rest on a checked reference.
  EXPECT_NEAR(gaussian_delta(0.5, 0.0), 0.38292492, 1e-8);
  EXPECT_NEAR(gaussian_delta(0.5, 1.0), 0.12693674, 1e-8);
  EXPECT_NEAR(gaussian_delta(0.5, 2.0), 0.020923636, 1e-9);
  // "μ = 1" in the published ε(δ = 1e-5) = 4.37717810 is the Gaussian-DP μ = Δ/σ, i.e. a loss
  // law N(μ²/2, μ²): our μ = 1/2.
  EXPECT_NEAR(gaussian_epsilon(0.5, 1e-5), 4.37717810, 1e-7);
}

TEST(NumericalPld, BracketsTheGaussianClosedForm) {
  struct Case {
    double sigma;
    std::uint64_t k;
  };
  for (const Case c : {Case{1.0, 1}, Case{4.0, 200}, Case{0.5, 3}, Case{10.0, 300}}) {
    const std::vector<PrivacyEvent> ev{gaussian_event(c.sigma, c.k)};
    const auto up = kUpper.compose(ev);
    const auto lo = kLower.compose(ev);
    const double mu = static_cast<double>(c.k) / (2 * c.sigma * c.sigma);
    for (double eps : {0.0, 0.5, 1.0, 2.0, 5.0}) {
      const double exact = gaussian_delta(mu, eps);
      if (exact < 1e-13) continue;  // below the FFT round-off level (numerical_pld.hpp)
      EXPECT_LE(lo->delta(eps), exact) << c.sigma << " " << c.k << " ε=" << eps;
      EXPECT_GE(up->delta(eps), exact) << c.sigma << " " << c.k << " ε=" << eps;
      // Both discretisations err at second order in h (numerical_pld.hpp): within 1e-4
      // relative of the exact value (measured ≲ 1e-6), plus the round-off allowance.
      EXPECT_LE(up->delta(eps) - exact, 1e-4 * exact + 1e-10);
      EXPECT_LE(exact - lo->delta(eps), 1e-4 * exact + 1e-10);
    }
    for (double delta : {1e-3, 1e-5, 1e-8}) {
      const double exact = gaussian_epsilon(mu, delta);
      EXPECT_LE(lo->epsilon(delta), exact);
      EXPECT_GE(up->epsilon(delta), exact);
      // Tightness where the round-off allowance (~1e-11–1e-10 of δ, numerical_pld.hpp) is
      // negligible; at δ = 1e-8 it dominates the upper bound's excess.
      if (delta >= 1e-5) {
        EXPECT_LE(up->epsilon(delta) - exact, 1e-4 * (1 + exact));
      }
    }
  }
}

TEST(NumericalPld, PublishedEpsilonOfGaussianWithMuOne) {
  // Gaussian-DP μ = Δ/σ = 1, one release: ε(δ = 1e-5) = 4.37717810 (published).
  const std::vector<PrivacyEvent> ev{gaussian_event(1.0, 1)};
  const double up = kUpper.compose(ev)->epsilon(1e-5);
  const double lo = kLower.compose(ev)->epsilon(1e-5);
  EXPECT_LE(lo, 4.37717810);
  EXPECT_GE(up, 4.37717810);
  EXPECT_LT(up - lo, 2e-4);  // one release: the loss moves by at most h = 1e-4 each way
}

TEST(NumericalPld, HeterogeneousGaussiansBracketTheClosedForm) {
  const std::vector<PrivacyEvent> ev{gaussian_event(2.0, 10), gaussian_event(5.0, 50, 2.0),
                                     gaussian_event(1.5, 1)};
  const double mu = 10 / 8.0 + 50 * 4 / 50.0 + 1 / 4.5;
  for (double delta : {1e-4, 1e-7}) {
    const double exact = gaussian_epsilon(mu, delta);
    EXPECT_LE(kLower.compose(ev)->epsilon(delta), exact);
    EXPECT_GE(kUpper.compose(ev)->epsilon(delta), exact);
  }
}

TEST(NumericalPld, BoundsConvergeAsTheIntervalShrinks) {
  const std::vector<PrivacyEvent> ev{subsampled_event(Sampling::poisson, 0.05, 1.0, 200)};
  auto gap_at = [&](double h) {
    NumericalPldOptions o;
    o.interval = h;
    const double up =
        NumericalPldAccountant(PldRounding::pessimistic, o).compose(ev)->epsilon(1e-6);
    const double lo = NumericalPldAccountant(PldRounding::optimistic, o).compose(ev)->epsilon(1e-6);
    EXPECT_LE(lo, up);
    return up - lo;
  };
  // Both discretisations are exact at the grid points and err at second order in h in between
  // (numerical_pld.hpp), so halving h should divide the gap by ~4 (measured 4.2–4.9); we require
  // 3. Below h ≈ 1e-3 the gap reaches the floor set by the round-off allowance and the tails.
  double previous = gap_at(1.6e-2);
  for (double h : {8e-3, 4e-3, 2e-3}) {
    const double gap = gap_at(h);
    EXPECT_LT(gap, previous / 3) << "h=" << h;
    previous = gap;
  }
  EXPECT_LT(gap_at(1e-4), 2e-4);
}

// 10⁴ releases of the WOR-subsampled Gaussian (q = 0.01, σ = 1, h = 1e-4) carry an FFT round-off
// allowance of ~1e-8 (numerical_pld.hpp). At δ = 1e-9 the upper bound is then +∞ while RDP, an
// independent upper bound, certifies a finite ε: the caveat must say so and name the remedies;
// at δ = 1e-5 the allowance is negligible and there is no caveat.
TEST(NumericalPld, CaveatWhenTheErrorAllowanceReachesDelta) {
  const std::vector<PrivacyEvent> ev{
      subsampled_event(Sampling::without_replacement, 0.01, 1.0, 10000)};
  const auto up = kUpper.compose(ev);
  const auto lo = kLower.compose(ev);
  const double rdp = RdpAccountant().compose(ev)->epsilon(1e-9);
  ASSERT_TRUE(std::isfinite(rdp));
  EXPECT_TRUE(std::isinf(up->epsilon(1e-9)));
  const std::string up_note = up->caveat(1e-9);
  EXPECT_NE(up_note.find("no finite ε certified at δ = 1e-09"), std::string::npos) << up_note;
  EXPECT_NE(up_note.find("round-off"), std::string::npos) << up_note;
  EXPECT_NE(up_note.find("--pld-interval"), std::string::npos) << up_note;
  EXPECT_NE(up_note.find("the rdp accountant"), std::string::npos) << up_note;
  // The lower bound's note does not offer RDP as a remedy: RDP bounds ε from above only.
  const std::string lo_note = lo->caveat(1e-9);
  EXPECT_NE(lo_note.find("loose lower bound"), std::string::npos) << lo_note;
  EXPECT_NE(lo_note.find("upper bounds only"), std::string::npos) << lo_note;
  EXPECT_TRUE(std::isfinite(up->epsilon(1e-5)));
  EXPECT_EQ(up->caveat(1e-5), "");
  EXPECT_EQ(lo->caveat(1e-5), "");
  // A grid of h = 1e-2 against single-release losses of ~1e-3 (q = 0.01, σ = 7.9): optimistic
  // rounding collapses them to 0, a trivial lower bound that must be flagged, while the upper
  // bound stays finite (0.40 against RDP's 0.17, `dpmcmc account … --pld-interval 1e-2`).
  NumericalPldOptions coarse;
  coarse.interval = 1e-2;
  const std::vector<PrivacyEvent> small{
      subsampled_event(Sampling::without_replacement, 0.01, 7.9057, 1000)};
  const auto lo_coarse = NumericalPldAccountant(PldRounding::optimistic, coarse).compose(small);
  EXPECT_EQ(lo_coarse->epsilon(1e-6), 0.0);
  EXPECT_NE(lo_coarse->caveat(1e-6).find("trivial lower bound"), std::string::npos);
  EXPECT_EQ(NumericalPldAccountant(PldRounding::pessimistic, coarse).compose(small)->caveat(1e-6),
            "");
  // The closed-form accountants have no allowance and no caveat.
  EXPECT_EQ(RdpAccountant().compose(ev)->caveat(1e-9), "");
}

TEST(NumericalPld, TighterThanRdpForSubsampledGaussians) {
  const RdpAccountant rdp;
  for (Sampling s : {Sampling::poisson, Sampling::without_replacement}) {
    for (double sigma : {0.8, 2.0}) {
      const std::vector<PrivacyEvent> ev{subsampled_event(s, 0.01, sigma, 300)};
      for (double delta : {1e-5, 1e-8}) {
        const double up = kUpper.compose(ev)->epsilon(delta);
        const double lo = kLower.compose(ev)->epsilon(delta);
        const double r = rdp.compose(ev)->epsilon(delta);
        EXPECT_LE(lo, up);
        // Every certified bound must lie above the lower bound; the PLD is the tighter one.
        EXPECT_GE(r, lo);
        EXPECT_LE(up, r) << "σ=" << sigma << " δ=" << delta;
      }
    }
  }
}

TEST(NumericalPld, LowerNeverAboveUpperAndMonotoneInCompositions) {
  for (Sampling s : {Sampling::poisson, Sampling::without_replacement}) {
    double prev_delta = 0.0, prev_eps = 0.0;
    for (std::uint64_t k : {1u, 10u, 100u, 1000u}) {
      const std::vector<PrivacyEvent> ev{subsampled_event(s, 0.02, 1.2, k)};
      const auto up = kUpper.compose(ev);
      const auto lo = kLower.compose(ev);
      for (double eps : {0.1, 0.5, 1.0, 3.0}) EXPECT_LE(lo->delta(eps), up->delta(eps));
      for (double delta : {1e-3, 1e-6}) EXPECT_LE(lo->epsilon(delta), up->epsilon(delta));
      // More releases never cost less privacy.
      EXPECT_GE(up->delta(0.5), prev_delta);
      EXPECT_GE(up->epsilon(1e-6), prev_eps);
      prev_delta = up->delta(0.5);
      prev_eps = up->epsilon(1e-6);
      // δ(ε) is non-increasing in ε.
      double last = 1.0;
      for (double eps = 0.0; eps < 6.0; eps += 0.25) {
        EXPECT_LE(up->delta(eps), last + 1e-15);
        last = up->delta(eps);
      }
    }
  }
}

TEST(NumericalPld, SingleReleaseMassIsAccounted) {
  NumericalPldOptions o;
  for (PldDirection d : {PldDirection::remove, PldDirection::add, PldDirection::symmetric}) {
    for (double q : {0.01, 0.3, 1.0}) {
      const auto up = subsampled_gaussian_pld(q, 0.9, d, PldRounding::pessimistic, o);
      const auto lo = subsampled_gaussian_pld(q, 0.9, d, PldRounding::optimistic, o);
      // Pessimistic: nothing is lost (finite + ∞ = 1); optimistic: at most the tails.
      EXPECT_NEAR(up.finite_mass() + up.infinity_mass, 1.0, 1e-12);
      EXPECT_LE(lo.finite_mass(), 1.0 + 1e-12);
      EXPECT_GE(lo.finite_mass(), 1.0 - 1e-13);
    }
  }
}

// log E[e^{(α−1)ℓ}] / (α−1) of the finite part of a discretised PLD: the RDP of its pair.
double pld_rdp(const DiscretePld& d, double alpha) {
  long double s = 0;
  for (std::size_t i = 0; i < d.pmf.size(); ++i) s += d.pmf[i] * std::exp((alpha - 1) * d.loss(i));
  return static_cast<double>(std::log(s)) / (alpha - 1);
}

TEST(NumericalPld, MomentsBracketTheRdpCurves) {
  // A second, independent route to the RDP curves of rdp.cpp: integrate e^{(α−1)ℓ} against the
  // discretised loss laws (rounded down ⇒ below, rounded up ⇒ above, up to the ≤ 1e-15 tails).
  NumericalPldOptions o;
  o.interval = 1e-5;
  for (double q : {0.05, 0.3}) {
    const double z = 1.1;
    const auto rem_lo =
        subsampled_gaussian_pld(q, z, PldDirection::remove, PldRounding::optimistic, o);
    const auto rem_up =
        subsampled_gaussian_pld(q, z, PldDirection::remove, PldRounding::pessimistic, o);
    const auto sym_lo =
        subsampled_gaussian_pld(q, z, PldDirection::symmetric, PldRounding::optimistic, o);
    const auto sym_up =
        subsampled_gaussian_pld(q, z, PldDirection::symmetric, PldRounding::pessimistic, o);
    for (double alpha : {1.5, 2.0, 4.0}) {
      const double poisson = rdp_poisson_subsampled_gaussian(alpha, q, z);
      const double wor = rdp_wor_subsampled_gaussian(alpha, q, z);
      EXPECT_LE(pld_rdp(rem_lo, alpha), poisson * (1 + 1e-9));
      EXPECT_LE(pld_rdp(sym_lo, alpha), wor * (1 + 1e-9));
      // (up to the +∞ atom of ≤ 1e-15, left out of the moment, hence the 1e-7 slack)
      EXPECT_GE(pld_rdp(rem_up, alpha), poisson * (1 - 1e-7));
      EXPECT_GE(pld_rdp(sym_up, alpha), wor * (1 - 1e-7));
      // And the bracket is narrow: rounding moves ℓ by < h = 1e-5.
      EXPECT_NEAR(pld_rdp(sym_up, alpha), wor, 2e-5 + 1e-4 * wor);
      EXPECT_NEAR(pld_rdp(rem_lo, alpha), poisson, 2e-5 + 1e-4 * poisson);
    }
  }
}

TEST(NumericalPld, FullSamplingIsTheGaussian) {
  const std::vector<PrivacyEvent> a{subsampled_event(Sampling::poisson, 1.0, 3.0, 50)};
  const std::vector<PrivacyEvent> b{gaussian_event(3.0, 50)};
  EXPECT_DOUBLE_EQ(kUpper.compose(a)->epsilon(1e-6), kUpper.compose(b)->epsilon(1e-6));
}

TEST(NumericalPld, RejectsBadInput) {
  PrivacyEvent approx;
  approx.mechanism = Mechanism::approximate_dp;
  approx.epsilon = 1.0;
  approx.delta = 1e-6;
  EXPECT_FALSE(kUpper.supports(approx));
  EXPECT_THROW(kUpper.compose(std::vector<PrivacyEvent>{approx}), ConfigError);
  // Mixed relations cannot be composed.
  const std::vector<PrivacyEvent> mixed{
      subsampled_event(Sampling::poisson, 0.1, 1.0, 5),
      subsampled_event(Sampling::without_replacement, 0.1, 1.0, 5)};
  EXPECT_THROW(kUpper.compose(mixed), ConfigError);
  // Poisson sampling with the substitute relation is not supported.
  auto ps = subsampled_event(Sampling::poisson, 0.1, 1.0, 5);
  ps.relation = Neighbouring::substitute;
  EXPECT_FALSE(kUpper.supports(ps));
  NumericalPldOptions bad;
  bad.interval = 0.0;
  EXPECT_THROW(NumericalPldAccountant(PldRounding::pessimistic, bad), ConfigError);
  bad = {};
  bad.tail_mass = 0.5;
  EXPECT_THROW(NumericalPldAccountant(PldRounding::pessimistic, bad), ConfigError);
  // A loss range needing more bins than allowed fails with a message, not an allocation.
  NumericalPldOptions tiny;
  tiny.interval = 1e-7;
  tiny.max_bins = 1000;
  EXPECT_THROW(NumericalPldAccountant(PldRounding::pessimistic, tiny)
                   .compose(std::vector<PrivacyEvent>{gaussian_event(1.0, 1)}),
               ConfigError);
  const auto p = kUpper.compose(std::vector<PrivacyEvent>{gaussian_event(1.0, 1)});
  EXPECT_THROW(p->epsilon(0.0), ConfigError);
  EXPECT_THROW(p->epsilon(1.0), ConfigError);
  EXPECT_THROW(p->delta(-1.0), ConfigError);
}

TEST(NumericalPld, HardWindowKeepsBothBoundsValid) {
  // A window far too narrow only loosens the bounds: the cut mass goes to +∞ (upper) or is
  // rounded down (lower).
  NumericalPldOptions o;
  o.loss_min = -0.5;
  o.loss_max = 2.0;
  const std::vector<PrivacyEvent> ev{gaussian_event(2.0, 40)};  // μ = 5
  const auto up = NumericalPldAccountant(PldRounding::pessimistic, o).compose_pld(ev);
  const auto lo = NumericalPldAccountant(PldRounding::optimistic, o).compose_pld(ev);
  for (double eps : {0.5, 1.5, 3.0}) {
    EXPECT_GE(up->delta(eps), gaussian_delta(5.0, eps));
    EXPECT_LE(lo->delta(eps), gaussian_delta(5.0, eps));
  }
  EXPECT_GT(up->directions().front().infinity_mass, 0.1);
}

TEST(NumericalPld, SymmetricPairHasTheRemoveProfileForOneRelease) {
  // The WOR/substitute dominating pair is built so that for ε ≥ 0 its δ(ε) equals that of the
  // remove pair (P', Q) (Balle et al. 2018, Theorem 10): the two discretisations, built from
  // different pieces (restricted measures, mirror image, atom at 0), must agree for one release.
  NumericalPldOptions o;
  for (double q : {0.02, 0.4}) {
    const auto rem =
        subsampled_gaussian_pld(q, 0.9, PldDirection::remove, PldRounding::pessimistic, o);
    const auto sym =
        subsampled_gaussian_pld(q, 0.9, PldDirection::symmetric, PldRounding::pessimistic, o);
    for (double eps : {0.0, 0.05, 0.3, 1.0, 2.5}) {
      EXPECT_NEAR(sym.delta(eps), rem.delta(eps), 1e-12 + 1e-9 * rem.delta(eps)) << q << " " << eps;
    }
  }
}

// One Poisson-subsampled release in closed form (P' = (1−q)N(0,z²) + qN(1,z²), Q = N(0,z²)):
//   remove: δ(ε) = P'(x > x_ε) − e^ε Q(x > x_ε),  x_ε = z² ln((e^ε − 1 + q)/q) + ½;
//   add:    δ(ε) = Q(x < y_ε) − e^ε P'(x < y_ε),  y_ε = z² ln((e^{−ε} − 1 + q)/q) + ½
//           (no x when e^{−ε} ≤ 1 − q: δ = 0).
double poisson_single_delta(double q, double z, double eps, bool remove) {
  auto sf = [](double t) { return 0.5 * std::erfc(t / std::sqrt(2.0)); };
  if (remove) {
    const double x = z * z * std::log((std::expm1(eps) + q) / q) + 0.5;
    return (1 - q) * sf(x / z) + q * sf((x - 1) / z) - std::exp(eps) * sf(x / z);
  }
  const double a = std::expm1(-eps) + q;
  if (a <= 0) return 0.0;
  const double y = z * z * std::log(a / q) + 0.5;
  auto cdf = [&](double t) { return 1 - sf(t); };
  return cdf(y / z) - std::exp(eps) * ((1 - q) * cdf(y / z) + q * cdf((y - 1) / z));
}

TEST(NumericalPld, SingleSubsampledReleaseBracketsItsClosedForm) {
  NumericalPldOptions o;
  for (double q : {0.01, 0.2}) {
    for (double z : {0.7, 2.0}) {
      for (bool remove : {true, false}) {
        const auto dir = remove ? PldDirection::remove : PldDirection::add;
        const auto up = subsampled_gaussian_pld(q, z, dir, PldRounding::pessimistic, o);
        const auto lo = subsampled_gaussian_pld(q, z, dir, PldRounding::optimistic, o);
        for (double eps : {0.0, 0.001, 0.01, 0.1, 0.5, 1.0}) {
          const double exact = poisson_single_delta(q, z, eps, remove);
          // Connect-the-dots is exact at grid points (ε here are multiples of h) up to the
          // 1e-15 tails; rounding down stays below.
          EXPECT_NEAR(up.delta(eps), exact, 1e-12 + 1e-9 * exact) << q << " " << z << " " << eps;
          EXPECT_GE(up.delta(eps), exact - 1e-15);
          EXPECT_LE(lo.delta(eps), exact + 1e-15);
        }
      }
    }
  }
}

TEST(NumericalPldFactory, ReadsRegistryOptions) {
  const auto o = numerical_pld_options(
      nlohmann::json{{"pld_interval", 1e-3}, {"pld_tail_mass", 1e-12}, {"rdp_refine", true}});
  EXPECT_EQ(o.interval, 1e-3);
  EXPECT_EQ(o.tail_mass, 1e-12);
  EXPECT_EQ(make_numerical_pld_accountant(PldRounding::optimistic, {})->name(),
            "pld-numerical-lower");
  EXPECT_EQ(make_numerical_pld_accountant(PldRounding::pessimistic, {})->bound(),
            BoundKind::upper_bound);
  EXPECT_THROW(numerical_pld_options(nlohmann::json{{"pld_interval", "small"}}), ConfigError);
  EXPECT_THROW(numerical_pld_options(nlohmann::json{{"pld_interval", -1}}), ConfigError);
  EXPECT_THROW(numerical_pld_options(nlohmann::json{{"pld_max_bins", -5}}), ConfigError);
}

}  // namespace
}  // namespace dpmcmc

namespace dpmcmc {
namespace {

// Multipliers are rounded to 32 significant bits towards the certified side, so releases whose
// recorded σ/Δ differ by ~1e-12 (the float-safe noise) compose as one group: the same ε as the
// rounded multiplier's composition, an upper bound that is never below the unrounded one's and a
// lower bound never above it.
TEST(NumericalPld, MultipliersRoundTowardsTheCertifiedSide) {
  const double z = 1.2247448713915890;
  const double down = rounded_multiplier(z, BoundKind::upper_bound);
  const double up = rounded_multiplier(z, BoundKind::lower_bound);
  EXPECT_LE(down, z);
  EXPECT_GE(up, z);
  EXPECT_LT((z - down) / z, std::ldexp(1.0, -31));
  EXPECT_LT((up - z) / z, std::ldexp(1.0, -31));
  EXPECT_EQ(rounded_multiplier(down, BoundKind::upper_bound), down);  // idempotent
  const double near = z * (1.0 + 1e-12);
  EXPECT_EQ(rounded_multiplier(near, BoundKind::upper_bound), down);
  const NumericalPldAccountant upper(PldRounding::pessimistic);
  const NumericalPldAccountant lower(PldRounding::optimistic);
  const std::vector<PrivacyEvent> mixed{subsampled_event(Sampling::poisson, 0.01, z, 300),
                                        subsampled_event(Sampling::poisson, 0.01, near, 200)};
  const std::vector<PrivacyEvent> one{subsampled_event(Sampling::poisson, 0.01, down, 500)};
  EXPECT_EQ(upper.compose(mixed)->epsilon(1e-6), upper.compose(one)->epsilon(1e-6));
  // The lower bound rounds up: the mixed releases compose as 500 at the rounded-up multiplier.
  const std::vector<PrivacyEvent> one_up{subsampled_event(Sampling::poisson, 0.01, up, 500)};
  EXPECT_EQ(lower.compose(mixed)->epsilon(1e-6), lower.compose(one_up)->epsilon(1e-6));
  EXPECT_LE(lower.compose(mixed)->epsilon(1e-6), upper.compose(mixed)->epsilon(1e-6));
}

}  // namespace
}  // namespace dpmcmc

namespace dpmcmc {
namespace {

// The accountant's cached powers give bit for bit what a fresh accountant and self_compose give,
// whatever it composed before (a plan evaluates many counts on one instance).
TEST(NumericalPld, CachedPowersAreBitIdenticalWhateverTheHistory) {
  const NumericalPldAccountant used(PldRounding::pessimistic);
  for (const std::uint64_t k : {8u, 300u, 7u}) {
    (void)used.compose(
        std::vector<PrivacyEvent>{subsampled_event(Sampling::poisson, 0.01, 1.5, k)});
  }
  const NumericalPldAccountant fresh(PldRounding::pessimistic);
  const std::vector<PrivacyEvent> five{subsampled_event(Sampling::poisson, 0.01, 1.5, 5)};
  const auto a = used.compose_pld(five);
  const auto b = fresh.compose_pld(five);
  const NumericalPldOptions options;
  const DiscretePld single =
      subsampled_gaussian_pld(0.01, rounded_multiplier(1.5, BoundKind::upper_bound),
                              PldDirection::remove, PldRounding::pessimistic, options);
  const DiscretePld direct = self_compose(single, 5, options);
  ASSERT_EQ(a->directions().front().pmf, b->directions().front().pmf);
  EXPECT_EQ(a->directions().front().pmf, direct.pmf);
  EXPECT_EQ(a->directions().front().min_index, direct.min_index);
  EXPECT_EQ(a->directions().front().roundoff_mass, direct.roundoff_mass);
  EXPECT_EQ(a->epsilon(1e-6), b->epsilon(1e-6));
}

}  // namespace
}  // namespace dpmcmc
