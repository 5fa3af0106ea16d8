#include "samplers/dp_penalty_expfam.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "samplers/start_check.hpp"

namespace dpmcmc {

namespace {

const std::string kName = "dp-penalty-expfam";

MhShape expfam_shape() {
  // clip_frac__ (always 0) is kept for the penalty family's common columns.
  return {PenaltyProposal::full, {"clip_frac__", "noise_sd__"}, {"noise_sd__"}, 1};
}

}  // namespace

std::vector<PrivacyEvent> dp_penalty_expfam_template(double tau, double n, double alpha) {
  const std::string who = kName + " template";
  require_positive(tau, "τ", who);
  require_positive(n, "n", who);
  require_positive(alpha, "α", who);
  PrivacyEvent e;
  e.mechanism = Mechanism::gaussian;
  e.sensitivity = 1.0;
  e.noise_sd = tau * std::pow(n, alpha);
  require_positive(e.noise_sd, "the noise multiplier τ·n^α", who);
  e.sampling = Sampling::none;
  e.sampling_rate = 1.0;
  e.relation = Neighbouring::substitute;
  e.count = 1;
  e.kind = ReleaseKind::suff_stat;
  return {e};
}

DpPenaltyExpFamKernel::DpPenaltyExpFamKernel(const ExpFamModel& model, PrivateData& data,
                                             DpPenaltyExpFamConfig config)
    : PrivateMhKernel(model, data, {{ReleaseKind::suff_stat, 1}}, expfam_shape()),
      model_(model),
      config_(std::move(config)) {
  setup();
}

DpPenaltyExpFamKernel::DpPenaltyExpFamKernel(const ExpFamModel& model,
                                             std::unique_ptr<PrivateData> data,
                                             DpPenaltyExpFamConfig config)
    : PrivateMhKernel(model, std::move(data), {{ReleaseKind::suff_stat, 1}}, expfam_shape()),
      model_(model),
      config_(std::move(config)) {
  setup();
}

void DpPenaltyExpFamKernel::setup() {
  const std::size_t rows = data().rows();
  require_positive(config_.tau, "tau (noise multiplier τ)", kName);
  require_positive(config_.alpha, "alpha (exponent α of n in the noise)", kName);
  set_scale(config_.scale, kName + " proposal sd");
  multiplier_ = config_.tau * std::pow(static_cast<double>(rows), config_.alpha);
  if (!std::isfinite(multiplier_)) {
    throw ConfigError(fmt::format("{}: noise multiplier tau·n^alpha = {}·{}^{} overflows", kName,
                                  config_.tau, rows, config_.alpha));
  }
  // Rows outside the declared range are refused now, before the run, rather than at the first
  // release; this computes S once and releases nothing.
  data().prepare_suff_stat(model_);
}

void DpPenaltyExpFamKernel::on_init() {
  eta_ = model_.natural_parameter(position());
  log_partition_ = model_.log_partition(position());
}

AcceptDecision DpPenaltyExpFamKernel::noisy_test(const NoisyMove& move, Rng& rng,
                                                 std::span<double> columns) {
  // Algorithm 3, step 1: a fresh noisy statistic Ŝ = S + N(0, σ² I).
  const VectorRelease r = data().suff_stat(model_, multiplier_);
  // Step 2: d̂ from Ŝ, its noise sd σ_d = σ‖η(θ′) − η(θ)‖ (equation (8)), penalty test.
  eta_new_ = model_.natural_parameter(move.to);
  log_partition_new_ = model_.log_partition(move.to);
  const double n = static_cast<double>(r.rows);
  const double d_hat = (eta_new_ - eta_).dot(r.value) - n * (log_partition_new_ - log_partition_);
  const double noise_sd = r.noise_sd * (eta_new_ - eta_).norm();
  columns[1] = noise_sd;
  return penalty_accept(d_hat + move.log_prior_ratio, noise_sd, rng);
}

void DpPenaltyExpFamKernel::on_accept() {
  eta_.swap(eta_new_);
  log_partition_ = log_partition_new_;
}

}  // namespace dpmcmc
