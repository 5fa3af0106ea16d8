// The run's privacy event log (docs/architecture.md): every release appends a PrivacyEvent;
// accountants compose the log after the run (the *recorded* spend). A sampler appends one or a few
// events per iteration, so identical releases are merged into one entry with a count — 10⁶
// iterations of DP HMC stay two entries instead of 10⁷.
//
// Merging rule. Two events merge when mechanism, sampling, sampling rate q, neighbouring
// relation, label (and ε, δ for approximate_dp) are equal and their noise multipliers σ/Δ agree
// to a relative 1e-12. The tolerance absorbs the rounding of σ/Δ when a sampler records the raw
// sensitivity c(θ, θ′) and noise τ√n·c(θ, θ′) of a normalised release ([Raisa2021]
// proof of Theorem 3.2); the merged entry keeps the *smaller* multiplier, so its cost is never
// below that of any event it stands for (a certified bound stays certified).
//
// An event merges into *any* earlier entry with the same key, not only the last one: DP HMC
// alternates gradient and log-likelihood releases, so merging with the previous entry alone would
// not compact. Order is irrelevant to every accountant here: all composition theorems used
// (PLD convolution, additive zCDP/RDP, advanced and optimal composition) bound *adaptive*
// compositions in any order. Entries keep the order of their first appearance.
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "privacy/privacy_event.hpp"

namespace dpmcmc {

class EventLog {
 public:
  // Relative tolerance on σ/Δ under which two otherwise identical events merge.
  static constexpr double kMultiplierTolerance = 1e-12;

  EventLog() = default;

  // Validates `event` (ConfigError, see validate_event) and adds its `count` releases.
  void append(const PrivacyEvent& event);
  void append(std::span<const PrivacyEvent> events);
  // Adds all releases of another log (e.g. another chain of the same run: M chains on the same
  // data share one budget, so their logs compose).
  void merge(const EventLog& other);

  // The merged entries in order of first appearance.
  std::span<const PrivacyEvent> events() const { return events_; }
  std::size_t size() const { return events_.size(); }
  bool empty() const { return events_.empty(); }
  // Total number of releases Σ count.
  std::uint64_t releases() const { return releases_; }
  void clear();

  // The log's whole state, for checkpoints: the entries, the index bucket each was filed under
  // and the two most recently hit entries, so that a restored log merges later events exactly as
  // the original would have (bit-identical resumed runs; event_json.hpp writes it).
  struct State {
    std::vector<PrivacyEvent> events;
    std::vector<std::uint64_t> buckets;
    std::size_t recent[2] = {SIZE_MAX, SIZE_MAX};
  };
  State state() const;
  // Replaces the log by `s`; ConfigError for an invalid event, SoftwareError for an inconsistent
  // state (sizes or recent indices out of range).
  void restore(const State& s);

 private:
  struct Key {
    Mechanism mechanism;
    Sampling sampling;
    Neighbouring relation;
    std::uint64_t rate_bits;
    std::uint64_t epsilon_bits;
    std::uint64_t delta_bits;
    std::uint64_t multiplier_bucket;
    ReleaseKind kind;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const noexcept;
  };
  static Key key_of(const PrivacyEvent& e, std::uint64_t bucket);
  static std::uint64_t bucket_of(const PrivacyEvent& e);
  static bool mergeable(const PrivacyEvent& entry, const PrivacyEvent& event);
  void add_to(std::size_t index, const PrivacyEvent& event);

  std::vector<PrivacyEvent> events_;
  std::vector<std::uint64_t> buckets_;  // the index bucket of each entry
  std::unordered_map<Key, std::vector<std::size_t>, KeyHash> index_;
  std::uint64_t releases_ = 0;
  // The two most recently hit entries: a sampler's per-iteration pattern hits these first.
  std::size_t recent_[2] = {SIZE_MAX, SIZE_MAX};
};

// The log of a run whose chains share one budget: all chains' releases composed together.
EventLog merge_chain_logs(std::span<const EventLog> chains);

}  // namespace dpmcmc
