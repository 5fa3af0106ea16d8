#include "privacy/release_allowance.hpp"

#include <fmt/format.h>

#include <cmath>

#include "privacy/event_checks.hpp"
#include "privacy/event_names.hpp"

namespace dpmcmc {
namespace {

// Relative slack for values that pass through different but equivalent arithmetic in the plan
// and in the release (e.g. q = b/n, σ/Δ = τ√n·2T·β / 2T·β).
constexpr double kSlack = 1e-12;

bool at_most(double value, double limit) {
  return value <= limit * (1.0 + kSlack);
}

bool gaussian_kind(const PrivacyEvent& e) {
  return e.mechanism != Mechanism::approximate_dp;
}

}  // namespace

ReleaseAllowance ReleaseAllowance::for_iterations(const std::vector<PrivacyEvent>& per_iteration,
                                                  std::uint64_t iterations,
                                                  const std::map<ReleaseKind, double>& caps) {
  ReleaseAllowance a;
  for (const PrivacyEvent& e : per_iteration) {
    const auto cap = caps.find(e.kind);
    a.add(e, e.count * iterations,
          cap == caps.end() ? std::nullopt : std::optional<double>(cap->second));
  }
  return a;
}

void ReleaseAllowance::add(const PrivacyEvent& planned, std::uint64_t count,
                           std::optional<double> max_sensitivity) {
  try {
    validate_event(planned, "planned release");
  } catch (const ConfigError& e) {
    throw SoftwareError(e.what());
  }
  if (max_sensitivity && !(*max_sensitivity > 0.0 && std::isfinite(*max_sensitivity)))
    throw SoftwareError(fmt::format("planned release {}: sensitivity cap {} is not finite and > 0",
                                    describe(planned), *max_sensitivity));
  Slot s;
  s.planned = planned;
  s.planned.count = 1;
  s.max_sensitivity = gaussian_kind(planned) ? max_sensitivity : std::nullopt;
  s.planned_count = count;
  s.remaining = count;
  slots_.push_back(s);
}

std::uint64_t ReleaseAllowance::remaining(ReleaseKind kind) const {
  std::uint64_t total = 0;
  for (const Slot& s : slots_) {
    if (s.planned.kind == kind) total += s.remaining;
  }
  return total;
}

std::uint64_t ReleaseAllowance::planned(ReleaseKind kind) const {
  std::uint64_t total = 0;
  for (const Slot& s : slots_) {
    if (s.planned.kind == kind) total += s.planned_count;
  }
  return total;
}

std::string ReleaseAllowance::mismatch(const Slot& slot, const PrivacyEvent& e) {
  const PrivacyEvent& p = slot.planned;
  if (e.mechanism != p.mechanism)
    return fmt::format("mechanism {} where the plan has {}", to_string(e.mechanism),
                       to_string(p.mechanism));
  if (e.relation != p.relation)
    return fmt::format("relation {} where the plan's bound holds for {}", to_string(e.relation),
                       to_string(p.relation));
  if (e.sampling != p.sampling)
    return fmt::format("sampling {} where the plan has {}", to_string(e.sampling),
                       to_string(p.sampling));
  if (std::abs(e.sampling_rate - p.sampling_rate) > kSlack * p.sampling_rate)
    return fmt::format("sampling rate {} where the plan has {}", e.sampling_rate, p.sampling_rate);
  if (gaussian_kind(e)) {
    // σ/Δ < planned: less noise than the accountant assumed (under-noised).
    if (e.noise_multiplier() < p.noise_multiplier() * (1.0 - kSlack))
      return fmt::format("noise multiplier σ/Δ = {} below the planned {}", e.noise_multiplier(),
                         p.noise_multiplier());
    if (slot.max_sensitivity && !at_most(e.sensitivity, *slot.max_sensitivity))
      return fmt::format("sensitivity Δ = {} above the planned {}", e.sensitivity,
                         *slot.max_sensitivity);
  } else {
    if (!at_most(e.epsilon, p.epsilon))
      return fmt::format("ε = {} above the planned {}", e.epsilon, p.epsilon);
    if (!at_most(e.delta, p.delta))
      return fmt::format("δ = {} above the planned {}", e.delta, p.delta);
  }
  return {};
}

std::size_t ReleaseAllowance::find(const PrivacyEvent& e) const {
  std::string why;
  bool used_up = false;
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    const Slot& s = slots_[i];
    if (s.planned.kind != e.kind) continue;
    const std::string m = mismatch(s, e);
    if (m.empty() && s.remaining > 0) return i;
    if (m.empty()) {
      used_up = true;
    } else if (why.empty()) {
      why = m;
    }
  }
  const std::string what = fmt::format("release {} refused", describe(e));
  if (used_up) {
    throw ReleaseRefused(fmt::format(
        "{}: the allowance of this chain is used up (allowance {} releases, 0 remaining)", what,
        planned(e.kind)));
  }
  if (why.empty()) throw ReleaseRefused(what + ": the plan allows no release of this kind");
  throw ReleaseRefused(fmt::format("{}: {}", what, why));
}

void ReleaseAllowance::check(const PrivacyEvent& e) const {
  (void)find(e);
}

void ReleaseAllowance::use(const PrivacyEvent& e) {
  --slots_[find(e)].remaining;
}

void ReleaseAllowance::set_remaining(const std::vector<std::uint64_t>& remaining) {
  if (remaining.size() != slots_.size())
    throw SoftwareError("release allowance: restored state has the wrong number of slots");
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    if (remaining[i] > slots_[i].planned_count)
      throw SoftwareError("release allowance: restored state exceeds the plan");
  }
  for (std::size_t i = 0; i < slots_.size(); ++i) slots_[i].remaining = remaining[i];
}

}  // namespace dpmcmc
