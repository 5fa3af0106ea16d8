// PrivateData::llr_batch_barker: the DP Barker release ([Raisa2021] Algorithm 3,
// Theorem 3.3). Its privacy analysis and event: privacy/barker_accounting.hpp; its float-safe
// noise: privacy/barker_grid.hpp.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "privacy/barker_accounting.hpp"
#include "privacy/barker_grid.hpp"
#include "privacy/grid_noise.hpp"
#include "privacy/private_data.hpp"

namespace dpmcmc {

ScalarRelease PrivateData::llr_batch_barker(const Vec& theta, const Vec& theta_prime,
                                            double noise_variance, std::size_t batch,
                                            const std::function<double(NoiseRng&)>& correction) {
  static const std::string label(release_kind_name(ReleaseKind::barker_test));
  const std::size_t n = data_.rows();
  const double t = model_.temperature();
  // Checks first: nothing about the data is computed for a refused or malformed request.
  if (!(t > 0.0 && t <= 1.0)) {
    throw ConfigError(fmt::format(
        "release '{}': the tempering T = n0/n is {}, expected 0 < T ≤ 1 (n0 ≤ n)", label, t));
  }
  const PrivacyEvent event = dp_barker_event(noise_variance, batch, n);  // validates σ², b
  allowance_.check(event);
  if (theta.size() != model_.dim() || theta_prime.size() != model_.dim()) {
    throw SoftwareError(fmt::format("release '{}': θ has {} and θ′ {} components, the model {}",
                                    label, theta.size(), theta_prime.size(), model_.dim()));
  }
  if (!correction) throw SoftwareError("release '" + label + "': no V_corr sampler given");

  const double b = static_cast<double>(batch);
  const double n0 = static_cast<double>(n) * t;  // nT
  // Theorem 3.3's clip T|r| ≤ √b/n, shrunk by the grid's 1 − ρ (barker_grid.hpp).
  const double full_bound = std::sqrt(b) / n0;
  const BarkerGrid grid = calibrate_barker_grid(
      noise_variance, batch,
      minibatch_ratio_float_error(static_cast<double>(n), t, batch, full_bound));
  const double bound = full_bound * grid.clip_factor;
  const BatchSpec spec{BatchSampling::without_replacement, batch};
  const auto idx = batches_.draw(spec, n, noise_);
  const auto [shift, sum, sum_sq, clipped] = clipped_ratio_moments(theta, theta_prime, bound, idx);
  const double a = n0 / b;  // nT/b
  const double lambda = a * (sum + b * shift);
  // σ_b² = (nT)²/b · (1/b)Σ(r − r̄)² = a²(Σ(r − s)² − (Σ(r − s))²/b).
  double batch_var = a * a * std::max(0.0, sum_sq - sum * sum / b);
  // The clip bound makes σ_b² ≤ 1 (barker_accounting.hpp); only rounding can exceed it.
  if (!(batch_var <= 1.0 + 1e-9)) {
    throw SoftwareError(
        fmt::format("release '{}': batch variance σ_b² = {} exceeds 1 despite the clip bound √b/n0",
                    label, batch_var));
  }
  batch_var = std::min(batch_var, 1.0);

  ScalarRelease out;
  out.sensitivity = event.sensitivity;
  out.noise_sd = event.noise_sd;  // σ: the total test noise, public
  out.rows = batch;
  out.clipped = clipped;
  record(event);
  const DiscreteGaussian sampler(
      DiscreteGaussianScale::integer(barker_noise_scale(grid, noise_variance - batch_var)));
  out.value = grid_release(lambda, grid.grid, sampler, noise_) + correction(noise_);
  if (!std::isfinite(out.value)) {
    throw SoftwareError(fmt::format("release '{}': non-finite value (λ = {})", label, lambda));
  }
  tap(ReleaseKind::barker_test, {&out.value, 1});
  return out;
}

}  // namespace dpmcmc
