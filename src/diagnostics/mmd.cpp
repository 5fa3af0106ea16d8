#include "diagnostics/mmd.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/error.hpp"

namespace dpmcmc {

namespace {

void check_sample(const Eigen::Ref<const Mat>& s, const char* which) {
  if (s.rows() < 2) {
    throw DataError(fmt::format("mmd: sample {} has {} draws, need at least 2", which, s.rows()));
  }
  if (!s.allFinite()) {
    throw DataError(fmt::format("mmd: sample {} contains a non-finite value", which));
  }
}

void check_pair(const Eigen::Ref<const Mat>& x, const Eigen::Ref<const Mat>& y) {
  check_sample(x, "x");
  check_sample(y, "y");
  if (x.cols() != y.cols()) {
    throw DataError(
        fmt::format("mmd: samples have different dimensions ({} and {})", x.cols(), y.cols()));
  }
}

constexpr Eigen::Index kBlock = 256;

// Σ over i in block a, j in block b of exp(−γ‖a_i − b_j‖²), γ = 1/(2σ²), via
// ‖a‖² + ‖b‖² − 2 a·b (clamped at 0 against rounding). With `strict_upper`, a and b are the
// same block and only pairs i < j are summed.
double block_kernel_sum(const Mat& a, const Vec& a_sq, const Mat& b, const Vec& b_sq, double gamma,
                        bool strict_upper) {
  Mat d2 = -2.0 * (a * b.transpose());
  d2.colwise() += a_sq;
  d2.rowwise() += b_sq.transpose();
  const Mat k = (-gamma * d2.array().max(0.0)).exp().matrix();
  if (!strict_upper) return k.sum();
  double s = 0.0;
  for (Eigen::Index j = 1; j < k.cols(); ++j) s += k.col(j).head(j).sum();
  return s;
}

// Σ_{i<j} k(x_i, x_j) (same = true, y ignored) or Σ_{i,j} k(x_i, y_j).
double kernel_sum(const Mat& x, const Mat& y, double gamma, bool same) {
  const Vec x_sq = x.rowwise().squaredNorm();
  const Vec y_sq = y.rowwise().squaredNorm();
  double total = 0.0;
  for (Eigen::Index i = 0; i < x.rows(); i += kBlock) {
    const Eigen::Index ni = std::min(kBlock, x.rows() - i);
    const Mat a = x.middleRows(i, ni);
    const Vec a_sq = x_sq.segment(i, ni);
    for (Eigen::Index j = same ? i : 0; j < y.rows(); j += kBlock) {
      const Eigen::Index nj = std::min(kBlock, y.rows() - j);
      total += block_kernel_sum(a, a_sq, y.middleRows(j, nj), y_sq.segment(j, nj), gamma,
                                same && i == j);
    }
  }
  return total;
}

}  // namespace

double mmd2_unbiased(const Eigen::Ref<const Mat>& x, const Eigen::Ref<const Mat>& y,
                     double bandwidth) {
  check_pair(x, y);
  if (!(bandwidth > 0.0) || !std::isfinite(bandwidth)) {
    throw UsageError(fmt::format("mmd: bandwidth must be a positive number, got {}", bandwidth));
  }
  const double gamma = 1.0 / (2.0 * bandwidth * bandwidth);
  const Mat xm = x, ym = y;
  const double n = static_cast<double>(x.rows()), m = static_cast<double>(y.rows());
  const double kxx = 2.0 * kernel_sum(xm, xm, gamma, true) / (n * (n - 1.0));
  const double kyy = 2.0 * kernel_sum(ym, ym, gamma, true) / (m * (m - 1.0));
  const double kxy = kernel_sum(xm, ym, gamma, false) / (n * m);
  return kxx + kyy - 2.0 * kxy;
}

double median_heuristic_bandwidth(const Eigen::Ref<const Mat>& x, const Eigen::Ref<const Mat>& y,
                                  std::size_t subsample, Rng& rng) {
  check_pair(x, y);
  if (subsample == 0) throw UsageError("mmd: bandwidth subsample size must be at least 1");
  std::vector<double> dist(subsample);
  for (std::size_t k = 0; k < subsample; ++k) {
    const auto i = static_cast<Eigen::Index>(rng.index(static_cast<std::uint64_t>(x.rows())));
    const auto j = static_cast<Eigen::Index>(rng.index(static_cast<std::uint64_t>(y.rows())));
    dist[k] = (x.row(i) - y.row(j)).norm();
  }
  // Median: the middle order statistic, or the mean of the two middle ones for even s.
  const std::size_t mid = subsample / 2;
  std::nth_element(dist.begin(), dist.begin() + static_cast<std::ptrdiff_t>(mid), dist.end());
  double median = dist[mid];
  if (subsample % 2 == 0) {
    median = 0.5 * (median + *std::max_element(dist.begin(),
                                               dist.begin() + static_cast<std::ptrdiff_t>(mid)));
  }
  if (!(median > 0.0)) {
    throw DataError(
        "mmd: the median heuristic gave bandwidth 0 (the resampled pairs are identical points); "
        "give a bandwidth explicitly");
  }
  return median;
}

MmdResult mmd(const Eigen::Ref<const Mat>& x, const Eigen::Ref<const Mat>& y, Rng& rng,
              const MmdOptions& options) {
  if (options.bandwidth < 0.0 || !std::isfinite(options.bandwidth)) {
    throw UsageError(fmt::format(
        "mmd: bandwidth must be > 0 (or 0 for the median heuristic), got {}", options.bandwidth));
  }
  MmdResult r;
  r.bandwidth = options.bandwidth > 0.0
                    ? options.bandwidth
                    : median_heuristic_bandwidth(x, y, options.bandwidth_subsample, rng);
  r.mmd2 = mmd2_unbiased(x, y, r.bandwidth);
  r.mmd = std::sqrt(std::abs(r.mmd2));
  return r;
}

}  // namespace dpmcmc
