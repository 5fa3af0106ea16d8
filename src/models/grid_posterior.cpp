#include "models/grid_posterior.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <span>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "core/numeric.hpp"
#include "models/posterior.hpp"

namespace dpmcmc {
namespace {

// overlap(b, i) = |cell_i ∩ bin_b| / |cell_i| along one axis: cells of width h from lo, bins of
// width w from blo. Row b times the cell masses gives the mass of bin b (the density is uniform
// within each cell).
Mat overlap_matrix(double lo, double h, std::size_t cells, double blo, double w, std::size_t bins) {
  Mat a = Mat::Zero(static_cast<Eigen::Index>(bins), static_cast<Eigen::Index>(cells));
  for (std::size_t i = 0; i < cells; ++i) {
    const double c0 = lo + static_cast<double>(i) * h, c1 = c0 + h;
    // Only the bins that can overlap [c0, c1).
    const double first = std::floor((c0 - blo) / w), last = std::floor((c1 - blo) / w);
    for (double fb = std::max(first, 0.0); fb <= last && fb < static_cast<double>(bins); ++fb) {
      const auto b = static_cast<std::size_t>(fb);
      const double b0 = blo + static_cast<double>(b) * w, b1 = b0 + w;
      const double len = std::min(c1, b1) - std::max(c0, b0);
      if (len > 0.0) a(static_cast<Eigen::Index>(b), static_cast<Eigen::Index>(i)) = len / h;
    }
  }
  return a;
}

}  // namespace

GridPosterior::GridPosterior(const Model& model, const Dataset& data, const Box2d& box,
                             std::size_t cells, unsigned threads)
    : box_(box), cells_(cells) {
  if (model.dim() != 2) {
    throw ConfigError(fmt::format(
        "grid posterior: model '{}' has {} parameters; the grid reference needs exactly 2",
        model.name(), model.dim()));
  }
  check_box(box, "grid posterior");
  if (cells < 2) {
    throw ConfigError(
        fmt::format("grid posterior: cells per axis must be at least 2, got {}", cells));
  }
  h1_ = (box.hi1 - box.lo1) / static_cast<double>(cells);
  h2_ = (box.hi2 - box.lo2) / static_cast<double>(cells);
  const auto n = static_cast<Eigen::Index>(cells);
  Mat lp(n, n);

  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, cells));
  // Rows of the grid (θ1 cells) are split between threads; each has its own Posterior, whose
  // scratch buffers are not shared. Exceptions are carried back to this thread.
  std::vector<std::exception_ptr> errors(threads);
  const auto work = [&](unsigned t) {
    try {
      const Posterior posterior(model, data);
      Vec theta(2);
      for (Eigen::Index i = t; i < n; i += threads) {
        theta(0) = box.lo1 + (static_cast<double>(i) + 0.5) * h1_;
        for (Eigen::Index j = 0; j < n; ++j) {
          theta(1) = box.lo2 + (static_cast<double>(j) + 0.5) * h2_;
          lp(i, j) = posterior.log_density(theta);
        }
      }
    } catch (...) {
      errors[t] = std::current_exception();
    }
  };
  if (threads == 1) {
    work(0);
  } else {
    std::vector<std::jthread> pool;
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work, t);
  }
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }

  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < n; ++j) {
      const double v = lp(i, j);
      if (std::isnan(v) || v == std::numeric_limits<double>::infinity()) {
        throw SoftwareError(
            fmt::format("grid posterior: model '{}' returned log density {} at theta = ({}, {})",
                        model.name(), v, box.lo1 + (static_cast<double>(i) + 0.5) * h1_,
                        box.lo2 + (static_cast<double>(j) + 0.5) * h2_));
      }
    }
  }
  const double lse =
      log_sum_exp(std::span<const double>(lp.data(), static_cast<std::size_t>(lp.size())));
  if (!std::isfinite(lse)) {
    throw ConfigError(
        fmt::format("grid posterior: the log density is -inf on every cell of [{}, {}] x [{}, {}]",
                    box.lo1, box.hi1, box.lo2, box.hi2));
  }
  log_normaliser_ = lse + std::log(h1_ * h2_);
  prob_ = (lp.array() - lse).exp().matrix();
  alias_.emplace(std::span<const double>(prob_.data(), static_cast<std::size_t>(prob_.size())));
}

Vec GridPosterior::mean() const {
  const auto n = static_cast<Eigen::Index>(cells_);
  const Vec c1 = Vec::LinSpaced(n, box_.lo1 + 0.5 * h1_, box_.hi1 - 0.5 * h1_);
  const Vec c2 = Vec::LinSpaced(n, box_.lo2 + 0.5 * h2_, box_.hi2 - 0.5 * h2_);
  Vec m(2);
  m(0) = prob_.rowwise().sum().dot(c1);  // marginal of θ1 (sum over θ2 cells)
  m(1) = prob_.colwise().sum().transpose().dot(c2);
  return m;
}

Mat GridPosterior::covariance() const {
  const auto n = static_cast<Eigen::Index>(cells_);
  const Vec m = mean();
  const Vec d1 = Vec::LinSpaced(n, box_.lo1 + 0.5 * h1_, box_.hi1 - 0.5 * h1_).array() - m(0);
  const Vec d2 = Vec::LinSpaced(n, box_.lo2 + 0.5 * h2_, box_.hi2 - 0.5 * h2_).array() - m(1);
  Mat c(2, 2);
  // Uniform within a cell adds h²/12 to each variance and nothing to the covariance.
  c(0, 0) = prob_.rowwise().sum().dot(d1.cwiseAbs2()) + h1_ * h1_ / 12.0;
  c(1, 1) = prob_.colwise().sum().transpose().dot(d2.cwiseAbs2()) + h2_ * h2_ / 12.0;
  c(0, 1) = c(1, 0) = d1.dot(prob_ * d2);
  return c;
}

double GridPosterior::edge_mass() const {
  const auto n = static_cast<Eigen::Index>(cells_);
  const double inner = prob_.block(1, 1, n - 2, n - 2).sum();
  return std::max(0.0, 1.0 - inner);
}

Mat GridPosterior::sample(std::size_t draws, Rng& rng) const {
  Mat out(static_cast<Eigen::Index>(draws), 2);
  const auto n = static_cast<std::size_t>(cells_);
  for (Eigen::Index r = 0; r < out.rows(); ++r) {
    const std::size_t k = alias_->sample(rng);  // column-major: k = i + n j
    const std::size_t i = k % n, j = k / n;
    out(r, 0) = box_.lo1 + (static_cast<double>(i) + rng.uniform()) * h1_;
    out(r, 1) = box_.lo2 + (static_cast<double>(j) + rng.uniform()) * h2_;
  }
  return out;
}

Histogram2d GridPosterior::histogram(const Box2d& box, std::size_t bins) const {
  check_box(box, "grid histogram");
  if (bins < 1) throw ConfigError("grid histogram: bins per axis must be at least 1, got 0");
  const double w1 = (box.hi1 - box.lo1) / static_cast<double>(bins);
  const double w2 = (box.hi2 - box.lo2) / static_cast<double>(bins);
  const Mat a1 = overlap_matrix(box_.lo1, h1_, cells_, box.lo1, w1, bins);
  const Mat a2 = overlap_matrix(box_.lo2, h2_, cells_, box.lo2, w2, bins);
  Histogram2d h;
  h.box = box;
  h.bins = bins;
  h.prob = a1 * prob_ * a2.transpose();
  const double inside = h.prob.sum();
  if (!(inside > 0.0)) {
    throw ConfigError("grid histogram: the histogram box holds none of the grid posterior's mass");
  }
  h.outside = std::max(0.0, 1.0 - inside);
  h.prob /= inside;
  return h;
}

}  // namespace dpmcmc
