// PrivateData::fastmh_release: everything of one DP-Fast MH iteration that touches private rows
// ([ZhangZhang2023] Algorithm 2, with the public padding of privacy/fastmh_guarantee.hpp
// and docs/dp-fast-mh.md). All randomness here — the batch size, the row draws, the per-draw
// keeps, the Gaussian noise and the free branches' decisions — comes from the noise stream.
//
// Float-safe noise (issue #23): the noisy branches release ℓ on a power-of-two grid with exact
// discrete Gaussian noise (grid_noise.hpp), calibrated for the branch's sensitivity Δ, the
// branch's multiplier ν and the summation error of ℓ: σ = s·h ≥ ν·Δ_eff, so the branch's
// (ε, δ) certificate — a function of σ/Δ only — holds for the grid release with Δ_eff (in the
// minibatch branch Δ_eff bounds one hit's effect including the one-time rounding, so k hits
// move the released integer by ≤ k·Δ_eff). The planner reserves the bridge's δ
// (run/private_plan.hpp). The free branches' accept bit is computed from the floating-point ℓ:
// its δ is evaluated at Δ + 2e (e the summation error bound) plus 2⁻⁴⁰ for the uniform's
// granularity and the rounding of log_r.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <span>
#include <vector>

#include "core/alias_table.hpp"
#include "models/ratio_bound.hpp"
#include "privacy/fastmh_guarantee.hpp"
#include "privacy/grid_noise.hpp"
#include "privacy/private_data.hpp"

namespace dpmcmc {

// The per-row bounds of the dataset, computed and checked once per PrivateData.
struct FastMhCache {
  double declared = 0.0;  // c̄ (untempered) the rows were checked against
  Vec c;                  // tempered c_i = T·(model's c_i)
  double total = 0.0;     // C = Σ c_i (tempered): private, used only inside this file
  std::optional<AliasTable> alias;
  std::vector<std::size_t> index;  // scratch: the real rows drawn
};

namespace {

// Relative slack on the per-row bound check: rounding, never a model error.
constexpr double kBoundSlack = 1e-9;
// Added to a free branch's δ: the accept bit compares a 2⁻⁵³-granular uniform with e^{log_r}
// computed in floating point, so its probability is within ~2⁻⁵⁰ of the exact one.
constexpr double kFreeDecisionSlack = 0x1.0p-40;

// Poisson(mean) on the noise stream, exact: a sum of ⌈mean/8⌉ independent Poisson(mean/m)
// variates, each by inversion (sequential search from e^{−μ}, μ ≤ 8). O(mean) work, the order of
// the B draws that follow anyway.
std::uint64_t poisson_noise(NoiseRng& rng, double mean) {
  if (mean <= 0.0) return 0;
  const double pieces = std::ceil(mean / 8.0);
  const double mu = mean / pieces;
  const double p0 = std::exp(-mu);
  std::uint64_t total = 0;
  for (double piece = 0; piece < pieces; piece += 1.0) {
    for (;;) {
      const double u = rng.uniform();
      double p = p0, cdf = p0;
      std::uint64_t k = 0;
      while (u >= cdf && p > 0.0) {
        ++k;
        p *= mu / static_cast<double>(k);
        cdf += p;
      }
      if (u < cdf) {
        total += k;
        break;
      }  // rounding left u above the last partial sum (probability ~1e-16): redraw
    }
  }
  return total;
}

void require_finite_positive(double v, const char* what) {
  if (!(v > 0.0) || !std::isfinite(v)) {
    throw ConfigError(fmt::format("release 'fastmh': {} must be finite and > 0, got {}", what, v));
  }
}

}  // namespace

FastMhRelease PrivateData::fastmh_release(const FastMhRequest& req) {
  static const std::string label(release_kind_name(ReleaseKind::fastmh));
  if (req.calibration == nullptr || req.theta == nullptr || req.theta_prime == nullptr) {
    throw SoftwareError("release 'fastmh': incomplete request (θ, θ′ or calibration missing)");
  }
  const FastMhCalibration& cal = *req.calibration;
  require_finite_positive(req.lambda, "lambda (λ)");
  require_finite_positive(req.row_bound, "the declared per-row bound c̄");
  require_finite_positive(req.distance, "M(θ, θ′)");
  if (!std::isfinite(req.log_prior_ratio)) {
    throw SoftwareError("release 'fastmh': the log prior ratio must be finite");
  }
  const std::size_t n = data_.rows();
  if (cal.n != n) {
    throw SoftwareError(fmt::format(
        "release 'fastmh': calibrated for n = {} rows, the private data has {}", cal.n, n));
  }
  const Vec& theta = *req.theta;
  const Vec& theta_prime = *req.theta_prime;
  if (theta.size() != model_.dim() || theta_prime.size() != model_.dim()) {
    throw SoftwareError(fmt::format("release '{}': θ has {} and θ′ {} components, the model {}",
                                    label, theta.size(), theta_prime.size(), model_.dim()));
  }
  // The plan must cover the costliest branch (the noisy one's (ε, δ)) before a row is read.
  PrivacyEvent e;
  e.kind = ReleaseKind::fastmh;
  e.mechanism = Mechanism::approximate_dp;
  e.epsilon = cal.epsilon;
  e.delta = cal.delta;
  e.relation = Neighbouring::substitute;
  e.sampling = Sampling::none;
  e.sampling_rate = 1.0;
  e.count = 1;
  allowance_.check(e);

  // The per-row bounds, once: refused (not clipped) when a row exceeds the declared c̄.
  if (!fastmh_cache_ || fastmh_cache_->declared != req.row_bound) {
    const auto* bound = dynamic_cast<const RatioBound*>(&model_);
    if (bound == nullptr) {
      throw ConfigError(fmt::format(
          "dp-fast-mh: model '{}' has no per-row ratio bound ([ZhangZhang2023] Assumption 1)",
          model_.name()));
    }
    auto cache = std::make_shared<FastMhCache>();
    Vec c(static_cast<Eigen::Index>(n));
    bound->row_bounds(data_.x, c);
    for (Eigen::Index i = 0; i < c.size(); ++i) {
      if (!(c(i) >= 0.0) || !(c(i) <= req.row_bound * (1.0 + kBoundSlack))) {
        throw DataError(fmt::format(
            "private data{}: row {}: per-row bound c_i = {} of model '{}' exceeds the declared "
            "bound c̄ = {} (or is invalid); rows outside the declared range are refused",
            data_.source.empty() ? "" : " '" + data_.source + "'", i + 1, c(i), model_.name(),
            req.row_bound));
      }
    }
    cache->declared = req.row_bound;
    // Capped at c̄: a row within the check's rounding slack must not exceed the bound the
    // sensitivities assume (the clip to ±c_i·M then bounds every computed term by c̄·M).
    cache->c = c.cwiseMin(req.row_bound) * model_.temperature();
    cache->total = cache->c.sum();
    if (cache->total > 0.0) {
      cache->alias.emplace(std::span<const double>(cache->c.data(), cache->c.size()));
    }
    fastmh_cache_ = std::move(cache);
  }
  FastMhCache& fc = *fastmh_cache_;

  const double t = model_.temperature();
  const double m = req.distance;
  const double cbar = t * req.row_bound;                // tempered c̄
  const double ctotal = static_cast<double>(n) * cbar;  // C̄ = n c̄ (public)

  // Rows per evaluated chunk: the size of the scratch buffers (min(4096, n)).
  const auto chunk = static_cast<std::size_t>(scratch_.size());
  FastMhRelease out;
  double ell = 0.0;          // ℓ1 or ℓ2
  double multiplier = 0.0;   // ν of the noisy branch taken
  double float_error = 0.0;  // bound on the summation error of ℓ
  double free_delta = 1.0;
  if (req.full_batch_only) {
    out.full_batch = true;
    out.batch = n;
  } else {
    out.batch = poisson_noise(noise_, req.lambda + ctotal * m);
    out.full_batch = out.batch >= cal.max_batch;
  }

  if (!out.full_batch) {
    // Minibatch branch: TunaMH on the data padded to C̄ (fastmh_guarantee.hpp).
    const double half = std::log1p(ctotal * m / req.lambda);  // L: |each term| ≤ L
    out.sensitivity = 2.0 * half;                             // Δ(ℓ1)
    // At most B < K kept terms, each clamped to [−L, L] (K: public, B: not data-dependent).
    float_error = sum_float_error(std::max<std::uint64_t>(cal.max_batch, 1), 1.0, half);
    multiplier = cal.minibatch_multiplier;
    if (req.free_branch) {
      free_delta = fastmh_free_minibatch_delta(out.sensitivity + 2.0 * float_error, cal.hit_rate,
                                               out.batch) +
                   kFreeDecisionSlack;
      out.free = free_delta <= cal.delta;
    }
    const double real = fc.total / ctotal;  // P(a draw is a real row) = C/C̄
    fc.index.clear();
    for (std::uint64_t b = 0; b < out.batch; ++b) {
      if (noise_.uniform() < real && fc.alias) fc.index.push_back(fc.alias->sample(noise_));
    }
    const double denom_keep = req.lambda + ctotal * m;
    const double denom_ratio = 2.0 * req.lambda + ctotal * m;
    for (std::size_t begin = 0; begin < fc.index.size(); begin += chunk) {
      const std::size_t count = std::min(chunk, fc.index.size() - begin);
      const RowBlock rows = gather(std::span<const std::size_t>(fc.index).subspan(begin, count));
      auto r = scratch_.head(static_cast<Eigen::Index>(count));
      model_.log_lik_ratio_rows(theta, theta_prime, rows, r);
      for (std::size_t k = 0; k < count; ++k) {
        const std::size_t i = fc.index[begin + k];
        const double ci = fc.c(static_cast<Eigen::Index>(i));
        // ΔU_i = U_i(θ′) − U_i(θ), mapped into [−c_i M, c_i M] (a NaN to 0): a row outside the
        // model's bound ([ZhangZhang2023] Assumption 1) or a broken model must not stop the run on
        // one row (models/clipped_rows.hpp, "Non-finite values").
        const double raw = -t * r(static_cast<Eigen::Index>(k));
        const double du = std::isnan(raw) ? 0.0 : std::clamp(raw, -ci * m, ci * m);
        const double keep =
            std::clamp((req.lambda + 0.5 * ctotal * (du / ci + m)) / denom_keep, 0.0, 1.0);
        if (noise_.uniform() < keep) {
          const double term = 2.0 * std::atanh(-ctotal * du / (ci * denom_ratio));
          ell += std::clamp(term, -half, half);  // within rounding of the bound already
        }
      }
    }
    out.rows_evaluated = fc.index.size();
    if (!out.free) {
      if (cal.max_batch == 1) {
        out.epsilon = 0.0;  // B = 0 always: no row was read
        out.delta = 0.0;
      } else {
        out.epsilon = cal.epsilon;
        out.delta = cal.delta;
      }
    }
  } else {
    // Full-batch branch: standard MH, ℓ2 = Σ_i (U_i(θ) − U_i(θ′)).
    out.sensitivity = 2.0 * cbar * m;  // Δ(ℓ2)
    float_error = sum_float_error(n, 1.0, cbar * m);
    multiplier = cal.fullbatch_multiplier;
    if (req.free_branch) {
      free_delta =
          fastmh_free_fullbatch_delta(out.sensitivity + 2.0 * float_error) + kFreeDecisionSlack;
      out.free = free_delta <= cal.delta;
    }
    for (std::size_t begin = 0; begin < n; begin += chunk) {
      const std::size_t count = std::min(chunk, n - begin);
      auto r = scratch_.head(static_cast<Eigen::Index>(count));
      model_.log_lik_ratio_rows(theta, theta_prime, data_.block(begin, count), r);
      const auto c =
          fc.c.segment(static_cast<Eigen::Index>(begin), static_cast<Eigen::Index>(count));
      // Clipped to ±c_i M below (a NaN counts as 0), as in the minibatch branch.
      const auto d = r.array().isNaN().select(0.0, t * r.array()).eval();
      ell += d.max(-(c.array() * m)).min(c.array() * m).sum();
    }
    out.rows_evaluated = n;
    if (!out.free) {
      out.epsilon = cal.epsilon;
      out.delta = cal.delta;
    }
  }

  if (out.free) {
    out.epsilon = 0.0;
    out.delta = free_delta;
  }
  // The event: what this iteration's branch certifies (at most the noisy branch's (ε, δ)).
  e.epsilon = out.epsilon;
  e.delta = out.delta;
  record(e);

  if (out.free) {
    // The decision is the mechanism: its uniform must stay secret (noise stream).
    const double log_r = ell + req.log_prior_ratio;
    out.accept = log_r >= 0.0 || std::log(noise_.uniform_pos()) < log_r;
    out.value = 0.0;
  } else if (multiplier == 0.0) {
    out.value = ell;  // K = 1: B = 0 always, no row was read (ℓ = 0) and nothing is hidden
  } else {
    const GridNoise g = calibrate_grid_noise(multiplier, out.sensitivity, 1, float_error);
    const DiscreteGaussian sampler(DiscreteGaussianScale::integer(g.scale));
    out.noise_sd = g.noise_sd();
    const double sd = out.noise_sd;
    out.value = grid_release(ell, g.grid, sampler, noise_) - 0.5 * sd * sd;
  }
  // The released test value, and the free branch's decision (the mechanism's output there).
  const std::array<double, 2> released = {out.value, out.accept ? 1.0 : 0.0};
  tap(ReleaseKind::fastmh, released);
  return out;
}

}  // namespace dpmcmc
