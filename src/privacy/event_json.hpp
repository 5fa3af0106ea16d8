// JSON (de)serialisation of privacy events for the run report (docs/architecture.md) and for event
// lists given to `dpmcmc account`. An event is an object, e.g.
//   {"mechanism": "gaussian", "relation": "substitute", "sensitivity": 1, "noise_sd": 31.6,
//    "noise_multiplier": 31.6, "count": 100000, "label": "llr_sum"}
//   {"mechanism": "subsampled_gaussian", "sampling": "poisson", "sampling_rate": 0.01, ...}
//   {"mechanism": "approximate_dp", "relation": "add_remove", "epsilon": 0.05, "delta": 1e-7, ...}
// "noise_multiplier" is written for readers and ignored on input. Doubles are written in the
// shortest form that reads back bit for bit.
#pragma once

#include <nlohmann/json.hpp>
#include <span>
#include <string_view>
#include <vector>

#include "privacy/event_log.hpp"
#include "privacy/privacy_event.hpp"

namespace dpmcmc {

nlohmann::json event_to_json(const PrivacyEvent& event);
// Throws DataError naming `where` (e.g. "report.json: privacy.events[3]") and the offending key:
// missing or mistyped keys, unknown names, invalid values (see validate_event).
PrivacyEvent event_from_json(const nlohmann::json& json, std::string_view where = "event");

nlohmann::json events_to_json(std::span<const PrivacyEvent> events);
// Expects an array of event objects.
std::vector<PrivacyEvent> events_from_json(const nlohmann::json& json,
                                           std::string_view where = "events");

// An event log as {"releases": N, "events": [...]}; reading re-merges the events.
nlohmann::json event_log_to_json(const EventLog& log);
EventLog event_log_from_json(const nlohmann::json& json, std::string_view where = "event log");

// A log's whole state for a checkpoint (EventLog::State): {"events": [...], "buckets": [...],
// "recent": [i, j]} (null for no entry); restoring it gives a log that merges later events as the
// original would. DataError naming `where` for a malformed state.
nlohmann::json event_log_state(const EventLog& log);
void restore_event_log(EventLog& log, const nlohmann::json& json,
                       std::string_view where = "checkpoint: event log");

}  // namespace dpmcmc
