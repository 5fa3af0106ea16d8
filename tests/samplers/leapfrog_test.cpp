#include "samplers/leapfrog.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace dpmcmc {
namespace {

// A Gaussian log density log π(θ) = −½ θᵀPθ with precision P.
struct GaussianGradient {
  Mat precision;
  int calls = 0;
  double operator()(const Vec& theta, Vec& grad) {
    ++calls;
    grad = -precision * theta;
    return -0.5 * theta.dot(precision * theta);
  }
};

Mat correlated_precision() {
  Mat cov(2, 2);
  cov << 1.0, 0.8, 0.8, 2.0;
  return cov.inverse();
}

// 1-d harmonic oscillator U = ω²θ²/2, unit mass. One leapfrog step is the linear map
//   A = [[1 − η²ω²/2, η], [−ηω²(1 − η²ω²/4), 1 − η²ω²/2]]
// (write out p ← p − (η/2)ω²θ; θ ← θ + ηp; p ← p − (η/2)ω²θ), so L steps are A^L. The map
// conserves the shadow Hamiltonian H̃ = H − η²ω⁴θ²/8 exactly, hence the energy error of the
// trajectory is ΔH = η²ω⁴(θ_L² − θ_0²)/8: exactly O(η²).
TEST(Leapfrog, HarmonicOscillatorClosedForm) {
  const double omega = 1.3, eta = 0.05;
  const int steps = 40;
  GaussianGradient g{Mat::Constant(1, 1, omega * omega)};
  Vec theta = Vec::Constant(1, 0.7), p = Vec::Constant(1, -0.4), grad(1);
  const double theta0 = theta[0], p0 = p[0];
  g(theta, grad);
  g.calls = 0;
  const LeapfrogResult r = leapfrog(theta, p, grad, Vec::Ones(1), eta, steps, g);
  EXPECT_TRUE(r.finite);
  EXPECT_EQ(r.steps, steps);
  EXPECT_EQ(g.calls, steps);  // one gradient per position; the entry one is supplied

  Eigen::Matrix2d a;
  const double c = eta * eta * omega * omega;
  a << 1 - c / 2, eta, -eta * omega * omega * (1 - c / 4), 1 - c / 2;
  Eigen::Matrix2d power = Eigen::Matrix2d::Identity();
  for (int s = 0; s < steps; ++s) power = a * power;
  const Eigen::Vector2d expected = power * Eigen::Vector2d(theta0, p0);
  EXPECT_NEAR(theta[0], expected[0], 1e-12);
  EXPECT_NEAR(p[0], expected[1], 1e-12);
  EXPECT_NEAR(r.log_density, -0.5 * omega * omega * theta[0] * theta[0], 1e-15);

  const double h0 = 0.5 * p0 * p0 + 0.5 * omega * omega * theta0 * theta0;
  const double h1 = 0.5 * p[0] * p[0] + 0.5 * omega * omega * theta[0] * theta[0];
  const double omega4 = std::pow(omega, 4);
  EXPECT_NEAR(h1 - h0, eta * eta * omega4 * (theta[0] * theta[0] - theta0 * theta0) / 8, 1e-14);
}

// Negating the momentum and integrating again returns to the start: the leapfrog map composed
// with the momentum flip is an involution ([RaisaKoskelaHonkela2021] proof of Theorem 2.12).
TEST(Leapfrog, ReversibleWithNonUnitMass) {
  GaussianGradient g{correlated_precision()};
  Vec inv_mass(2);
  inv_mass << 1.0 / 0.5, 1.0 / 3.0;
  Vec theta(2), p(2), grad(2);
  theta << 0.3, -1.2;
  p << 0.9, 0.4;
  const Vec theta0 = theta, p0 = p;
  g(theta, grad);
  leapfrog(theta, p, grad, inv_mass, 0.1, 25, g);
  EXPECT_GT((theta - theta0).norm(), 0.1);  // it did move
  p = -p;
  leapfrog(theta, p, grad, inv_mass, 0.1, 25, g);
  EXPECT_LT((theta - theta0).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LT((p + p0).cwiseAbs().maxCoeff(), 1e-12);
  Vec grad0(2);
  g(theta0, grad0);
  EXPECT_LT((grad - grad0).cwiseAbs().maxCoeff(), 1e-12);
}

// Energy error on a correlated 2-d Gaussian with a non-unit mass, over a fixed integration time
// T = 1 from 20 random (θ, p): the summed |ΔH| scales as η² — halving η divides it by 4 up to
// the O(η⁴) next term (relative size ~η² ≈ 1e-4 here), so the ratio lies within [3.9, 4.1].
TEST(Leapfrog, EnergyErrorIsSecondOrder) {
  GaussianGradient g{correlated_precision()};
  Vec inv_mass(2);
  inv_mass << 1.0, 0.5;
  auto total_error = [&](double eta) {
    Rng rng = make_rng(5, 0);
    double sum = 0.0;
    for (int k = 0; k < 20; ++k) {
      Vec theta(2), p(2), grad(2);
      theta << rng.normal(), rng.normal();
      p << rng.normal(), rng.normal() * std::sqrt(2.0);
      const double h0 = -g(theta, grad) + kinetic_energy(p, inv_mass);
      const LeapfrogResult r =
          leapfrog(theta, p, grad, inv_mass, eta, static_cast<int>(std::lround(1.0 / eta)), g);
      sum += std::abs(-r.log_density + kinetic_energy(p, inv_mass) - h0);
    }
    return sum;
  };
  const double e1 = total_error(0.01), e2 = total_error(0.005);
  EXPECT_LT(e1 / 20, 1e-3);  // small in absolute terms too
  EXPECT_GT(e1 / e2, 3.9);
  EXPECT_LT(e1 / e2, 4.1);
}

TEST(Leapfrog, StopsOnNonFiniteGradient) {
  int calls = 0;
  auto exploding = [&calls](const Vec& theta, Vec& grad) {
    ++calls;
    grad = Vec::Constant(theta.size(), calls >= 3 ? std::numeric_limits<double>::infinity() : 1.0);
    return 0.0;
  };
  Vec theta = Vec::Zero(2), p = Vec::Zero(2), grad = Vec::Ones(2);
  const LeapfrogResult r = leapfrog(theta, p, grad, Vec::Ones(2), 0.1, 10, exploding);
  EXPECT_FALSE(r.finite);
  EXPECT_EQ(r.steps, 3);
  EXPECT_EQ(calls, 3);
}

// p ~ N(0, M) with M = diag(4, 0.25): 10^5 draws give variances with relative sd √(2/10^5) ≈
// 0.0045; band 5 sd. K(p) = ½ Σ p_j²/m_j checked on one value by hand.
TEST(Leapfrog, MomentumAndKineticEnergy) {
  Vec mass(2);
  mass << 4.0, 0.25;
  Rng rng = make_rng(8, 0);
  Vec p(2);
  double s0 = 0, s1 = 0;
  const int n = 100000;
  for (int i = 0; i < n; ++i) {
    draw_momentum(p, mass.cwiseSqrt(), rng);
    s0 += p[0] * p[0];
    s1 += p[1] * p[1];
  }
  EXPECT_NEAR(s0 / n / 4.0, 1.0, 5 * 0.0045);
  EXPECT_NEAR(s1 / n / 0.25, 1.0, 5 * 0.0045);
  Vec q(2);
  q << 2.0, 1.0;
  EXPECT_DOUBLE_EQ(kinetic_energy(q, mass.cwiseInverse()), 0.5 * (4.0 / 4.0 + 1.0 / 0.25));
}

}  // namespace
}  // namespace dpmcmc
