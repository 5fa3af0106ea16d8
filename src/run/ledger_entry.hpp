// A private run's entry in the persistent budget ledger (ledger/ledger.hpp, issue #30). Before
// the first release the job opens it: on the caller's rows (--data, a user model's CSV) whose
// canonical hash is registered in the ledger, the plan's releases are reserved, or the run is
// refused (BudgetRefusal, 77) with nothing released; a resumed run takes back the reservation
// its checkpoint names. After the chains, the entry settles: completed or stopped for good → what
// the run recorded; stopped with a checkpoint → the reservation stays for the resumption. A run
// killed before settling leaves its reservation counted. Untracked runs (a preset's public data,
// no ledger, an unregistered dataset) carry a note saying so.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "privacy/event_log.hpp"
#include "run/private_plan.hpp"
#include "run/sample_job.hpp"

namespace dpmcmc {

class LedgerEntry {
 public:
  // `checkpoints`: a resumed run's checkpoint directory (its ledger.json names the reservation to
  // take back). Throws BudgetRefusal, BusyError, DataError as the ledger does.
  static LedgerEntry open(const SampleSpec& spec, const PrivateRunPlan& plan,
                          const std::optional<std::filesystem::path>& checkpoints);
  // A fresh checkpointed run, once its checkpoint directory is written: names the reservation
  // open() made in CHECKPOINTS/ledger.json, for a resumption. No-op when open() reserved nothing.
  void save_reservation(const std::filesystem::path& checkpoints) const;

  bool tracked() const { return run_id_ != 0; }
  // Settles the reservation (see above). No-op when untracked. Never throws: a ledger that cannot
  // be updated after the releases leaves the reservation counted in full (safe), and the note
  // says so; the run's outputs stand.
  void settle(bool complete, bool resumable, const EventLog& recorded);
  // For the curator's report and stdout: {"tracked", "ledger", "dataset", "run", "note"}.
  const nlohmann::json& json() const { return json_; }

 private:
  std::filesystem::path ledger_;
  std::int64_t run_id_ = 0;
  std::string token_;
  bool reserved_now_ = false;  // a fresh reservation, not a resumed one
  nlohmann::json json_;
};

}  // namespace dpmcmc
