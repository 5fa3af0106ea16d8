// From a Rényi-DP curve to (ε, δ)-DP: the classical conversion of Mironov 2017
// ([Raisa2021] Theorem 2.5) and the improved one of Canonne, Kamath and Steinke
// 2020 ("The Discrete Gaussian for Differential Privacy", Proposition 12), each optimised over a
// grid of orders and then refined continuously by Brent's method on the orders around the best
// grid point. Every order gives a valid bound, so the optimisation can only tighten it; a
// refinement that does not improve on the grid is discarded.
#pragma once

#include <functional>
#include <span>
#include <vector>

namespace dpmcmc {

enum class RdpConversion {
  classical,  // ε = R(α) + ln(1/δ)/(α−1)
  improved,  // ε = R(α) + ln((α−1)/α) − (ln δ + ln α)/(α−1)   (Canonne, Kamath, Steinke 2020)
};

const char* to_string(RdpConversion c);

// ε (clamped at 0) of an (α, R)-RDP mechanism for δ ∈ (0, 1); +∞ when R is infinite.
double rdp_to_epsilon(double alpha, double rdp, double delta, RdpConversion conversion);
// log δ (≤ 0) of an (α, R)-RDP mechanism at ε ≥ 0; the inverse of rdp_to_epsilon:
//   classical: ln δ = (α−1)(R − ε);
//   improved:  ln δ = (α−1)(R − ε) + (α−1) ln(α−1) − α ln α.
double rdp_to_log_delta(double alpha, double rdp, double epsilon, RdpConversion conversion);

// The default order grid: 1.01, 1.02, 1.05, 1.1, 1.25, 1.5, 1.75, 2, 2.25, 2.5, 2.75, 3, 3.5, …, 8
// (step 0.5), 9, …, 32 (step 1), 36, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 256, 320, 384,
// 512, 768, 1024. Fractional orders near 1 serve large ε (few compositions, large q); orders up to
// 1024 serve tiny δ with small noise. Between grid points the continuous refinement finds the
// optimum.
std::vector<double> default_rdp_orders();

struct RdpOptimum {
  double value = 0.0;  // ε for rdp_curve_epsilon, δ for rdp_curve_delta
  double order = 0.0;  // the α attaining it (0 when the curve is identically 0)
  // True when the best grid order was the smallest or the largest of the grid: the optimum may
  // lie outside the grid (extend it; the CLI reports this as "grid cannot reach the target").
  bool at_grid_edge = false;
};

// min over α of rdp_to_epsilon(α, curve(α), δ). `orders` must be > 1 (ConfigError otherwise);
// `refine` searches (Brent) between the grid neighbours of the best order, which requires that
// `curve` accepts real orders.
RdpOptimum rdp_curve_epsilon(const std::function<double(double)>& curve,
                             std::span<const double> orders, double delta, RdpConversion conversion,
                             bool refine = true);
// min over α of exp(rdp_to_log_delta(α, curve(α), ε)), capped at 1.
RdpOptimum rdp_curve_delta(const std::function<double(double)>& curve,
                           std::span<const double> orders, double epsilon, RdpConversion conversion,
                           bool refine = true);

}  // namespace dpmcmc
