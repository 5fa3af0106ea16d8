#include "samplers/dp_fast_mh.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <numbers>

#include <algorithm>

#include "core/error.hpp"
#include "core/state_json.hpp"
#include "models/ratio_bound.hpp"
#include "samplers/start_check.hpp"

namespace dpmcmc {

namespace {

// The batch size stays with the curator. The branch columns (full_batch__, free__, eps_iter__)
// depend only on B ~ Poisson(λ + C̄M), whose law is public (C̄ = nTc̄), never on the rows.
// One accept uniform per transition, whatever the branch.
MhShape fastmh_shape() {
  return {PenaltyProposal::full,
          {"batch_size__", "full_batch__", "free__", "eps_iter__", "noise_sd__"},
          {"full_batch__", "free__", "eps_iter__", "noise_sd__"},
          1};
}

}  // namespace

double declared_row_bound(const Model& model) {
  if (const auto* bound = dynamic_cast<const RatioBound*>(&model)) {
    if (const auto c = bound->public_row_bound()) return *c;
  }
  throw ConfigError(fmt::format(
      "dp-fast-mh: model '{}' declares no per-row bound c̄; give row_bound (a public bound on "
      "every c_i of [ZhangZhang2023] Assumption 1)",
      model.name()));
}

DpFastMhKernel::DpFastMhKernel(const Model& model, PrivateData& data, DpFastMhConfig config)
    : PrivateMhKernel(model, data, {{ReleaseKind::fastmh, 1}}, fastmh_shape()),
      config_(std::move(config)) {
  setup();
}

DpFastMhKernel::DpFastMhKernel(const Model& model, std::unique_ptr<PrivateData> data,
                               DpFastMhConfig config)
    : PrivateMhKernel(model, std::move(data), {{ReleaseKind::fastmh, 1}}, fastmh_shape()),
      config_(std::move(config)) {
  setup();
}

void DpFastMhKernel::setup() {
  const std::string who = name();
  if (!(config_.lambda > 0.0) || !std::isfinite(config_.lambda)) {
    throw ConfigError(
        fmt::format("{}: lambda (λ) must be finite and > 0, got {}", who, config_.lambda));
  }
  if (config_.max_batch < 1) {
    throw ConfigError(
        fmt::format("{}: max_batch (K, the batch-size cap) must be a whole number >= 1, got {}",
                    who, config_.max_batch));
  }
  bound_ = dynamic_cast<const RatioBound*>(&model());
  if (bound_ == nullptr) {
    throw ConfigError(fmt::format(
        "{}: model '{}' has no per-row ratio bound ([ZhangZhang2023] Assumption 1); DP-Fast MH "
        "needs one",
        who, model().name()));
  }
  row_bound_ = config_.row_bound == 0.0 ? declared_row_bound(model()) : config_.row_bound;
  if (!(row_bound_ > 0.0) || !std::isfinite(row_bound_)) {
    throw ConfigError(
        fmt::format("{}: row_bound (c̄) must be finite and > 0, got {}", who, row_bound_));
  }
  const double t = model().temperature();
  if (!(t > 0.0) || !std::isfinite(t)) {
    throw ConfigError(
        fmt::format("{}: model '{}' has temperature {}, expected (0, 1]", who, model().name(), t));
  }
  calibration_ = calibrate_fastmh(config_.epsilon, config_.delta, data().rows(), config_.max_batch);
  set_scale(config_.scale, who + " proposal scale");
}

AcceptDecision DpFastMhKernel::noisy_test(const NoisyMove& move, Rng& rng,
                                          std::span<double> columns) {
  const double u = rng.uniform_pos();  // the one uniform of every transition
  const double tau = move.log_prior_ratio;
  const double m = bound_->bound_distance(move.from, move.to);
  if (!(m >= 0.0) || !std::isfinite(m)) {
    throw SoftwareError(
        fmt::format("{}: M(θ, θ′) = {} from model '{}'", name(), m, model().name()));
  }
  if (m == 0.0) {
    // 2. |ΔU_i| ≤ c_i·0: the likelihood ratio is 1, only the public prior ratio remains.
    return {tau >= 0.0 || std::log(u) < tau, tau >= 0.0 ? 1.0 : std::exp(tau)};
  }
  // 3. The release.
  FastMhRequest req;
  req.theta = &move.from;
  req.theta_prime = &move.to;
  req.distance = m;
  req.row_bound = row_bound_;
  req.lambda = config_.lambda;
  req.full_batch_only = config_.full_batch;
  req.free_branch = config_.free_branch;
  req.log_prior_ratio = tau;
  req.calibration = &calibration_;
  const FastMhRelease r = data().fastmh_release(req);
  if (r.full_batch) {
    ++full_;
  } else {
    ++minibatch_;
    batch_total_ += r.batch;
  }
  rows_evaluated_ += r.rows_evaluated;
  columns[0] = static_cast<double>(r.batch);
  columns[1] = r.full_batch ? 1.0 : 0.0;
  columns[2] = r.free ? 1.0 : 0.0;
  columns[3] = r.epsilon;
  columns[4] = r.noise_sd;
  if (r.free) {
    ++free_;
    return {r.accept, r.accept ? 1.0 : 0.0};
  }
  // 4. The penalty-corrected noisy test (the −σ²/2 is inside the released value).
  const double log_r = r.value + tau;
  if (std::isnan(log_r)) throw SoftwareError(name() + ": the noisy log ratio is NaN");
  return {log_r >= 0.0 || std::log(u) < log_r, log_r >= 0.0 ? 1.0 : std::exp(log_r)};
}

nlohmann::json DpFastMhKernel::save_state() const {
  nlohmann::json s = PrivateMhKernel::save_state();
  s["counters"] = {minibatch_, full_, free_, batch_total_, rows_evaluated_};
  return s;
}

void DpFastMhKernel::load_state(const nlohmann::json& s) {
  PrivateMhKernel::load_state(s);
  const nlohmann::json& c = state::at(s, "counters");
  if (!c.is_array() || c.size() != 5 ||
      !std::all_of(c.begin(), c.end(),
                   [](const nlohmann::json& v) { return v.is_number_unsigned(); }))
    throw DataError("checkpoint: \"counters\" is not 5 counts");
  minibatch_ = c[0];
  full_ = c[1];
  free_ = c[2];
  batch_total_ = c[3];
  rows_evaluated_ = c[4];
}

}  // namespace dpmcmc
