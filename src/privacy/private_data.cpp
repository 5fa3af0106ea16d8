#include "privacy/private_data.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/state_json.hpp"
#include "models/checks.hpp"
#include "models/clipped_rows.hpp"
#include "models/expfam_model.hpp"
#include "privacy/event_json.hpp"
#include "privacy/grid_noise.hpp"
#include "privacy/minibatch_templates.hpp"

namespace dpmcmc {

namespace {

// Every full-data or batch sum of a release runs over blocks of this many rows, each block summed
// on its own and added once to the total: release_sum_float_error bounds its rounding error.
constexpr std::size_t kBlockRows = kClipBlockRows;

void require_positive(double value, const char* what, const std::string& label) {
  if (!(value > 0.0) || !std::isfinite(value)) {
    throw ConfigError(
        fmt::format("release '{}': {} must be finite and > 0, got {}", label, what, value));
  }
}

}  // namespace

PrivateData::PrivateData(const Model& model, const Dataset& data, NoiseRng noise, EventLog& log,
                         ReleaseAllowance allowance)
    : model_(model),
      data_(data),
      noise_(std::move(noise)),
      log_(log),
      allowance_(std::move(allowance)) {
  model_checks::dataset(model.name(), static_cast<Eigen::Index>(model.data_columns().size()),
                        data.x.cols());
  if (data.rows() == 0) {
    throw DataError(fmt::format("private data{}: the dataset has no rows",
                                data.source.empty() ? "" : " '" + data.source + "'"));
  }
  const auto b = static_cast<Eigen::Index>(std::min(kBlockRows, data.rows()));
  scratch_.resize(b);
  grad_scratch_.resize(b, model.dim());
  norm_scratch_.resize(b);
  gather_.resize(b, data.x.cols());
}

std::size_t PrivateData::rows() const {
  return declared_rows_.value_or(data_.rows());
}

double PrivateData::temperature() const {
  return model_.temperature();
}

std::uint64_t PrivateData::remaining(ReleaseKind kind) const {
  return allowance_.remaining(kind);
}

PrivacyEvent PrivateData::calibrate(ReleaseKind kind, double sensitivity, double noise_multiplier,
                                    Sampling sampling, double rate, Neighbouring relation) const {
  PrivacyEvent e;
  e.kind = kind;
  e.mechanism = sampling == Sampling::none ? Mechanism::gaussian : Mechanism::subsampled_gaussian;
  e.sensitivity = sensitivity;
  e.noise_sd = noise_multiplier * sensitivity;
  e.sampling = sampling;
  e.sampling_rate = rate;
  e.relation = relation;
  e.count = 1;
  if (!(e.sensitivity > 0.0) || !std::isfinite(e.noise_sd)) {
    throw ConfigError(
        fmt::format("release '{}': sensitivity {} and noise sd {}·{} must be finite "
                    "and > 0",
                    release_kind_name(kind), sensitivity, noise_multiplier, sensitivity));
  }
  allowance_.check(e);
  return e;
}

void PrivateData::record(const PrivacyEvent& e) {
  allowance_.use(e);
  log_.append(e);
  ++releases_;
}

PrivateData::GridPlan PrivateData::discretise(const PrivacyEvent& nominal, double noise_multiplier,
                                              std::size_t coordinates, double float_error) const {
  const GridNoise noise =
      calibrate_grid_noise(noise_multiplier, nominal.sensitivity, coordinates, float_error);
  PrivacyEvent recorded = nominal;
  recorded.sensitivity = noise.sensitivity;
  recorded.noise_sd = noise.noise_sd();
  return GridPlan{nominal, recorded, noise,
                  DiscreteGaussian(DiscreteGaussianScale::integer(noise.scale))};
}

double PrivateData::noisy(double value, const GridPlan& plan) {
  return grid_release(value, plan.noise.grid, plan.sampler, noise_);
}

void PrivateData::record(const GridPlan& plan) {
  allowance_.use(plan.nominal);
  log_.append(plan.recorded);
  ++releases_;
}

RowBlock PrivateData::gather(std::span<const std::size_t> idx) {
  // Column by column (the data are column-major), reading each column in increasing row order.
  const auto count = static_cast<Eigen::Index>(idx.size());
  for (Eigen::Index j = 0; j < data_.x.cols(); ++j) {
    const double* src = data_.x.col(j).data();
    double* dst = gather_.col(j).data();
    for (Eigen::Index k = 0; k < count; ++k) dst[k] = src[idx[static_cast<std::size_t>(k)]];
  }
  return gather_.topRows(count);
}

ScalarRelease PrivateData::llr_sum(const Vec& theta, const Vec& theta_prime, double bound,
                                   double noise_multiplier) {
  static const std::string label = "llr_sum";
  // Checks first: nothing about the data is computed for a refused or malformed request. The
  // calibration comes from public inputs only; substitute relation: one row moves the clipped
  // sum by at most 2·T·bound.
  require_positive(bound, "the clip bound", label);
  require_positive(noise_multiplier, "the noise multiplier", label);
  const double t = model_.temperature();
  const PrivacyEvent e = calibrate(ReleaseKind::llr_sum, 2.0 * t * bound, noise_multiplier);
  if (theta.size() != model_.dim() || theta_prime.size() != model_.dim()) {
    throw SoftwareError(fmt::format("release '{}': θ has {} and θ′ {} components, the model {}",
                                    label, theta.size(), theta_prime.size(), model_.dim()));
  }

  const GridPlan g = discretise(e, noise_multiplier, 1,
                                release_sum_float_error(data_.rows(), kBlockRows, t, bound));

  const ClippedLlr c = clipped_llr_sum(model_, data_, theta, theta_prime, bound, scratch_);

  ScalarRelease out;
  out.sensitivity = g.recorded.sensitivity;
  out.noise_sd = g.recorded.noise_sd;
  out.rows = c.rows;
  out.clipped = c.clipped;
  record(g);
  out.value = noisy(t * c.sum, g);
  tap(ReleaseKind::llr_sum, {&out.value, 1});
  return out;
}

VectorRelease PrivateData::grad_sum(const Vec& theta, double bound, double noise_multiplier) {
  static const std::string label = "grad_sum";
  require_positive(bound, "the clip bound", label);
  require_positive(noise_multiplier, "the noise multiplier", label);
  const double t = model_.temperature();
  // Substitute relation: one row's clipped gradient moves the sum by at most 2·T·bound.
  const PrivacyEvent e = calibrate(ReleaseKind::grad_sum, 2.0 * t * bound, noise_multiplier);
  const GridPlan g = discretise(e, noise_multiplier, static_cast<std::size_t>(model_.dim()),
                                release_sum_float_error(data_.rows(), kBlockRows, t, bound));
  if (theta.size() != model_.dim()) {
    throw SoftwareError(fmt::format("release '{}': θ has {} components, the model {}", label,
                                    theta.size(), model_.dim()));
  }

  const std::size_t n = data_.rows();
  const int d = model_.dim();
  Vec sum = Vec::Zero(d);
  std::size_t clipped = 0;
  for (std::size_t begin = 0; begin < n; begin += kBlockRows) {
    const auto count = static_cast<Eigen::Index>(std::min(kBlockRows, n - begin));
    add_clipped_grads(model_, theta, data_.block(begin, static_cast<std::size_t>(count)), bound,
                      grad_scratch_.topRows(count), norm_scratch_.head(count), sum, clipped);
  }

  VectorRelease out;
  out.sensitivity = g.recorded.sensitivity;
  out.noise_sd = g.recorded.noise_sd;
  out.rows = n;
  out.clipped = clipped;
  record(g);
  out.value.resize(d);
  for (int j = 0; j < d; ++j) out.value[j] = noisy(t * sum[j], g);
  tap(ReleaseKind::grad_sum, {out.value.data(), static_cast<std::size_t>(d)});
  return out;
}

VectorRelease PrivateData::grad_sum_batch(const Vec& theta, double bound, double noise_multiplier,
                                          const BatchSpec& batch) {
  static const std::string label = "grad_batch";
  static const std::string who = "release '" + label + "'";
  require_positive(bound, "the clip bound", label);
  require_positive(noise_multiplier, "the noise multiplier", label);
  const std::size_t n = rows();  // declared (public); the rows held may be one more or less
  validate_batch(batch, n, who);
  const double t = model_.temperature();
  const bool poisson = batch.sampling == BatchSampling::poisson;
  const std::size_t held = data_.rows();
  // Add/remove: one row more or less moves the sum by ≤ T·bound; substitute: by ≤ 2·T·bound.
  const PrivacyEvent e =
      calibrate(ReleaseKind::grad_batch, (poisson ? 1.0 : 2.0) * t * bound, noise_multiplier,
                poisson ? Sampling::poisson : Sampling::without_replacement, batch_rate(batch, n),
                poisson ? Neighbouring::add_remove : Neighbouring::substitute);
  // The summation error of the largest Poisson batch of any add/remove neighbour, n + 1 rows
  // (its size is secret; n is public), so the grid is the same on D and D′.
  const GridPlan g =
      discretise(e, noise_multiplier, static_cast<std::size_t>(model_.dim()),
                 release_sum_float_error(poisson ? n + 1 : batch.size, kBlockRows, t, bound));
  if (theta.size() != model_.dim()) {
    throw SoftwareError(fmt::format("release '{}': θ has {} components, the model {}", label,
                                    theta.size(), model_.dim()));
  }

  // The batch first, from the noise stream (it is part of the mechanism and stays secret).
  const auto idx = poisson ? batches_.poisson(held, batch_rate(batch, n), noise_)
                           : batches_.draw(batch, held, noise_);
  const int d = model_.dim();
  Vec sum = Vec::Zero(d);
  std::size_t clipped = 0;
  for (std::size_t begin = 0; begin < idx.size(); begin += kBlockRows) {
    const std::size_t count = std::min(kBlockRows, idx.size() - begin);
    const auto c = static_cast<Eigen::Index>(count);
    add_clipped_grads(model_, theta, gather(idx.subspan(begin, count)), bound,
                      grad_scratch_.topRows(c), norm_scratch_.head(c), sum, clipped);
  }

  VectorRelease out;
  out.sensitivity = g.recorded.sensitivity;
  out.noise_sd = g.recorded.noise_sd;
  out.rows = idx.size();
  out.clipped = clipped;
  record(g);
  out.value.resize(d);
  for (int j = 0; j < d; ++j) out.value[j] = noisy(t * sum[j], g);
  tap(ReleaseKind::grad_batch, {out.value.data(), static_cast<std::size_t>(d)});
  return out;
}

ScalarRelease PrivateData::llr_batch_corrected(const Vec& theta, const Vec& theta_prime,
                                               double bound, double noise_multiplier,
                                               std::size_t batch) {
  static const std::string label = "llr_batch";
  static const std::string who = "release '" + label + "'";
  require_positive(bound, "the clip bound", label);
  require_positive(noise_multiplier, "the noise multiplier", label);
  const std::size_t n = data_.rows();
  const BatchSpec spec{BatchSampling::without_replacement, batch};
  validate_batch(spec, n, who);
  if (theta.size() != model_.dim() || theta_prime.size() != model_.dim()) {
    throw SoftwareError(fmt::format("release '{}': θ has {} and θ′ {} components, the model {}",
                                    label, theta.size(), theta_prime.size(), model_.dim()));
  }
  const double t = model_.temperature();
  const double c = minibatch_penalty_sensitivity(static_cast<double>(n), t, batch, bound);
  if (!std::isfinite(c) || !std::isfinite(noise_multiplier * c)) {
    throw ConfigError(fmt::format(
        "release '{}': sensitivity c = 2aβ + 2a²(b−1)β²/b overflows (n = {}, T = {}, batch size "
        "{}, bound {})",
        label, n, t, batch, bound));
  }
  const PrivacyEvent e =
      calibrate(ReleaseKind::llr_batch, c, noise_multiplier, Sampling::without_replacement,
                static_cast<double>(batch) / static_cast<double>(n), Neighbouring::substitute);
  const GridPlan g = discretise(
      e, noise_multiplier, 1, minibatch_ratio_float_error(static_cast<double>(n), t, batch, bound));

  const auto idx = batches_.draw(spec, n, noise_);
  const auto [shift, sum, sum_sq, clipped] = clipped_ratio_moments(theta, theta_prime, bound, idx);
  const double b = static_cast<double>(batch);
  const double a = static_cast<double>(n) * t / b;
  const double total = sum + b * shift;                                    // R
  const double batch_var = a * a * std::max(0.0, sum_sq - sum * sum / b);  // σ_b²

  ScalarRelease out;
  out.sensitivity = g.recorded.sensitivity;
  out.noise_sd = g.recorded.noise_sd;
  out.rows = batch;
  out.clipped = clipped;
  record(g);
  out.value = noisy(a * total - 0.5 * batch_var, g);
  tap(ReleaseKind::llr_batch, {&out.value, 1});
  return out;
}

void PrivateData::prepare_suff_stat(const SufficientStatistic& s) {
  static const std::string label = "suff_stat";
  const int k = s.stat_dim();
  const Vec& lo = s.stat_lower();
  const Vec& hi = s.stat_upper();
  if (k <= 0 || lo.size() != k || hi.size() != k || !lo.allFinite() || !hi.allFinite() ||
      !(lo.array() < hi.array()).all()) {
    throw ConfigError(fmt::format(
        "release '{}': model '{}' declares an invalid statistic range (need {} finite bounds "
        "with lower < upper)",
        label, model_.name(), k));
  }

  // A statistic that is a model reads that model's data columns: they must be this dataset's.
  if (const auto* as_model = dynamic_cast<const Model*>(&s);
      as_model != nullptr && as_model->data_columns().size() != data_.cols()) {
    throw SoftwareError(fmt::format(
        "release '{}': statistic of model '{}' expects {} data columns, the private data has {}",
        label, as_model->name(), as_model->data_columns().size(), data_.cols()));
  }
  const auto same = [](const Vec& a, const Vec& b) { return a.size() == b.size() && a == b; };
  if (stat_source_ != &s || !same(stat_lower_, lo) || !same(stat_upper_, hi)) {
    const std::size_t n = data_.rows();
    const auto names = s.stat_names();
    Vec sum = Vec::Zero(k);
    Mat block(static_cast<Eigen::Index>(std::min(kBlockRows, n)), k);
    for (std::size_t begin = 0; begin < n; begin += kBlockRows) {
      const auto count = static_cast<Eigen::Index>(std::min(kBlockRows, n - begin));
      auto out = block.topRows(count);
      s.stat_rows(data_.block(begin, static_cast<std::size_t>(count)), out);
      for (int j = 0; j < k; ++j) {
        for (Eigen::Index i = 0; i < count; ++i) {
          const double v = out(i, j);
          if (!(v >= lo[j] && v <= hi[j])) {  // also catches NaN
            throw DataError(fmt::format(
                "private data{}: row {}: sufficient statistic '{}' of model '{}' is {} "
                "(value {}), expected {}; rows outside the declared range are refused, not "
                "clipped",
                data_.source.empty() ? "" : " '" + data_.source + "'",
                begin + static_cast<std::size_t>(i) + 1,
                static_cast<std::size_t>(j) < names.size() ? names[static_cast<std::size_t>(j)]
                                                           : std::to_string(j + 1),
                model_.name(), std::isnan(v) ? "invalid" : "out of range", v,
                s.stat_expectation(j)));
          }
        }
      }
      sum.noalias() += out.colwise().sum().transpose();
    }
    stat_source_ = &s;
    stat_lower_ = lo;
    stat_upper_ = hi;
    stat_sum_ = std::move(sum);
  }
}

VectorRelease PrivateData::suff_stat(const SufficientStatistic& s, double noise_multiplier) {
  static const std::string label = "suff_stat";
  require_positive(noise_multiplier, "the noise multiplier", label);
  // Substitute relation: one row's statistic moves within the declared box, Δ = ‖hi − lo‖₂.
  const PrivacyEvent e = calibrate(ReleaseKind::suff_stat, s.stat_sensitivity(), noise_multiplier);
  prepare_suff_stat(s);
  const int k = s.stat_dim();
  // Each row's statistic lies in the declared box: |s_j(x)| ≤ max(|lo_j|, |hi_j|).
  const double largest =
      std::max(s.stat_lower().cwiseAbs().maxCoeff(), s.stat_upper().cwiseAbs().maxCoeff());
  const GridPlan g = discretise(e, noise_multiplier, static_cast<std::size_t>(k),
                                release_sum_float_error(data_.rows(), kBlockRows, 1.0, largest));

  VectorRelease out;
  out.sensitivity = g.recorded.sensitivity;
  out.noise_sd = g.recorded.noise_sd;
  out.rows = data_.rows();
  out.clipped = 0;
  record(g);
  out.value.resize(k);
  for (int j = 0; j < k; ++j) out.value[j] = noisy(stat_sum_[j], g);
  tap(ReleaseKind::suff_stat, {out.value.data(), static_cast<std::size_t>(k)});
  return out;
}

PrivateData::RatioMoments PrivateData::clipped_ratio_moments(const Vec& theta,
                                                             const Vec& theta_prime, double bound,
                                                             std::span<const std::size_t> idx) {
  RatioMoments m;
  for (std::size_t begin = 0; begin < idx.size(); begin += kBlockRows) {
    const std::size_t count = std::min(kBlockRows, idx.size() - begin);
    const RowBlock rows = gather(idx.subspan(begin, count));
    auto r = scratch_.head(static_cast<Eigen::Index>(count));
    m.clipped += llr_rows_mapped(model_, theta, theta_prime, rows, r);
    m.clipped += static_cast<std::size_t>((r.array().abs() > bound).count());
    r = r.array().max(-bound).min(bound);
    if (begin == 0) m.shift = r[0];
    m.sum += (r.array() - m.shift).sum();
    m.sum_sq += (r.array() - m.shift).square().sum();
  }
  return m;
}

nlohmann::json PrivateData::save_state() const {
  std::vector<std::uint64_t> remaining;
  for (const auto& slot : allowance_.slots()) remaining.push_back(slot.remaining);
  return {{"noise", state::of(noise_)},
          {"releases", releases_},
          {"allowance_remaining", remaining},
          {"log", event_log_state(log_)}};
}

void PrivateData::load_state(const nlohmann::json& s) {
  const nlohmann::json& remaining = state::at(s, "allowance_remaining");
  if (!remaining.is_array() || remaining.size() != allowance_.slots().size() ||
      !std::all_of(remaining.begin(), remaining.end(),
                   [](const nlohmann::json& r) { return r.is_number_unsigned(); })) {
    throw DataError(fmt::format("checkpoint: \"allowance_remaining\" is not {} counts",
                                allowance_.slots().size()));
  }
  allowance_.set_remaining(remaining.get<std::vector<std::uint64_t>>());
  state::restore(noise_, state::at(s, "noise"));
  releases_ = state::to_count(s, "releases");
  restore_event_log(log_, state::at(s, "log"));
}

}  // namespace dpmcmc
