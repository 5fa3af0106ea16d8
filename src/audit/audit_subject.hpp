// What the auditor runs (src/audit/audit_run.hpp): a mechanism, seen from outside. A subject
// runs once on a dataset with a given secret noise stream and reduces what the run publishes to
// a few numbers (its statistics); it says which neighbouring relation its guarantee is about and
// what ε its accountant certifies. The auditor never looks inside: a subject that leaks shows it
// only through its statistics.
//
// The real subject is a private sampler (sampler_subject.hpp); the auditor's own tests add broken
// ones (tests/audit/), built only there.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/noise_key.hpp"
#include "data/dataset.hpp"
#include "privacy/privacy_event.hpp"

namespace dpmcmc {

class AuditSubject {
 public:
  virtual ~AuditSubject() = default;

  // One line: what is audited (sampler, model, iterations, calibration).
  virtual std::string describe() const = 0;
  // The relation the certificate is about: substitute D′ = D with one row replaced, or
  // add/remove D′ = D with one row more.
  virtual Neighbouring relation() const = 0;
  // The rows the certificate's mechanism declares (the public n); under add/remove D′ holds one
  // more.
  virtual std::size_t declared_rows() const = 0;
  virtual std::vector<std::string> statistic_names() const = 0;
  // One run on `data` with its secret randomness from `key`'s audit noise streams of index
  // `stream` (make_audit_noise_rng, never a run's stream); the public randomness is the subject's
  // own seed, the same in every run, as an attacker who reads the published seed would have it.
  // Writes one finite value per statistic. Must be safe to call from several threads at once.
  virtual void run(const Dataset& data, const NoiseKey& key, std::uint64_t stream,
                   std::span<double> statistics) const = 0;
  // The ε at δ that the subject's accountant certifies for one run.
  virtual double certified_epsilon(double delta) const = 0;
};

}  // namespace dpmcmc
