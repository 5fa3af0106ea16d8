#include "privacy/event_log.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>

#include "core/error.hpp"
#include "privacy/event_checks.hpp"

namespace dpmcmc {
namespace {

bool gaussian_kind(const PrivacyEvent& e) {
  return e.mechanism != Mechanism::approximate_dp;
}

}  // namespace

std::size_t EventLog::KeyHash::operator()(const Key& k) const noexcept {
  std::size_t h = std::hash<int>{}(static_cast<int>(k.kind));
  auto mix = [&h](std::uint64_t v) {
    h ^= std::hash<std::uint64_t>{}(v) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  };
  mix(static_cast<std::uint64_t>(k.mechanism));
  mix(static_cast<std::uint64_t>(k.sampling));
  mix(static_cast<std::uint64_t>(k.relation));
  mix(k.rate_bits);
  mix(k.epsilon_bits);
  mix(k.delta_bits);
  mix(k.multiplier_bucket);
  return h;
}

// σ/Δ > 0 with its 12 lowest mantissa bits cleared: buckets of relative width 2⁻⁴⁰ ≈ 9e-13,
// below the merge tolerance, so candidates within tolerance lie in the same or an adjacent bucket
// (bit patterns of positive doubles are ordered like their values).
std::uint64_t EventLog::bucket_of(const PrivacyEvent& e) {
  if (!gaussian_kind(e)) return 0;
  return std::bit_cast<std::uint64_t>(e.noise_multiplier()) >> 12;
}

EventLog::Key EventLog::key_of(const PrivacyEvent& e, std::uint64_t bucket) {
  const bool g = gaussian_kind(e);
  return Key{e.mechanism,
             e.sampling,
             e.relation,
             std::bit_cast<std::uint64_t>(e.sampling_rate),
             g ? 0 : std::bit_cast<std::uint64_t>(e.epsilon),
             g ? 0 : std::bit_cast<std::uint64_t>(e.delta),
             bucket,
             e.kind};
}

bool EventLog::mergeable(const PrivacyEvent& a, const PrivacyEvent& b) {
  if (a.mechanism != b.mechanism || a.sampling != b.sampling || a.relation != b.relation ||
      a.sampling_rate != b.sampling_rate || a.kind != b.kind)
    return false;
  if (!gaussian_kind(a)) return a.epsilon == b.epsilon && a.delta == b.delta;
  const double ma = a.noise_multiplier(), mb = b.noise_multiplier();
  return std::abs(ma - mb) <= kMultiplierTolerance * std::max(ma, mb);
}

void EventLog::add_to(std::size_t index, const PrivacyEvent& event) {
  PrivacyEvent& entry = events_[index];
  if (entry.count > UINT64_MAX - event.count)
    throw SoftwareError("privacy event log: release count overflows 64 bits");
  entry.count += event.count;
  // Keep the more expensive (smaller) noise multiplier: the entry must not understate any event.
  if (gaussian_kind(entry) && event.noise_multiplier() < entry.noise_multiplier()) {
    entry.sensitivity = event.sensitivity;
    entry.noise_sd = event.noise_sd;
  }
  if (recent_[0] != index) {
    recent_[1] = recent_[0];
    recent_[0] = index;
  }
}

void EventLog::append(const PrivacyEvent& event) {
  validate_event(event, "privacy event log: appended event");
  if (releases_ > UINT64_MAX - event.count)
    throw SoftwareError("privacy event log: release count overflows 64 bits");
  for (std::size_t r : recent_) {
    if (r != SIZE_MAX && mergeable(events_[r], event)) {
      add_to(r, event);
      releases_ += event.count;
      return;
    }
  }
  const std::uint64_t bucket = bucket_of(event);
  for (std::uint64_t b : {bucket, bucket - 1, bucket + 1}) {
    const auto it = index_.find(key_of(event, b));
    if (it == index_.end()) continue;
    for (std::size_t i : it->second) {
      if (mergeable(events_[i], event)) {
        add_to(i, event);
        releases_ += event.count;
        return;
      }
    }
  }
  events_.push_back(event);
  buckets_.push_back(bucket);
  const std::size_t index = events_.size() - 1;
  index_[key_of(event, bucket)].push_back(index);
  releases_ += event.count;
  recent_[1] = recent_[0];
  recent_[0] = index;
}

void EventLog::append(std::span<const PrivacyEvent> events) {
  for (const PrivacyEvent& e : events) append(e);
}

void EventLog::merge(const EventLog& other) {
  if (&other == this) {
    const std::vector<PrivacyEvent> copy = events_;
    append(copy);
    return;
  }
  append(other.events());
}

void EventLog::clear() {
  events_.clear();
  buckets_.clear();
  index_.clear();
  releases_ = 0;
  recent_[0] = recent_[1] = SIZE_MAX;
}

EventLog::State EventLog::state() const {
  State s;
  s.events = events_;
  s.buckets = buckets_;
  s.recent[0] = recent_[0];
  s.recent[1] = recent_[1];
  return s;
}

void EventLog::restore(const State& s) {
  if (s.buckets.size() != s.events.size())
    throw SoftwareError("privacy event log: restored state has mismatched sizes");
  for (const std::size_t r : s.recent) {
    if (r != SIZE_MAX && r >= s.events.size())
      throw SoftwareError("privacy event log: restored state names a missing entry");
  }
  clear();
  for (std::size_t i = 0; i < s.events.size(); ++i) {
    validate_event(s.events[i], "privacy event log: restored event");
    if (releases_ > UINT64_MAX - s.events[i].count)
      throw SoftwareError("privacy event log: release count overflows 64 bits");
    releases_ += s.events[i].count;
    index_[key_of(s.events[i], s.buckets[i])].push_back(i);
  }
  events_ = s.events;
  buckets_ = s.buckets;
  recent_[0] = s.recent[0];
  recent_[1] = s.recent[1];
}

EventLog merge_chain_logs(std::span<const EventLog> chains) {
  EventLog all;
  for (const EventLog& log : chains) all.merge(log);
  return all;
}

}  // namespace dpmcmc
