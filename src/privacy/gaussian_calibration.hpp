// Calibrating the noise of one Gaussian mechanism (issue item 5).
//
// Classical: σ = Δ√(2 ln(1.25/δ))/ε gives (ε, δ)-DP for ε ∈ (0, 1) only (Dwork and Roth 2014,
// Theorem A.1; [Yildirim2020] Theorem 2). Outside that range the proof fails, so the
// function refuses rather than return an uncertified σ.
//
// Analytic (Balle and Wang 2018, Theorem 8): the Gaussian mechanism with noise σ is (ε, δ)-DP iff
//   δ ≥ Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ),
// which is exactly the Gaussian PLD bound with μ = Δ²/(2σ²) (gaussian_pld.hpp, s = Δ/σ), so the
// calibration solves δ(ε; μ) = δ for μ with the same log-space root finder and returns
// σ = Δ/√(2μ) rounded to the safe side. Valid for every ε ≥ 0.
#pragma once

namespace dpmcmc {

// Throws ConfigError unless Δ > 0, 0 < ε < 1 and 0 < δ < 1.
double classical_gaussian_sigma(double sensitivity, double epsilon, double delta);

// The smallest σ for which the Gaussian mechanism is (ε, δ)-DP: Δ > 0, ε ≥ 0, 0 < δ < 1.
double analytic_gaussian_sigma(double sensitivity, double epsilon, double delta);
// δ(ε) and ε(δ) of one Gaussian release with sensitivity Δ and noise σ.
double analytic_gaussian_delta(double sensitivity, double sigma, double epsilon);
double analytic_gaussian_epsilon(double sensitivity, double sigma, double delta);

}  // namespace dpmcmc
