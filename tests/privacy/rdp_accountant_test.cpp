// Tests of the RDP → (ε, δ) conversions and of the "rdp" accountant against closed forms.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/error.hpp"
#include "privacy/rdp.hpp"
#include "privacy/rdp_accountant.hpp"
#include "privacy/rdp_conversion.hpp"
#include "privacy/rdp_factory.hpp"
#include "test_events.hpp"

namespace dpmcmc {
namespace {

using test::gaussian_event;
using test::subsampled_event;

TEST(RdpConversion, FormulasAtAPoint) {
  // Hand-evaluated: α = 5, R = 0.3, δ = 1e-6.
  //   classical: 0.3 + ln(1e6)/4 = 3.7538776394910684
  //   improved:  0.3 + ln(4/5) − (ln 1e-6 + ln 5)/4 = 3.1279255226...
  const double classical = 0.3 + std::log(1e6) / 4;
  const double improved = 0.3 + std::log(0.8) - (std::log(1e-6) + std::log(5.0)) / 4;
  EXPECT_DOUBLE_EQ(rdp_to_epsilon(5, 0.3, 1e-6, RdpConversion::classical), classical);
  EXPECT_NEAR(rdp_to_epsilon(5, 0.3, 1e-6, RdpConversion::improved), improved, 1e-14);
  // The δ forms invert the ε forms.
  for (auto c : {RdpConversion::classical, RdpConversion::improved}) {
    const double eps = rdp_to_epsilon(5, 0.3, 1e-6, c);
    EXPECT_NEAR(std::exp(rdp_to_log_delta(5, 0.3, eps, c)), 1e-6, 1e-18);
  }
  // The improved conversion is never worse: ln(1 − 1/α) − ln α/(α−1) < 0.
  for (double a : {1.1, 2.0, 10.0, 500.0}) {
    EXPECT_LT(rdp_to_epsilon(a, 1.0, 1e-5, RdpConversion::improved),
              rdp_to_epsilon(a, 1.0, 1e-5, RdpConversion::classical));
  }
}

TEST(RdpConversion, ContinuousRefinementFindsTheAnalyticOptimum) {
  // For ρ-zCDP-like curves R(α) = ρα the classical conversion is minimised at
  // α* = 1 + √(ln(1/δ)/ρ) with ε* = ρ + 2√(ρ ln(1/δ)) (Bun and Steinke 2016).
  for (double rho : {0.01, 0.5, 3.0}) {
    const double delta = 1e-6;
    auto curve = [rho](double a) { return rho * a; };
    const auto orders = default_rdp_orders();
    const auto r = rdp_curve_epsilon(curve, orders, delta, RdpConversion::classical);
    const double exact = rho + 2 * std::sqrt(rho * std::log(1 / delta));
    EXPECT_NEAR(r.value, exact, 1e-9 * exact);  // Brent converges to ~1e-12 in ε
    EXPECT_NEAR(r.order, 1 + std::sqrt(std::log(1 / delta) / rho), 1e-3);
    const auto grid_only = rdp_curve_epsilon(curve, orders, delta, RdpConversion::classical, false);
    EXPECT_GE(grid_only.value, r.value);
    EXPECT_FALSE(r.at_grid_edge);
  }
}

TEST(RdpConversion, ReportsAnOptimumAtTheGridEdge) {
  // R(α) = ρα with tiny ρ: α* = 1 + √(ln(1/δ)/ρ) ≈ 3700 lies beyond the largest default order.
  const auto orders = default_rdp_orders();
  const auto r =
      rdp_curve_epsilon([](double a) { return 1e-6 * a; }, orders, 1e-6, RdpConversion::classical);
  EXPECT_TRUE(r.at_grid_edge);
  EXPECT_LE(r.order, orders.back());
}

TEST(RdpConversion, RejectsBadInput) {
  auto curve = [](double a) { return a; };
  const std::vector<double> bad{0.5, 2.0};
  EXPECT_THROW(rdp_curve_epsilon(curve, bad, 1e-5, RdpConversion::improved), ConfigError);
  const std::vector<double> empty;
  EXPECT_THROW(rdp_curve_epsilon(curve, empty, 1e-5, RdpConversion::improved), ConfigError);
  const auto orders = default_rdp_orders();
  EXPECT_THROW(rdp_curve_epsilon(curve, orders, 0.0, RdpConversion::improved), ConfigError);
  EXPECT_THROW(rdp_curve_epsilon(curve, orders, 1.0, RdpConversion::improved), ConfigError);
  EXPECT_THROW(rdp_curve_delta(curve, orders, -1.0, RdpConversion::improved), ConfigError);
  RdpOptions o;
  o.orders = {1.0};
  EXPECT_THROW(RdpAccountant{o}, ConfigError);
}

// δ(ε) of compositions of Gaussians with total μ = Σ 1/(2zᵢ²)
// ([RaisaKoskelaHonkela2021] Theorem 2.4).
double gaussian_delta(double mu, double eps) {
  return 0.5 * (std::erfc((eps - mu) / (2 * std::sqrt(mu))) -
                std::exp(eps) * std::erfc((eps + mu) / (2 * std::sqrt(mu))));
}

TEST(RdpAccountant, GaussianCompositionIsACertifiedUpperBound) {
  const RdpAccountant rdp;
  for (double sigma : {1.0, 4.0, 20.0}) {
    for (std::uint64_t k : {1u, 100u, 10000u}) {
      const std::vector<PrivacyEvent> ev{gaussian_event(sigma, k)};
      const auto p = rdp.compose(ev);
      const double mu = static_cast<double>(k) / (2 * sigma * sigma);
      for (double delta : {1e-3, 1e-6, 1e-10}) {
        const double eps = p->epsilon(delta);
        if (eps > 300) continue;  // e^ε overflows the linear-space closed form
        // The exact δ at the RDP ε must be within the budget: RDP over-estimates ε.
        EXPECT_LE(gaussian_delta(mu, eps), delta * (1 + 1e-9)) << sigma << " " << k;
      }
      // Improved conversion of a Gaussian: the tight optimum over real α of the CKS formula is
      // matched by the grid + refinement to 1e-9 (checked against a fine scan).
      double best = 1e300;
      for (double a = 1.001; a < 2000; a *= 1.0005) {
        best = std::min(best, rdp_to_epsilon(a, mu * a, 1e-6, RdpConversion::improved));
      }
      EXPECT_NEAR(p->epsilon(1e-6), best, 1e-6 * best + 1e-12);
      EXPECT_LE(p->epsilon(1e-6), best * (1 + 1e-9));
    }
  }
}

TEST(RdpAccountant, MergesIdenticalEventsAndComposesAdditively) {
  const RdpAccountant rdp;
  std::vector<PrivacyEvent> many(50, subsampled_event(Sampling::poisson, 0.01, 2.5, 1));
  const std::vector<PrivacyEvent> one{subsampled_event(Sampling::poisson, 0.01, 2.5, 50)};
  const auto a = rdp.compose_rdp(many);
  const auto b = rdp.compose_rdp(one);
  for (double order : {1.5, 2.5, 5.0, 50.0}) {
    EXPECT_DOUBLE_EQ(a->rdp(order), b->rdp(order));
    EXPECT_NEAR(b->rdp(order), 50 * rdp_poisson_subsampled_gaussian(order, 0.01, 2.5),
                1e-15 * b->rdp(order));
  }
  // Mixed Gaussian + Poisson (both add/remove): curves add.
  const std::vector<PrivacyEvent> mixed{subsampled_event(Sampling::poisson, 0.01, 2.5, 50),
                                        gaussian_event(10.0, 3)};
  EXPECT_NEAR(rdp.compose_rdp(mixed)->rdp(4.0),
              50 * rdp_poisson_subsampled_gaussian(4.0, 0.01, 2.5) + 3 * 4.0 / 200.0, 1e-15);
}

TEST(RdpAccountant, WithoutReplacementCostsAtLeastPoisson) {
  const RdpAccountant rdp;
  RdpOptions wbk_only;
  wbk_only.wor_bound = WorRdpBound::wbk_theorem9;
  const RdpAccountant wbk(wbk_only);
  for (double sigma : {0.9, 2.0}) {
    const std::vector<PrivacyEvent> poisson{subsampled_event(Sampling::poisson, 0.02, sigma, 500)};
    const std::vector<PrivacyEvent> wor{
        subsampled_event(Sampling::without_replacement, 0.02, sigma, 500)};
    const double e_poisson = rdp.compose(poisson)->epsilon(1e-5);
    const double e_wor = rdp.compose(wor)->epsilon(1e-5);
    const double e_wbk = wbk.compose(wor)->epsilon(1e-5);
    EXPECT_GE(e_wor, e_poisson);
    EXPECT_LE(e_wor, e_wbk);  // the default takes the smaller valid curve
  }
}

TEST(RdpAccountant, DeltaAndEpsilonAreConsistent) {
  const RdpAccountant rdp;
  const std::vector<PrivacyEvent> ev{subsampled_event(Sampling::poisson, 0.01, 1.0, 1000)};
  const auto p = rdp.compose(ev);
  for (double delta : {1e-4, 1e-7}) {
    const double eps = p->epsilon(delta);
    // δ(ε(δ)) ≤ δ, and not much smaller (both optimise the same family of bounds).
    EXPECT_LE(p->delta(eps), delta * (1 + 1e-6));
    EXPECT_GE(p->delta(eps), delta * 0.9);
  }
  double last = 1.0;
  for (double eps = 0.0; eps < 10; eps += 0.5) {
    EXPECT_LE(p->delta(eps), last);
    last = p->delta(eps);
  }
  // No events: no privacy loss.
  const auto none = rdp.compose(std::vector<PrivacyEvent>{});
  EXPECT_EQ(none->epsilon(1e-5), 0.0);
  EXPECT_EQ(none->delta(0.0), 0.0);
}

TEST(RdpAccountant, RejectsWhatItCannotInterpret) {
  const RdpAccountant rdp;
  PrivacyEvent approx;
  approx.mechanism = Mechanism::approximate_dp;
  approx.epsilon = 0.1;
  EXPECT_FALSE(rdp.supports(approx));
  EXPECT_THROW(rdp.compose(std::vector<PrivacyEvent>{approx}), ConfigError);
  auto wor_add_remove = subsampled_event(Sampling::without_replacement, 0.1, 1.0, 1);
  wor_add_remove.relation = Neighbouring::add_remove;
  EXPECT_FALSE(rdp.supports(wor_add_remove));
  auto g = gaussian_event(1.0, 1);
  g.relation = Neighbouring::substitute;
  const std::vector<PrivacyEvent> mixed{g, subsampled_event(Sampling::poisson, 0.1, 1.0, 1)};
  EXPECT_THROW(rdp.compose(mixed), ConfigError);
  auto bad = gaussian_event(-1.0, 1);
  EXPECT_THROW(rdp.compose(std::vector<PrivacyEvent>{bad}), ConfigError);
}

TEST(RdpFactory, ReadsRegistryOptions) {
  const auto a = make_rdp_accountant(nlohmann::json{{"rdp_orders", {2, 4, 8}},
                                                    {"rdp_conversion", "classical"},
                                                    {"rdp_refine", false},
                                                    {"pld_interval", 1e-3}});  // ignored key
  const std::vector<PrivacyEvent> ev{gaussian_event(2.0, 10)};                 // R(α) = 10α/8
  // Grid {2, 4, 8}, classical, no refinement: min over α of 1.25α + ln(1e5)/(α−1).
  double best = 1e300;
  for (double al : {2.0, 4.0, 8.0}) best = std::min(best, 1.25 * al + std::log(1e5) / (al - 1));
  EXPECT_DOUBLE_EQ(a->compose(ev)->epsilon(1e-5), best);
  EXPECT_EQ(make_rdp_accountant(nlohmann::json::object())->name(), "rdp");
  EXPECT_THROW(make_rdp_accountant(nlohmann::json{{"rdp_orders", {0.5}}}), ConfigError);
  EXPECT_THROW(make_rdp_accountant(nlohmann::json{{"rdp_conversion", "best"}}), ConfigError);
  EXPECT_THROW(make_rdp_accountant(nlohmann::json{{"rdp_refine", 1}}), ConfigError);
  EXPECT_THROW(make_rdp_accountant(nlohmann::json{{"rdp_wor_bound", "x"}}), ConfigError);
}

}  // namespace
}  // namespace dpmcmc
