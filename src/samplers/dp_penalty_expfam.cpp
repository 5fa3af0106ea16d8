#include "samplers/dp_penalty_expfam.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "samplers/start_check.hpp"

namespace dpmcmc {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
const std::string kName = "dp-penalty-expfam";

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
    : PrivateKernel(data, {{ReleaseKind::suff_stat, 1}}),
      model_(model),
      config_(std::move(config)) {
  setup();
}

DpPenaltyExpFamKernel::DpPenaltyExpFamKernel(const ExpFamModel& model,
                                             std::unique_ptr<PrivateData> data,
                                             DpPenaltyExpFamConfig config)
    : PrivateKernel(std::move(data), {{ReleaseKind::suff_stat, 1}}),
      model_(model),
      config_(std::move(config)) {
  setup();
}

void DpPenaltyExpFamKernel::setup() {
  dim_ = model_.dim();
  const std::size_t rows = data().rows();
  require_positive(config_.tau, "tau (noise multiplier τ)", kName);
  require_positive(config_.alpha, "alpha (exponent α of n in the noise)", kName);
  scale_ = broadcast_positive(config_.scale, dim_, kName + " proposal sd");
  multiplier_ = config_.tau * std::pow(static_cast<double>(rows), config_.alpha);
  if (!std::isfinite(multiplier_)) {
    throw ConfigError(fmt::format("{}: noise multiplier tau·n^alpha = {}·{}^{} overflows", kName,
                                  config_.tau, rows, config_.alpha));
  }
  theta_ = Vec::Zero(dim_);
  proposal_ = Vec::Zero(dim_);
  // Rows outside the declared range are refused now, before the run, rather than at the first
  // release; this computes S once and releases nothing.
  data().prepare_suff_stat(model_);
}

std::vector<std::string> DpPenaltyExpFamKernel::extra_columns() const {
  return {"clip_frac__", "noise_sd__", "eps_spent__"};
}

// Clip counts stay with the curator.
std::vector<std::string> DpPenaltyExpFamKernel::publishable_columns() const {
  return {"noise_sd__", "eps_spent__"};
}

void DpPenaltyExpFamKernel::init(const Vec& theta0) {
  log_prior_ = start_log_prior(model_, theta0, dim_, kName);
  theta_ = theta0;
  eta_ = model_.natural_parameter(theta_);
  log_partition_ = model_.log_partition(theta_);
  initialised_ = true;
}

TransitionInfo DpPenaltyExpFamKernel::transition(Rng& rng, std::span<double> extras) {
  if (!initialised_) throw SoftwareError(kName + ": transition() before init()");
  if (extras.size() < 3) throw SoftwareError(kName + ": fewer than 3 extra columns given");

  // Proposal θ′ = θ + s ⊙ z (algorithm stream).
  proposal_ = theta_;
  for (int i = 0; i < dim_; ++i) proposal_[i] += scale_[i] * rng.normal();

  TransitionInfo info;
  info.log_density = kNaN;
  double noise_sd = 0.0;
  const double lp_new = proposal_.allFinite() ? model_.log_prior(proposal_) : -kInf;
  AcceptDecision d;
  Vec eta_new;
  double a_new = log_partition_;
  if (std::isnan(lp_new) || lp_new == -kInf) {
    d = {false, 0.0};   // outside the public prior's support: rejected without a release
    rng.uniform_pos();  // keep the stream position independent of the branch
  } else if (proposal_ == theta_) {
    d = {true, 1.0};  // θ′ = θ: nothing to test, nothing to release
    rng.uniform_pos();
  } else {
    // Algorithm 3, step 1: a fresh noisy statistic Ŝ = S + N(0, σ² I).
    const VectorRelease r = data().suff_stat(model_, multiplier_);
    // Step 2: d̂ from Ŝ, its noise sd σ_d = σ‖η(θ′) − η(θ)‖ (equation (8)), penalty test.
    eta_new = model_.natural_parameter(proposal_);
    a_new = model_.log_partition(proposal_);
    const double n = static_cast<double>(r.rows);
    const double d_hat = (eta_new - eta_).dot(r.value) - n * (a_new - log_partition_);
    noise_sd = r.noise_sd * (eta_new - eta_).norm();
    d = penalty_accept(d_hat + lp_new - log_prior_, noise_sd, rng);
  }

  info.accept_stat = d.accept_stat;
  if (d.accept) {
    if (eta_new.size() > 0) {  // a tested move (a zero step keeps η and A)
      eta_.swap(eta_new);
      log_partition_ = a_new;
    }
    theta_.swap(proposal_);
    log_prior_ = lp_new;
    info.accepted = true;
  }
  extras[0] = 0.0;
  extras[1] = noise_sd;
  extras[2] = spent();
  return info;
}

}  // namespace dpmcmc
