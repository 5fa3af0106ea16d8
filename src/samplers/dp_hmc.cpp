#include "samplers/dp_hmc.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "core/state_json.hpp"
#include "samplers/dp_penalty.hpp"
#include "samplers/start_check.hpp"

namespace dpmcmc {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr const char* kWho = "dp-hmc";

void require_positive(double value, const char* what) {
  if (!(value > 0.0) || !std::isfinite(value)) {
    throw ConfigError(fmt::format("{}: {} must be finite and > 0, got {}", kWho, what, value));
  }
}

// The most releases of each label one iteration makes: L + 1 gradients, 1 ratio
// ([Raisa2021] proof of Theorem 4.2; dp_hmc_template).
ReleaseCounts per_iteration(const DpHmcConfig& c) {
  return {{ReleaseKind::grad_sum, static_cast<std::uint64_t>(std::max(c.steps, 0)) + 1},
          {ReleaseKind::llr_sum, 1}};
}

double fraction(std::size_t clipped, std::size_t rows) {
  return rows == 0 ? 0.0 : static_cast<double>(clipped) / static_cast<double>(rows);
}

}  // namespace

// --- PrivateDpHmcData ------------------------------------------------------------------------

PrivateDpHmcData::PrivateDpHmcData(PrivateData& data, const DpHmcConfig& config)
    : data_(data),
      clip_g_(config.clip_g),
      clip_l_(config.clip_l),
      mult_g_(config.tau_g * std::sqrt(static_cast<double>(data.rows()))),
      mult_l_(config.tau_l * std::sqrt(static_cast<double>(data.rows()))) {}

ReleaseStats PrivateDpHmcData::grad_sum(const Vec& theta, Vec& out) {
  const VectorRelease r = data_.grad_sum(theta, clip_g_, mult_g_);
  out = r.value;
  return {r.noise_sd, r.rows, r.clipped};
}

ReleaseStats PrivateDpHmcData::llr_sum(const Vec& theta, const Vec& theta_prime, double& value) {
  const ScalarRelease r =
      data_.llr_sum(theta, theta_prime, clip_l_ * (theta_prime - theta).norm(), mult_l_);
  value = r.value;
  return {r.noise_sd, r.rows, r.clipped};
}

// --- The trajectory ---------------------------------------------------------------------------

LeapfrogResult dp_leapfrog(const Model& model, DpHmcData& data, Vec& theta, Vec& p, Vec& grad,
                           const Vec& inv_mass, double step, int steps, TrajectoryStats& stats) {
  const auto record = [&stats](const ReleaseStats& r) {
    ++stats.releases;
    stats.rows += r.rows;
    stats.clipped += r.clipped;
    stats.noise_sd = r.noise_sd;
  };
  // G_0 at the current position: a fresh release every iteration (file comment of dp_hmc.hpp).
  // A failure here is the model's (the position is the chain's state) and propagates.
  Vec prior_grad(theta.size());
  record(data.grad_sum(theta, grad));
  model.grad_log_prior(theta, prior_grad);
  grad += prior_grad;
  if (!grad.allFinite()) {
    LeapfrogResult r;
    r.finite = false;
    return r;
  }
  // G_j at each new position θ_j, j = 1 … L. Positions that are not finite release nothing.
  const auto gradient = [&](const Vec& at, Vec& g) -> double {
    if (!at.allFinite()) {
      g.setConstant(kNaN);
      return kNaN;
    }
    // A non-finite per-row gradient (at an overflowing position of a diverging trajectory) is
    // mapped into the clip ball inside the release (models/clipped_rows.hpp): the private rows
    // never decide outside a release whether the trajectory goes on.
    record(data.grad_sum(at, g));
    model.grad_log_prior(at, prior_grad);
    g += prior_grad;
    return kNaN;
  };
  return leapfrog(theta, p, grad, inv_mass, step, steps, gradient);
}

// --- DpHmcSampler -----------------------------------------------------------------------------

DpHmcSampler::DpHmcSampler(const Model& model, DpHmcConfig config)
    : model_(model), config_(std::move(config)), dim_(model.dim()) {
  require_positive(config_.tau_l, "tau_l (log-likelihood-ratio noise parameter τ_l)");
  require_positive(config_.tau_g, "tau_g (gradient noise parameter τ_g)");
  require_positive(config_.clip_l,
                   "clip_l (bound b_l on each row's log-likelihood ratio per unit step)");
  require_positive(config_.clip_g, "clip_g (bound b_g on the L2 norm of each row's gradient)");
  require_positive(config_.step_size, "step_size (leapfrog step size η)");
  if (config_.steps < 1) {
    throw ConfigError(fmt::format("{}: steps (leapfrog steps L) must be an integer >= 1, got {}",
                                  kWho, config_.steps));
  }
  config_.mass = broadcast_positive(config_.mass, dim_, "dp-hmc mass (diagonal of M)");
  inv_mass_ = config_.mass.cwiseInverse();
  sqrt_mass_ = config_.mass.cwiseSqrt();
  theta_ = grad_ = p_ = theta_new_ = p_new_ = Vec::Zero(dim_);
}

void DpHmcSampler::set_tuning(const Tuning& tuning) {
  tuned_scale(tuning, dim_, "dp-hmc");  // checks it
  config_.step_size = tuning.step;
  inv_mass_ = tuning.metric;
  config_.mass = inv_mass_.cwiseInverse();
  sqrt_mass_ = config_.mass.cwiseSqrt();
}

void DpHmcSampler::init(const Vec& theta0) {
  check_start(theta0, dim_, kWho);
  const double lp = model_.log_prior(theta0);
  if (!std::isfinite(lp)) {
    throw ConfigError(fmt::format(
        "{}: log prior density at the starting point is {}, expected a finite value", kWho, lp));
  }
  theta_ = theta0;
  log_prior_ = lp;
  halton_.reset();
  iteration_ = 0;
  initialised_ = true;
}

TransitionInfo DpHmcSampler::transition(Rng& rng, DpHmcData& data, DpHmcStepInfo& out) {
  if (!initialised_) throw SoftwareError("dp-hmc: transition() before init()");
  out = DpHmcStepInfo{};
  // 1. η_i (algorithm stream first, exactly as HmcKernel).
  const double step =
      jittered_step_size(config_.step_size, config_.jitter, halton_, iteration_, rng);
  ++iteration_;
  out.step_size = step;

  // 3. p_0 ~ N(0, M). (The release G_0 of step 2 uses only the noise stream, so drawing p_0 first
  // changes nothing in distribution and keeps the algorithm stream in HmcKernel's order.)
  draw_momentum(p_, sqrt_mass_, rng);
  const double kinetic0 = kinetic_energy(p_, inv_mass_);
  theta_new_ = theta_;
  p_new_ = p_;
  // 2 and 4. G_0 … G_L and the leapfrog trajectory.
  TrajectoryStats ts;
  const LeapfrogResult lf =
      dp_leapfrog(model_, data, theta_new_, p_new_, grad_, inv_mass_, step, config_.steps, ts);
  out.grad_releases = ts.releases;
  out.grad_rows = ts.rows;
  out.grad_clipped = ts.clipped;
  out.grad_noise_sd = ts.noise_sd;
  const double kinetic1 = kinetic_energy(p_new_, inv_mass_);

  TransitionInfo info;
  info.log_density = kNaN;
  if (!lf.finite || !std::isfinite(kinetic1)) {
    out.divergent = true;  // rejected; no uniform drawn (as HmcKernel)
    return info;
  }
  // 5. The penalty test on ΔH.
  const double lp_new = model_.log_prior(theta_new_);
  AcceptDecision d;
  if (std::isnan(lp_new) || lp_new == -kInf) {
    d = penalty_accept(-kInf, 0.0, rng);  // outside the public prior: no release, rejected
  } else if (const double dist = (theta_new_ - theta_).norm(); dist == 0.0) {
    // θ′ = θ (or closer than 1e-154 in every component): the data term is 0, nothing to release.
    d = penalty_accept(kinetic0 - kinetic1, 0.0, rng);
  } else if (!std::isfinite(config_.clip_l * dist)) {
    // The clip bound b_l‖θ′ − θ‖ overflows: θ′ is finite but astronomically far, a diverged
    // trajectory. Rejected without a release (and without a uniform, as a non-finite one).
    out.divergent = true;
    return info;
  } else {
    double llr = 0.0;
    const ReleaseStats r = data.llr_sum(theta_, theta_new_, llr);
    out.llr_released = true;
    out.llr_rows = r.rows;
    out.llr_clipped = r.clipped;
    out.llr_noise_sd = r.noise_sd;
    d = penalty_accept(llr + (kinetic0 - kinetic1) + (lp_new - log_prior_), r.noise_sd, rng);
  }
  info.accept_stat = d.accept_stat;
  if (d.accept) {
    theta_.swap(theta_new_);
    log_prior_ = lp_new;
    info.accepted = true;
  }
  return info;
}

// --- DpHmcKernel ------------------------------------------------------------------------------

DpHmcKernel::DpHmcKernel(const Model& model, PrivateData& data, DpHmcConfig config)
    : PrivateKernel(data, per_iteration(config)),
      sampler_(model, std::move(config)),
      source_(this->data(), sampler_.config()) {}

DpHmcKernel::DpHmcKernel(const Model& model, std::unique_ptr<PrivateData> data, DpHmcConfig config)
    : PrivateKernel(std::move(data), per_iteration(config)),
      sampler_(model, std::move(config)),
      source_(this->data(), sampler_.config()) {}

std::vector<std::string> DpHmcKernel::extra_columns() const {
  return {"grad_clip_frac__", "llr_clip_frac__", "noise_sd_grad__",
          "noise_sd_llr__",   "stepsize__",      "eps_spent__"};
}

// Clip counts stay with the curator.
std::vector<std::string> DpHmcKernel::publishable_columns() const {
  return {"noise_sd_grad__", "noise_sd_llr__", "stepsize__", "eps_spent__"};
}

TransitionInfo DpHmcKernel::transition(Rng& rng, std::span<double> extras) {
  if (extras.size() < 6) throw SoftwareError("dp-hmc: fewer than 6 extra columns given");
  // Never start an iteration whose releases the allowance cannot cover: nothing of it is
  // released then (the runner asks exhausted() first and never gets here).
  if (exhausted()) {
    throw BudgetExhausted(
        "dp-hmc: the chain's release allowance cannot cover another iteration (L + 1 gradient "
        "and 1 log-likelihood-ratio releases)");
  }
  DpHmcStepInfo s;
  const TransitionInfo info = sampler_.transition(rng, source_, s);
  extras[0] = fraction(s.grad_clipped, s.grad_rows);
  extras[1] = fraction(s.llr_clipped, s.llr_rows);
  extras[2] = s.grad_noise_sd;
  extras[3] = s.llr_noise_sd;
  extras[4] = s.step_size;
  extras[5] = spent();
  return info;
}

nlohmann::json DpHmcSampler::save_state() const {
  return {{"log_prior", state::of(log_prior_)},
          {"iteration", iteration_},
          {"halton", halton_state(halton_)}};
}

void DpHmcSampler::load_state(const nlohmann::json& s) {
  log_prior_ = state::to_double(s, "log_prior");
  iteration_ = state::to_count(s, "iteration");
  restore_halton(halton_, state::at(s, "halton"));
}

nlohmann::json DpHmcKernel::save_state() const {
  nlohmann::json s = PrivateKernel::save_state();
  s["sampler"] = sampler_.save_state();
  return s;
}

void DpHmcKernel::load_state(const nlohmann::json& s) {
  PrivateKernel::load_state(s);
  sampler_.load_state(state::at(s, "sampler"));
}

}  // namespace dpmcmc
