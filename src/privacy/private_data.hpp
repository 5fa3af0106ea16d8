// PrivateData: the only door to private rows (docs/architecture.md). A private sampler never sees
// the dataset; it asks for *releases* — noisy, clipped sums — and each release
//   * draws its noise from the chain's privacy noise stream (ChaCha20, core/rng.hpp, keyed by the
//     secret noise key): the released sum rounded to a power-of-two grid plus an exact discrete
//     Gaussian (grid_noise.hpp; DP Barker's data-dependent variance: barker_grid.hpp), never a
//     floating-point normal,
//   * counts the rows whose contribution was clipped,
//   * appends a PrivacyEvent (mechanism, sensitivity, noise scale, relation, label) to the
//     chain's EventLog, from which the run's recorded spend is composed, and
//   * is refused (ReleaseRefused) unless the chain's allowance (release_allowance.hpp) has a
//     release of its kind left whose planned calibration — noise multiplier, sensitivity cap,
//     sampling, rate, relation, (ε, δ) — it matches; the check runs on the release's
//     calibration, built from public inputs only, before any row is read. No release beyond or
//     below the plan is possible through this API.
//
// Tempering: with a tempered likelihood p(x|θ)^T every released sum is T times the untempered
// clipped sum, and its sensitivity and noise are T times too (the noise multiplier σ/Δ is
// unchanged), so the privacy cost does not depend on T ([Raisa2021] Section 3.1
// and Theorem 4.1's setting).
//
// The number of rows n is public (the papers' substitute relation keeps n fixed).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "core/types.hpp"
#include "data/dataset.hpp"
#include "models/model.hpp"
#include "privacy/batch_sampling.hpp"
#include "privacy/data_owner.hpp"
#include "privacy/event_log.hpp"
#include "privacy/grid_noise.hpp"
#include "privacy/release_allowance.hpp"

namespace dpmcmc {

class SufficientStatistic;  // models/expfam_model.hpp
struct FastMhRequest;       // privacy/fastmh_guarantee.hpp
struct FastMhRelease;       // privacy/fastmh_guarantee.hpp
struct FastMhCache;         // private_data_fastmh.cpp

struct VectorRelease {
  Vec value;
  double noise_sd = 0.0;
  double sensitivity = 0.0;
  std::size_t rows = 0;
  std::size_t clipped = 0;
};

// The in-process data owner of a whole dataset (data_owner.hpp; ScalarRelease is defined there).
class PrivateData final : public DataOwner {
 public:
  // Keeps references to model, data and log (they must outlive this object); owns the noise
  // stream. One PrivateData per chain.
  PrivateData(const Model& model, const Dataset& data, NoiseRng noise, EventLog& log,
              ReleaseAllowance allowance);

  std::size_t rows() const override;  // n (public): the declared count, else the rows held
  // The privacy auditor's add/remove neighbours (src/audit/): D′ holds one row more or less than
  // the n the run declares, and a Poisson batch's rate q = size/n must stay the plan's public
  // constant (the accountants' mechanism includes each row of whatever dataset with probability
  // q). Only the Poisson-subsampled gradient release reads n otherwise than through the rows.
  void declare_rows(std::size_t n) { declared_rows_ = n; }

  // Sees every released (noisy) value as it leaves this object, in release order: the
  // auditor's statistics (src/audit/). Released values are what the sampler receives, so the
  // tap sees nothing the kernel does not; it never sees rows, clip counts or batch sizes.
  using ReleaseTap = std::function<void(ReleaseKind kind, std::span<const double> values)>;
  void set_release_tap(ReleaseTap tap) { tap_ = std::move(tap); }
  double temperature() const;  // T of the model
  // Releases of `kind` left (0 when the plan has none).
  std::uint64_t remaining(ReleaseKind kind) const override;
  // Releases made through this object so far (all labels).
  std::uint64_t releases() const override { return releases_; }

  // Penalty-test release ([Raisa2021] Section 3.1; [Yildirim2020]):
  //   T · Σ_i clip(log p(x_i|θ′) − log p(x_i|θ), −bound, +bound) + N(0, σ²),
  // bound > 0 (the papers use b‖θ′ − θ‖₂), sensitivity Δ = 2·T·bound under the substitute
  // relation, σ = noise_multiplier · Δ (τ n^α for DP penalty). Event label "llr_sum".
  ScalarRelease llr_sum(const Vec& theta, const Vec& theta_prime, double bound,
                        double noise_multiplier) override;

  // The noise stream's position, releases made, allowance left and the event log (checkpoints;
  // data_owner.hpp). Caches (the exact sufficient statistic, DP-Fast MH's alias table) are
  // rebuilt from the rows on demand and are not part of the state.
  nlohmann::json save_state() const override;
  void load_state(const nlohmann::json& state) override;

  // Gradient release ([Raisa2021] Algorithm 4; [RaisaKoskelaHonkela2021] Alg. 1):
  //   T · Σ_i clip₂(∇ log p(x_i|θ), bound) + N(0, σ² I),
  // clip₂ scaling a row's gradient to L2 norm ≤ bound, Δ = 2·T·bound (substitute),
  // σ = noise_multiplier · Δ. Event label "grad_sum".
  VectorRelease grad_sum(const Vec& theta, double bound, double noise_multiplier);

  // Subsampled gradient release (DP-SGLD; [RaisaKoskelaHonkela2021] and
  // [Raisa2021] Section 4 use the full-data form above):
  //   T · Σ_{i∈B} clip₂(∇ log p(x_i|θ), bound) + N(0, σ² I),  σ = noise_multiplier · Δ,
  // with the batch B drawn from the privacy noise stream (batch_sampling.hpp) and kept secret:
  //   Poisson              each row with q = size/n; add/remove relation, Δ = T·bound;
  //   without replacement  b = size rows; substitute relation, Δ = 2·T·bound.
  // Event: Mechanism::subsampled_gaussian with the matching Sampling and rate q (the accountants
  // pair Poisson with add/remove and WOR with substitute). `rows` is the size of the batch drawn
  // (random for Poisson, possibly 0: the release is then pure noise, still an event). Label
  // "grad_batch". ConfigError naming the batch size and n unless 1 ≤ size ≤ n.
  VectorRelease grad_sum_batch(const Vec& theta, double bound, double noise_multiplier,
                               const BatchSpec& batch);

  // Minibatch DP penalty release ([Raisa2021] Section 3.4, Theorem 3.5): for a
  // without-replacement batch B of b rows, r_x = clip(log p(x|θ′) − log p(x|θ), ±bound),
  // R = Σ_B r_x and a = nT/b,
  //   λ = a·R,  σ_b² = a²(Σ_B r_x² − R²/b)   (the estimated variance of λ),
  //   value = λ − σ_b²/2 + N(0, σ²),  σ = noise_multiplier · c,
  // c = minibatch_penalty_sensitivity(n, T, b, bound) = 2aβ + 2a²(b−1)β²/b (β = bound), the
  // exact supremum of |Δ(λ − σ_b²/2)| over substitute neighbours of B (derivation:
  // minibatch_templates.hpp, docs/algorithms.md). The thesis' σ² = τc² means
  // noise_multiplier = √τ. Event: subsampled_gaussian, without_replacement, substitute,
  // q = b/n, label "llr_batch". `rows` = b, `clipped` counts batch rows. ConfigError naming the
  // batch size and n unless 1 ≤ batch ≤ n.
  ScalarRelease llr_batch_corrected(const Vec& theta, const Vec& theta_prime, double bound,
                                    double noise_multiplier, std::size_t batch);

  // DP Barker release ([Raisa2021] Algorithm 3, Theorem 3.3; private_data_barker.cpp,
  // privacy/barker_accounting.hpp): for a without-replacement batch B of b rows (noise stream),
  // r_j = clip(log p(x_j|θ′) − log p(x_j|θ), ±√b/(nT)), λ = (nT/b)Σ_B r_j,
  // σ_b² = ((nT)²/b)·var_B(r) ≤ 1 (checked: SoftwareError if violated),
  //   value = λ + N(0, σ² − σ_b²) + correction(noise stream)   (correction: V_corr's sampler).
  // `noise_sd` is σ (public; σ_b² is not returned), `sensitivity` 2/√b. Event:
  // dp_barker_event(σ², b, n), label "barker_test". ConfigError as validate_barker, and for T > 1.
  ScalarRelease llr_batch_barker(const Vec& theta, const Vec& theta_prime, double noise_variance,
                                 std::size_t batch,
                                 const std::function<double(NoiseRng&)>& correction);

  // DP-Fast MH iteration ([ZhangZhang2023] Algorithm 2; private_data_fastmh.cpp,
  // privacy/fastmh_guarantee.hpp): draws B ~ Poisson(λ + C̄M) (C̄ = n·T·c̄ public), takes the
  // minibatch branch iff B < K (else, or with full_batch_only, the full batch), draws rows by
  // c_i/C̄ (alias table, cached) with a zero-energy padding row for the rest, the per-draw keeps
  // and the Gaussian noise from the noise stream, and records one approximate_dp event (label
  // "fastmh") with the branch's certified (ε, δ). DataError naming the row when some c_i > c̄.
  FastMhRelease fastmh_release(const FastMhRequest& request);

  // Noisy sufficient statistic ([Yildirim2020] Section 3.3 and Algorithm 3, step 1):
  //   S + N(0, σ² I),  S = Σ_i s(x_i) over all rows,
  // with Δ = ‖hi − lo‖₂ (stat_sensitivity(), substitute relation: one row's s(x) moves within
  // the declared box [lo, hi]) and σ = noise_multiplier · Δ. Event label "suff_stat".
  // Out-of-range rows are refused, not clipped: the first request for a statistic checks every
  // row and throws DataError naming the (1-based) row, the statistic's component, the value and
  // the expected range when some s(x_i) is outside [lo, hi] or not finite; nothing is released
  // then. Silent clipping would change the posterior the sampler targets, so the user must clean
  // or declare a wider box. `rows`/`clipped` of the result are n and 0.
  // The exact sum is computed once per statistic object (O(n k)) and kept: every later release
  // only draws fresh noise, O(k) — the per-iteration cost of Algorithm 3 does not grow with n.
  // The cache is keyed by the object's address and its declared box; a statistic must not
  // change its definition while this PrivateData lives. Untempered (s does not depend on θ).
  VectorRelease suff_stat(const SufficientStatistic& s, double noise_multiplier);
  // Computes, checks and caches S for `s` as suff_stat's first request does, releasing nothing
  // (no noise, no event, no allowance): lets a kernel refuse bad rows (DataError, as above) when
  // it is built rather than at its first transition. ConfigError for an invalid declared range.
  void prepare_suff_stat(const SufficientStatistic& s);

 private:
  // A release's calibration (the event it will record), from public inputs only: Gaussian over
  // all rows under the substitute relation, or subsampled. ReleaseRefused unless the allowance
  // admits it; ConfigError for a non-finite noise sd.
  PrivacyEvent calibrate(ReleaseKind kind, double sensitivity, double noise_multiplier,
                         Sampling sampling = Sampling::none, double rate = 1.0,
                         Neighbouring relation = Neighbouring::substitute) const;
  // Uses one release of the allowance and appends the event to the chain's log.
  void record(const PrivacyEvent& e);
  // Float-safe noise (grid_noise.hpp): a Gaussian-kind release of `coordinates` values whose
  // floating-point error is ≤ float_error each, planned as `nominal` (what the allowance
  // checks), is released on a power-of-two grid with discrete Gaussian noise and recorded as
  // `recorded`: sensitivity Δ_eff (the rounded query's), σ = s·h, so σ/Δ ≥ the nominal ratio.
  struct GridPlan {
    PrivacyEvent nominal, recorded;
    GridNoise noise;
    DiscreteGaussian sampler;
  };
  GridPlan discretise(const PrivacyEvent& nominal, double noise_multiplier, std::size_t coordinates,
                      double float_error) const;
  double noisy(double value, const GridPlan& plan);
  void record(const GridPlan& plan);
  // Copies the rows `idx` (sorted) into gather_ and returns them as a block.
  RowBlock gather(std::span<const std::size_t> idx);
  // Σ (r − shift) and Σ (r − shift)² of the clipped log-likelihood ratios r = clip(log p(x|θ′) −
  // log p(x|θ), ±bound) of the rows `idx`, about shift = the first clipped ratio (Σr² − R²/b is
  // shift-invariant, and centring avoids cancelling two large nearly equal sums), and how many
  // were clipped (NaN ratios count as 0 and as clipped: models/clipped_rows.hpp).
  struct RatioMoments {
    double shift = 0.0, sum = 0.0, sum_sq = 0.0;
    std::size_t clipped = 0;
  };
  RatioMoments clipped_ratio_moments(const Vec& theta, const Vec& theta_prime, double bound,
                                     std::span<const std::size_t> idx);

  const Model& model_;
  const Dataset& data_;
  NoiseRng noise_;
  EventLog& log_;
  ReleaseAllowance allowance_;
  std::uint64_t releases_ = 0;
  Vec scratch_;
  Mat grad_scratch_;
  Vec norm_scratch_;
  BatchDrawer batches_;
  Mat gather_;  // kBlockRows × columns: the current chunk of a batch, contiguous
  std::optional<std::size_t> declared_rows_;
  ReleaseTap tap_;
  void tap(ReleaseKind kind, std::span<const double> values) const {
    if (tap_) tap_(kind, values);
  }
  // The cached exact statistic of suff_stat and what it was computed for.
  const SufficientStatistic* stat_source_ = nullptr;
  Vec stat_lower_, stat_upper_, stat_sum_;
  // DP-Fast MH: tempered c_i, C, the alias table over c_i (built at the first request).
  std::shared_ptr<FastMhCache> fastmh_cache_;
};

}  // namespace dpmcmc
