#include "privacy/event_json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "core/state_json.hpp"
#include "privacy/event_checks.hpp"
#include "privacy/event_names.hpp"

namespace dpmcmc {
namespace {

using nlohmann::json;

const json& require(const json& j, const char* key, std::string_view where) {
  const auto it = j.find(key);
  if (it == j.end()) throw DataError(fmt::format("{}: missing key \"{}\"", where, key));
  return *it;
}

double number(const json& j, const char* key, std::string_view where) {
  const json& v = require(j, key, where);
  if (!v.is_number())
    throw DataError(fmt::format("{}.{}: expected a number, got {}", where, key, v.dump()));
  return v.get<double>();
}

std::string text(const json& j, const char* key, std::string_view where) {
  const json& v = require(j, key, where);
  if (!v.is_string())
    throw DataError(fmt::format("{}.{}: expected a string, got {}", where, key, v.dump()));
  return v.get<std::string>();
}

// Integers from parsed text are unsigned when ≥ 0; integers built in code may be signed.
bool non_negative_integer(const json& v) {
  return v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0);
}

template <class F>
auto as_data_error(F&& f) {
  try {
    return f();
  } catch (const ConfigError& e) {
    throw DataError(e.what());
  }
}

}  // namespace

json event_to_json(const PrivacyEvent& e) {
  json j;
  j["mechanism"] = to_string(e.mechanism);
  j["relation"] = to_string(e.relation);
  if (e.mechanism == Mechanism::approximate_dp) {
    j["epsilon"] = e.epsilon;
    j["delta"] = e.delta;
  } else {
    j["sensitivity"] = e.sensitivity;
    j["noise_sd"] = e.noise_sd;
    j["noise_multiplier"] = e.noise_multiplier();
    if (e.mechanism == Mechanism::subsampled_gaussian) {
      j["sampling"] = to_string(e.sampling);
      j["sampling_rate"] = e.sampling_rate;
    }
  }
  j["count"] = e.count;
  if (e.kind != ReleaseKind::other) j["label"] = release_kind_name(e.kind);
  return j;
}

PrivacyEvent event_from_json(const json& j, std::string_view where) {
  if (!j.is_object())
    throw DataError(fmt::format("{}: expected an object, got {}", where, j.dump()));
  PrivacyEvent e;
  const std::string w(where);
  e.mechanism =
      as_data_error([&] { return parse_mechanism(text(j, "mechanism", where), w + ".mechanism"); });
  e.relation = as_data_error(
      [&] { return parse_neighbouring(text(j, "relation", where), w + ".relation"); });
  if (e.mechanism == Mechanism::approximate_dp) {
    e.epsilon = number(j, "epsilon", where);
    e.delta = number(j, "delta", where);
  } else {
    e.sensitivity = number(j, "sensitivity", where);
    e.noise_sd = number(j, "noise_sd", where);
    if (e.mechanism == Mechanism::subsampled_gaussian) {
      e.sampling = as_data_error(
          [&] { return parse_sampling(text(j, "sampling", where), w + ".sampling"); });
      e.sampling_rate = number(j, "sampling_rate", where);
    }
  }
  const json& count = require(j, "count", where);
  if (!non_negative_integer(count))
    throw DataError(
        fmt::format("{}.count: expected a positive integer, got {}", where, count.dump()));
  e.count = count.get<std::uint64_t>();
  if (j.contains("label")) {
    const std::string label = text(j, "label", where);
    const auto kind = parse_release_kind(label);
    if (!kind) {
      std::string names;
      for (const ReleaseKind k : kReleaseKinds) {
        if (k != ReleaseKind::other)
          names += (names.empty() ? "" : ", ") + std::string(release_kind_name(k));
      }
      throw DataError(
          fmt::format("{}.label: unknown release kind '{}', expected one of {} (or no label)",
                      where, label, names));
    }
    e.kind = *kind;
  }
  as_data_error([&] {
    validate_event(e, where);
    return 0;
  });
  return e;
}

json events_to_json(std::span<const PrivacyEvent> events) {
  json a = json::array();
  for (const PrivacyEvent& e : events) a.push_back(event_to_json(e));
  return a;
}

std::vector<PrivacyEvent> events_from_json(const json& j, std::string_view where) {
  if (!j.is_array())
    throw DataError(fmt::format("{}: expected an array of events, got {}", where,
                                j.is_object() ? "an object" : j.dump()));
  std::vector<PrivacyEvent> events;
  events.reserve(j.size());
  for (std::size_t i = 0; i < j.size(); ++i)
    events.push_back(event_from_json(j[i], fmt::format("{}[{}]", where, i)));
  return events;
}

json event_log_to_json(const EventLog& log) {
  return json{{"releases", log.releases()}, {"events", events_to_json(log.events())}};
}

EventLog event_log_from_json(const json& j, std::string_view where) {
  if (!j.is_object())
    throw DataError(fmt::format("{}: expected an object with key \"events\"", where));
  EventLog log;
  log.append(events_from_json(require(j, "events", where), fmt::format("{}.events", where)));
  if (j.contains("releases")) {
    const json& r = j["releases"];
    if (!non_negative_integer(r) || r.get<std::uint64_t>() != log.releases())
      throw DataError(fmt::format("{}.releases: {} does not equal the sum of the event counts {}",
                                  where, r.dump(), log.releases()));
  }
  return log;
}

namespace {

// Every field of an event, doubles as bit patterns: the report's form (event_to_json) leaves out
// fields its mechanism does not use, but the log's merging compares them all.
json exact_event(const PrivacyEvent& e) {
  return {{"mechanism", to_string(e.mechanism)},
          {"sampling", to_string(e.sampling)},
          {"relation", to_string(e.relation)},
          {"kind", std::string(release_kind_name(e.kind))},
          {"sensitivity", state::of(e.sensitivity)},
          {"noise_sd", state::of(e.noise_sd)},
          {"sampling_rate", state::of(e.sampling_rate)},
          {"epsilon", state::of(e.epsilon)},
          {"delta", state::of(e.delta)},
          {"count", e.count}};
}

PrivacyEvent exact_event_from(const json& j, std::string_view where) {
  PrivacyEvent e;
  const std::string w(where);
  const auto name = [&](const char* key) {
    const json& v = state::at(j, key);
    if (!v.is_string()) throw DataError(fmt::format("{}.{}: expected a name", where, key));
    return v.get<std::string>();
  };
  e.mechanism = as_data_error([&] { return parse_mechanism(name("mechanism"), w); });
  e.sampling = as_data_error([&] { return parse_sampling(name("sampling"), w); });
  e.relation = as_data_error([&] { return parse_neighbouring(name("relation"), w); });
  const auto kind = parse_release_kind(name("kind"));
  if (!kind && !name("kind").empty())
    throw DataError(fmt::format("{}.kind: unknown release kind", where));
  e.kind = kind.value_or(ReleaseKind::other);
  e.sensitivity = state::to_double(j, "sensitivity");
  e.noise_sd = state::to_double(j, "noise_sd");
  e.sampling_rate = state::to_double(j, "sampling_rate");
  e.epsilon = state::to_double(j, "epsilon");
  e.delta = state::to_double(j, "delta");
  e.count = state::to_count(j, "count");
  return e;
}

}  // namespace

json event_log_state(const EventLog& log) {
  const EventLog::State s = log.state();
  json events = json::array(), recent = json::array();
  for (const auto& e : s.events) events.push_back(exact_event(e));
  for (const std::size_t r : s.recent) recent.push_back(r == SIZE_MAX ? json(nullptr) : json(r));
  return {{"events", events}, {"buckets", s.buckets}, {"recent", recent}};
}

void restore_event_log(EventLog& log, const json& j, std::string_view where) {
  EventLog::State s;
  const json& events = require(j, "events", where);
  if (!events.is_array()) throw DataError(fmt::format("{}.events: expected an array", where));
  for (std::size_t i = 0; i < events.size(); ++i)
    s.events.push_back(exact_event_from(events[i], fmt::format("{}.events[{}]", where, i)));
  const json& buckets = require(j, "buckets", where);
  const json& recent = require(j, "recent", where);
  if (!buckets.is_array() || buckets.size() != s.events.size() ||
      !std::all_of(buckets.begin(), buckets.end(), non_negative_integer) || !recent.is_array() ||
      recent.size() != 2) {
    throw DataError(fmt::format("{}: malformed buckets or recent entries", where));
  }
  for (const json& b : buckets) s.buckets.push_back(b.get<std::uint64_t>());
  for (std::size_t i = 0; i < 2; ++i) {
    if (recent[i].is_null()) continue;
    if (!non_negative_integer(recent[i]) || recent[i].get<std::uint64_t>() >= s.events.size())
      throw DataError(fmt::format("{}.recent[{}]: not an entry of the log", where, i));
    s.recent[i] = recent[i].get<std::size_t>();
  }
  log.restore(s);
}

}  // namespace dpmcmc
