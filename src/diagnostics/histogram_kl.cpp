#include "diagnostics/histogram_kl.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"

namespace dpmcmc {

void check_box(const Box2d& b, const char* who) {
  const bool ok = std::isfinite(b.lo1) && std::isfinite(b.hi1) && std::isfinite(b.lo2) &&
                  std::isfinite(b.hi2) && b.lo1 < b.hi1 && b.lo2 < b.hi2;
  if (!ok) {
    throw ConfigError(fmt::format("{}: box [{}, {}] x [{}, {}] must be finite with lo < hi", who,
                                  b.lo1, b.hi1, b.lo2, b.hi2));
  }
}

namespace {

std::size_t checked_bins(int bins) {
  if (bins < 1 || bins > kHistogramKlMaxBins) {
    throw ConfigError(
        fmt::format("symmetric KL of histograms: bins per axis must be between 1 and {}, got {}",
                    kHistogramKlMaxBins, bins));
  }
  return static_cast<std::size_t>(bins);
}

// `what` names the argument ("draws" or "reference") in the message.
void check_sample(const Mat& m, const char* what) {
  if (m.cols() != 2 || m.rows() < 2) {
    throw DataError(
        fmt::format("symmetric KL of histograms: {} must be n x 2 (rows = draws of a 2-parameter "
                    "posterior) with n >= 2, got {} x {}",
                    what, m.rows(), m.cols()));
  }
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    if (!std::isfinite(m(r, 0)) || !std::isfinite(m(r, 1))) {
      throw DataError(
          fmt::format("symmetric KL of histograms: {} row {} is ({}, {}), expected finite values",
                      what, r + 1, m(r, 0), m(r, 1)));
    }
  }
}

}  // namespace

Histogram2d histogram2d(const Eigen::Ref<const Mat>& draws, const Box2d& box, std::size_t bins) {
  check_box(box, "histogram");
  if (bins < 1) throw ConfigError("histogram: bins per axis must be at least 1, got 0");
  if (draws.cols() != 2 || draws.rows() < 1) {
    throw DataError(fmt::format("histogram: expected n x 2 draws with n >= 1, got {} x {}",
                                draws.rows(), draws.cols()));
  }
  const double w1 = (box.hi1 - box.lo1) / static_cast<double>(bins);
  const double w2 = (box.hi2 - box.lo2) / static_cast<double>(bins);
  Histogram2d h;
  h.box = box;
  h.bins = bins;
  h.prob = Mat::Zero(static_cast<Eigen::Index>(bins), static_cast<Eigen::Index>(bins));
  std::size_t inside = 0, outside = 0;
  for (Eigen::Index r = 0; r < draws.rows(); ++r) {
    const double t1 = draws(r, 0), t2 = draws(r, 1);
    if (!std::isfinite(t1) || !std::isfinite(t2)) {
      throw DataError(
          fmt::format("histogram: draw {} is ({}, {}), expected finite values", r + 1, t1, t2));
    }
    const bool in1 = t1 >= box.lo1 && t1 <= box.hi1, in2 = t2 >= box.lo2 && t2 <= box.hi2;
    if (!in1 || !in2) {
      ++outside;
      continue;
    }
    // Half-open bins [lo, hi); the upper edge of the box belongs to the last bin.
    const double f1 = std::floor((t1 - box.lo1) / w1), f2 = std::floor((t2 - box.lo2) / w2);
    const auto last = static_cast<double>(bins);
    const auto i = static_cast<Eigen::Index>(std::min(f1, last - 1.0));
    const auto j = static_cast<Eigen::Index>(std::min(f2, last - 1.0));
    h.prob(i, j) += 1.0;
    ++inside;
  }
  if (inside == 0) {
    throw DataError(
        fmt::format("histogram: none of the {} draws lies in the box [{}, {}] x [{}, {}]",
                    draws.rows(), box.lo1, box.hi1, box.lo2, box.hi2));
  }
  h.prob /= static_cast<double>(inside);
  h.outside = static_cast<double>(outside) / static_cast<double>(draws.rows());
  return h;
}

double symmetric_kl(const Histogram2d& p, const Histogram2d& q, double smoothing) {
  if (!(smoothing >= 0.0 && std::isfinite(smoothing))) {
    throw ConfigError(
        fmt::format("symmetric KL: smoothing must be finite and >= 0, got {}", smoothing));
  }
  const auto same_box = [](const Box2d& a, const Box2d& b) {
    return a.lo1 == b.lo1 && a.hi1 == b.hi1 && a.lo2 == b.lo2 && a.hi2 == b.hi2;
  };
  if (p.bins != q.bins || !same_box(p.box, q.box) || p.prob.rows() != q.prob.rows() ||
      p.prob.cols() != q.prob.cols()) {
    throw ConfigError(fmt::format(
        "symmetric KL: the histograms differ in bins ({} vs {}) or box; expected the same", p.bins,
        q.bins));
  }
  const double b = static_cast<double>(p.prob.size());
  const double norm = 1.0 + b * smoothing;
  double kl = 0.0;
  for (Eigen::Index k = 0; k < p.prob.size(); ++k) {
    const double a = (p.prob.data()[k] + smoothing) / norm;
    const double c = (q.prob.data()[k] + smoothing) / norm;
    if (a == c) continue;  // also both 0: no contribution
    if (a == 0.0 || c == 0.0) return std::numeric_limits<double>::infinity();
    kl += (a - c) * std::log(a / c);
  }
  return kl;
}

Box2d covering_box(const Mat& draws, const Mat& reference) {
  check_sample(draws, "draws");
  check_sample(reference, "reference");
  const auto axis = [&](Eigen::Index c, double& lo, double& hi) {
    lo = std::min(draws.col(c).minCoeff(), reference.col(c).minCoeff());
    hi = std::max(draws.col(c).maxCoeff(), reference.col(c).maxCoeff());
    // A constant axis (e.g. a chain that never moved, compared with itself) still needs a box of
    // positive width; the value then sits in the middle bin(s).
    if (!(lo < hi)) {
      lo -= 0.5;
      hi += 0.5;
    }
  };
  Box2d box;
  axis(0, box.lo1, box.hi1);
  axis(1, box.lo2, box.hi2);
  return box;
}

double symmetric_kl_histogram(const Mat& draws, const Mat& reference, int bins) {
  const std::size_t b = checked_bins(bins);
  const Box2d box = covering_box(draws, reference);
  return symmetric_kl(histogram2d(draws, box, b), histogram2d(reference, box, b));
}

double symmetric_kl_histogram(const Mat& draws, const Mat& reference, const Box2d& box, int bins) {
  const std::size_t b = checked_bins(bins);
  check_box(box, "symmetric KL of histograms");
  check_sample(draws, "draws");
  check_sample(reference, "reference");
  return symmetric_kl(histogram2d(draws, box, b), histogram2d(reference, box, b));
}

double symmetric_kl_histogram(const Mat& draws, const Histogram2d& exact) {
  check_sample(draws, "draws");
  if (exact.bins < 1 || exact.prob.rows() != static_cast<Eigen::Index>(exact.bins) ||
      exact.prob.cols() != static_cast<Eigen::Index>(exact.bins)) {
    throw ConfigError(
        fmt::format("symmetric KL of histograms: the exact histogram must have bins x bins "
                    "probabilities with bins >= 1, got bins = {} and a {} x {} matrix",
                    exact.bins, exact.prob.rows(), exact.prob.cols()));
  }
  return symmetric_kl(histogram2d(draws, exact.box, exact.bins), exact);
}

}  // namespace dpmcmc
