#include "audit/sampler_subject.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "privacy/accountants.hpp"
#include "privacy/owner_group.hpp"
#include "privacy/planner.hpp"
#include "run/private_plan.hpp"
#include "run/sampler_params.hpp"

namespace dpmcmc {

namespace {

// The accountants' share of δ in a run (run/private_plan.hpp).
constexpr double kAccountantShare = 1.0 - 0x1p-10;

}  // namespace

double certified_iterations_epsilon(std::span<const PrivacyEvent> per_iteration,
                                    std::uint64_t iterations, double delta) {
  const auto events = repeat_iterations(per_iteration, iterations);
  double best = std::numeric_limits<double>::infinity();
  std::vector<std::string> tried;
  for (const auto& name : accountants_supporting(events)) {
    if (make_accountant(name)->bound() != BoundKind::upper_bound) continue;
    tried.push_back(name);
    best = std::min(best, composed_epsilon(name, events, delta * kAccountantShare));
  }
  if (tried.empty()) {
    throw ConfigError("audit: no certified accountant interprets the sampler's releases");
  }
  return best;
}

nlohmann::json calibrate_privacy_knobs(const SamplerDescriptor& entry, nlohmann::json params,
                                       const Model& model, std::size_t n, std::uint64_t iterations,
                                       double epsilon, double delta) {
  if (!entry.is_private() || entry.privacy_knobs.empty()) {
    throw ConfigError(
        fmt::format("audit --epsilon: sampler '{}' has no privacy knob to calibrate", entry.name));
  }
  const nlohmann::json base = params;
  // The knobs multiplied by s (a count rounded to a whole number ≥ 1).
  const auto scaled = [&](double s) {
    nlohmann::json p = base;
    for (const auto& key : entry.privacy_knobs) {
      const double v = base.at(key).get<double>() * s;
      const bool count =
          std::any_of(param_table().begin(), param_table().end(),
                      [&](const auto& i) { return i.key == key && i.kind == ParamKind::count; });
      p[key] = count ? nlohmann::json(static_cast<std::uint64_t>(std::max(1.0, std::round(v))))
                     : nlohmann::json(v);
    }
    return p;
  };
  // ε certified with every knob multiplied by s; NaN when the setup refuses that value.
  const auto certified = [&](double s) {
    const nlohmann::json p = scaled(s);
    try {
      const auto setup = entry.build_private(entry.name, p, model, n);
      return certified_iterations_epsilon(setup.per_iteration, iterations, delta);
    } catch (const ConfigError&) {
      return std::numeric_limits<double>::quiet_NaN();
    }
  };
  const auto fail = [&](const std::string& why) {
    return ConfigError(
        fmt::format("audit --epsilon {}: cannot calibrate sampler '{}' by scaling {} ({})", epsilon,
                    entry.name, fmt::join(entry.privacy_knobs, ", "), why));
  };
  // Bracket in log₂ s: walk outwards from s = 1 both ways (ε need not be monotone over the
  // whole range: DP Barker's certificate at a fixed n has a minimum in b) until two neighbouring
  // accepted values enclose the target; the nearer bracket wins.
  // The start: s = 1, or the nearest power of two the sampler accepts (a preset's batch may
  // exceed the audit's rows).
  double x0 = 0.0, at_x0 = certified(1.0);
  for (int step = 1; step <= 40 && !std::isfinite(at_x0); ++step) {
    for (const double x : {-static_cast<double>(step), static_cast<double>(step)}) {
      const double f = certified(std::exp2(x));
      if (std::isfinite(f)) {
        x0 = x;
        at_x0 = f;
        break;
      }
    }
  }
  if (!std::isfinite(at_x0)) throw fail("no value near the preset's is accepted");
  double lo = x0, f_lo = at_x0, hi = x0;
  bool found = at_x0 == epsilon;
  std::array<double, 2> last_x = {x0, x0}, last_f = {at_x0, at_x0};
  std::array<bool, 2> open = {true, true};
  for (int step = 1; step <= 40 && !found && (open[0] || open[1]); ++step) {
    for (int side = 0; side < 2 && !found; ++side) {
      if (!open[side]) continue;
      const double x = x0 + (side == 0 ? step : -step);
      const double f = certified(std::exp2(x));
      if (!std::isfinite(f)) {
        open[side] = false;
        continue;
      }
      if ((last_f[side] - epsilon) * (f - epsilon) <= 0.0) {
        lo = last_x[side];
        f_lo = last_f[side];
        hi = x;
        found = true;
      }
      last_x[side] = x;
      last_f[side] = f;
    }
  }
  if (!found) throw fail("no accepted factor in [2^-40, 2^40] reaches it");
  // Bisection until the safe end (ε ≤ target) is within 10⁻⁴ of the target, or the bracket
  // closes (a count knob moves ε in steps).
  double f_hi = certified(std::exp2(hi));
  const auto close = [&](double f) { return f <= epsilon && f >= epsilon * (1.0 - 1e-4); };
  for (int i = 0; i < 60 && std::abs(hi - lo) > 1e-9 && !close(f_lo) && !close(f_hi); ++i) {
    const double mid = 0.5 * (lo + hi);
    const double f = certified(std::exp2(mid));
    if (!std::isfinite(f)) throw fail("the bisection met a refused value");
    if ((f - epsilon) * (f_lo - epsilon) > 0.0) {
      lo = mid;
      f_lo = f;
    } else {
      hi = mid;
      f_hi = f;
    }
  }
  return scaled(std::exp2(f_lo <= epsilon ? lo : hi));
}

SamplerSubject::SamplerSubject(const SamplerDescriptor& entry, const Preset& preset,
                               nlohmann::json params, const Dataset& base, std::uint64_t iterations,
                               std::uint64_t seed)
    : sampler_(entry.name),
      preset_(preset.name),
      params_(std::move(params)),
      model_(preset.make_model()),
      n_(base.rows()),
      iterations_(iterations),
      seed_(seed),
      start_(preset.start_centre),
      base_(base) {
  if (!entry.is_private()) {
    throw UsageError(fmt::format("audit --sampler: '{}' is not a private sampler", entry.name));
  }
  if (iterations < 1) throw UsageError("audit --iterations: expected >= 1, got 0");
  setup_ = entry.build_private(entry.name, params_, *model_, n_);
  // Shards of n + 1 rows would move every owner's boundary, so D and D′ would differ in more than
  // the canary: no sampler has several owners under add/remove, and none may until this does.
  if (setup_.owners > 1 && relation() == Neighbouring::add_remove) {
    throw ConfigError(
        fmt::format("audit: sampler '{}' splits the rows among owners under the "
                    "add/remove relation, which the auditor cannot neighbour",
                    entry.name));
  }
}

void SamplerSubject::probe() const {
  std::call_once(probed_, [this] {
    std::vector<double> values;
    run_into(base_, NoiseKey::fresh(), 0, values, &names_);
  });
}

std::vector<std::string> SamplerSubject::statistic_names() const {
  probe();
  return names_;
}

SamplerSubject::~SamplerSubject() = default;

std::string SamplerSubject::describe() const {
  return fmt::format("{} on {} (n = {}), {} iteration{} from the preset's start", sampler_, preset_,
                     n_, iterations_, iterations_ == 1 ? "" : "s");
}

Neighbouring SamplerSubject::relation() const {
  for (const auto& e : setup_.per_iteration) {
    if (e.relation == Neighbouring::add_remove) return Neighbouring::add_remove;
  }
  return Neighbouring::substitute;
}

double SamplerSubject::certified_epsilon(double delta) const {
  return certified_iterations_epsilon(setup_.per_iteration, iterations_, delta);
}

std::vector<std::string> SamplerSubject::published_extras(const Kernel& kernel) const {
  std::vector<std::string> out;
  for (const auto& c : kernel.publishable_columns()) {
    if (c != "eps_spent__") out.push_back(c);
  }
  return out;
}

void SamplerSubject::run(const Dataset& data, const NoiseKey& key, std::uint64_t stream,
                         std::span<double> statistics) const {
  probe();
  std::vector<double> values;
  run_into(data, key, stream, values, nullptr);
  if (values.size() != statistics.size()) {
    throw SoftwareError(fmt::format("audit: a run gave {} statistics, expected {}", values.size(),
                                    statistics.size()));
  }
  std::copy(values.begin(), values.end(), statistics.begin());
}

void SamplerSubject::run_into(const Dataset& data, const NoiseKey& key, std::uint64_t stream,
                              std::vector<double>& statistics,
                              std::vector<std::string>* names) const {
  std::vector<double> first_release, release_sum;
  ReleaseKind first_kind = ReleaseKind::other;
  bool released = false;
  const auto tap = [&](ReleaseKind kind, std::span<const double> values) {
    if (!released) {
      released = true;
      first_kind = kind;
      first_release.assign(values.begin(), values.end());
      release_sum.assign(values.size(), 0.0);
    }
    if (kind != first_kind || values.size() != release_sum.size()) return;
    for (std::size_t j = 0; j < values.size(); ++j) release_sum[j] += values[j];
  };
  // The allowance and logs of one chain of `iterations_` iterations.
  std::vector<EventLog> logs(setup_.owners);
  const ReleaseAllowance allowance = allowance_for(setup_, iterations_);
  std::vector<Dataset> shards;
  std::unique_ptr<PrivateKernel> kernel;
  const auto owner_data = [&](const Dataset& rows, std::size_t owner) {
    auto pd = std::make_unique<PrivateData>(
        *model_, rows, make_audit_noise_rng(key, seed_, stream, owner), logs[owner], allowance);
    if (owner == 0) {
      pd->set_release_tap(tap);  // the canary is row 1, which owner 1 holds
      if (setup_.owners == 1) pd->declare_rows(n_);
    }
    return pd;
  };
  if (setup_.owners == 1) {
    kernel = setup_.make_kernel(owner_data(data, 0));
  } else {
    shards = owner_shards(data, setup_.owners);
    std::vector<std::unique_ptr<DataOwner>> parties;
    for (std::size_t i = 0; i < shards.size(); ++i) parties.push_back(owner_data(shards[i], i));
    kernel = setup_.make_group_kernel(std::make_unique<OwnerGroup>(std::move(parties)));
  }
  kernel->init(start_);
  Rng rng = make_rng(seed_, 0);
  const auto extra_names = kernel->extra_columns();
  std::vector<double> extras(extra_names.size(), 0.0);
  double accepts = 0.0;
  for (std::uint64_t i = 0; i < iterations_ && !kernel->exhausted(); ++i) {
    accepts += kernel->transition(rng, extras).accepted ? 1.0 : 0.0;
  }
  const Vec& theta = kernel->position();
  const auto published = published_extras(*kernel);
  if (names != nullptr) {  // the probe: fix the layout
    release_width_ = first_release.size();
    names->clear();
    for (std::size_t j = 0; j < release_width_; ++j)
      names->push_back(fmt::format("release.{}", j + 1));
    for (std::size_t j = 0; j < release_width_; ++j) {
      names->push_back(fmt::format("release_sum.{}", j + 1));
    }
    for (Eigen::Index j = 0; j < theta.size(); ++j)
      names->push_back(fmt::format("theta.{}", j + 1));
    names->push_back("accepts");
    for (const auto& c : published) names->push_back(c);
  }
  // No release at all (every proposal left the prior's support): zeros, as for any constant.
  first_release.resize(release_width_, 0.0);
  release_sum.resize(release_width_, 0.0);
  statistics = first_release;
  statistics.insert(statistics.end(), release_sum.begin(), release_sum.end());
  for (Eigen::Index j = 0; j < theta.size(); ++j) statistics.push_back(theta[j]);
  statistics.push_back(accepts);
  for (const auto& c : published) {
    const auto at = std::find(extra_names.begin(), extra_names.end(), c) - extra_names.begin();
    statistics.push_back(extras[static_cast<std::size_t>(at)]);
  }
  // A statistic must be comparable: a non-finite value (a NaN column) becomes 0 in every run.
  for (double& v : statistics) {
    if (!std::isfinite(v)) v = 0.0;
  }
}

}  // namespace dpmcmc
