// Symmetric KL divergence between 2-d histograms, DP-Fast MH's accuracy metric
// ([ZhangZhang2023] Section 6.1, Figure 1(a), (c), (d), Figure 4: "symmetric KL" between
// the histogram of the chain's draws and that of the true posterior of the two-parameter Gaussian
// mixture). [ZhangZhang2023] states neither the number of bins nor the box nor what it does with
// empty bins; our choices, stated here so that values are reproducible:
//
// - Bins: `bins` × `bins` equal bins over a rectangle (default 100 per axis). Bins are half-open
//   [lo, lo + w); the upper edge of the box belongs to the last bin.
// - Box: symmetric_kl_histogram(draws, reference, bins) uses the smallest box covering both
//   samples (per axis [min, max] over the rows of both; an axis on which every value is the same
//   number v becomes [v − ½, v + ½]). Given a box, rows outside it are left out and each histogram
//   is normalised over the box (`outside` records the fraction left out).
// - Empty bins: KL(P‖Q) is +∞ as soon as Q is empty where P is not, which a finite sample almost
//   always is somewhere. Both histograms are smoothed additively before the divergence
//   (Lidstone's estimator in probability units): p̃_b = (p_b + s) / (1 + B s), B = bins², with the
//   same pseudo-mass s per bin for both, default kHistogramKlSmoothing = 1e-6. Why a mass and not
//   a pseudo-count per bin: a mass does not depend on the number of draws, so the smoothed exact
//   histogram (the reference) is the same whatever the sample size, and two runs of different
//   lengths are smoothed alike. Why 1e-6: it is below the mass 1/n of a single draw for every
//   n ≤ 10⁶ (an occupied bin's estimate changes by a relative amount of at most max(n s, B s)),
//   while it caps the contribution of a bin occupied in one histogram and empty in the other at
//   p_b log(1 + p_b / s); at B = 10⁴ bins the added mass totals 1%. Values are comparable only
//   at the same bins, s and similar sample sizes: two independent samples of the same
//   distribution do not give 0 but a positive noise floor that falls as the samples grow (with
//   n draws per sample spread over many more than n bins most occupied bins hold one draw, and
//   the divergence approaches its ceiling ≈ 2 log(1 / (n s))). Measured on the posterior of
//   mixture-fastmh-2d as it was before 2026-11-26, rows truncated to [−3, 3] (exact draws from its
//   grid reference, 100 bins, covering box): 1000 vs 1000 draws 8.3, 10⁵ vs 1000 draws 3.3, 10⁴ vs
//   10⁵ draws 0.33, 10⁵ draws vs the exact bins 0.03 — compare against many reference draws or the
//   exact bins, not against 1000 draws.
#pragma once

#include <cstddef>

#include "core/types.hpp"

namespace dpmcmc {

// Pseudo-mass added to every bin before the divergence (see above).
inline constexpr double kHistogramKlSmoothing = 1e-6;
// Largest number of bins per axis accepted (4096² bins: 134 MB per histogram).
inline constexpr int kHistogramKlMaxBins = 4096;

// The rectangle [lo1, hi1] × [lo2, hi2] of parameter space.
struct Box2d {
  double lo1 = 0.0, hi1 = 1.0, lo2 = 0.0, hi2 = 1.0;
};

// ConfigError naming `who` unless the box is finite with lo < hi on both axes.
void check_box(const Box2d& b, const char* who);

// Bin probabilities of a bins × bins histogram over a box; prob(i, j) is the bin of θ1 in
// [lo1 + i h1, lo1 + (i+1) h1) and θ2 in the j-th interval. prob sums to 1 over the box;
// `outside` is the fraction of draws (or of mass) that fell outside it and was left out.
struct Histogram2d {
  Box2d box;
  std::size_t bins = 0;
  Mat prob;
  double outside = 0.0;
};

// Histogram of the rows of draws (n × 2) over `box` with bins × bins bins. Draws outside the box
// are counted in `outside` and left out of prob. ConfigError for a bad box or bins < 1;
// DataError when draws is not n × 2 with n ≥ 1, holds a non-finite value, or no draw falls in
// the box.
Histogram2d histogram2d(const Eigen::Ref<const Mat>& draws, const Box2d& box, std::size_t bins);

// Symmetric KL divergence KL(p̃‖q̃) + KL(q̃‖p̃) = Σ_b (p̃_b − q̃_b) log(p̃_b / q̃_b) between two
// histograms on the same box and bins (ConfigError otherwise), after the additive smoothing
// above with pseudo-mass `smoothing` per bin; smoothing = 0 gives the plain divergence, +∞ when
// one histogram is empty where the other is not. smoothing must be finite and ≥ 0 (ConfigError).
double symmetric_kl(const Histogram2d& p, const Histogram2d& q,
                    double smoothing = kHistogramKlSmoothing);

// The smallest box covering the rows of both samples (see above). Same checks as
// symmetric_kl_histogram.
Box2d covering_box(const Mat& draws, const Mat& reference);

// The metric `sym_kl`: symmetric KL between the bins × bins histograms of `draws` and
// `reference` (rows = draws, 2 columns each) over the box covering both, smoothed with
// kHistogramKlSmoothing. Errors: DataError naming the argument when it is not n × 2 with n ≥ 2
// or holds a non-finite value (with its 1-based row); ConfigError when bins < 1 or
// bins > kHistogramKlMaxBins.
double symmetric_kl_histogram(const Mat& draws, const Mat& reference, int bins = 100);

// The same over a given box (ConfigError for a box that is not finite with lo < hi; DataError
// when no row of a sample lies in it).
double symmetric_kl_histogram(const Mat& draws, const Mat& reference, const Box2d& box,
                              int bins = 100);

// Draws against exact bin probabilities (e.g. GridPosterior::histogram of the exact posterior):
// the histogram of `draws` on exact's box and bins against `exact`, smoothed alike.
double symmetric_kl_histogram(const Mat& draws, const Histogram2d& exact);

}  // namespace dpmcmc
