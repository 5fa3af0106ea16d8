// The common part of every private kernel (docs/architecture.md): it reaches the data only through
// its chain's data owner — a PrivateData, or an OwnerGroup of several owners (the data-sharing
// penalty, [Yildirim2020] Algorithm 2) — which it either borrows (the caller keeps it
// alive, e.g. a test or a job that reads its counters) or owns; it knows which releases one of its
// iterations makes, so that it reports exhausted() *before* an iteration whose releases the chain's
// allowance could not cover; and it reports the chain's spend so far in the eps_spent__ column
// through a callback set by the job (the kernel does not know the run's accountant or the other
// chains).
//
// Private kernels also share the starting-point rule: θ0 of the right size, finite, with a finite
// log prior density (the prior is public; the likelihood is never evaluated exactly).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "models/model.hpp"
#include "privacy/data_owner.hpp"
#include "privacy/private_data.hpp"
#include "samplers/kernel.hpp"

namespace dpmcmc {

// ε spent so far by this chain, given the number of releases it has made (set by the job).
using SpendCallback = std::function<double(std::uint64_t releases_done)>;

class PrivateKernel : public Kernel {
 public:
  // True when some kind of releases_per_iteration() has fewer releases left than one iteration
  // may make.
  bool exhausted() const override;
  // The data owner's state under "owner" (noise stream, allowance, event log); kernels that
  // override these call them.
  nlohmann::json save_state() const override;
  void load_state(const nlohmann::json& state) override;

  // Default-deny: a private kernel names the extra columns that are functions of its releases
  // and public inputs; every other column is curator-only (checked by the leak scan,
  // tests/cli/leak_scan_test.cpp).
  std::vector<std::string> publishable_columns() const override = 0;

  void set_spend_callback(SpendCallback callback) { spend_ = std::move(callback); }
  // The owner as a PrivateData; SoftwareError when it is another kind of owner.
  const PrivateData& private_data() const;
  const DataOwner& owner() const { return *owner_; }

 protected:
  // `per_iteration`: the most releases of each label one transition makes.
  PrivateKernel(DataOwner& owner, ReleaseCounts per_iteration);
  PrivateKernel(std::unique_ptr<DataOwner> owner, ReleaseCounts per_iteration);

  // The owner's releases available to every kind of owner (llr_sum), and the whole PrivateData
  // API for kernels that need more (SoftwareError when the owner is not a PrivateData).
  DataOwner& owner() { return *owner_; }
  PrivateData& data();
  const ReleaseCounts& releases_per_iteration() const { return per_iteration_; }
  // The spend callback's value for the releases made so far; NaN when no callback is set.
  double spent() const;
  // Checks θ0 (size, finite) and returns log p(θ0), ConfigError naming `who` unless finite.
  static double start_log_prior(const Model& model, const Vec& theta0, int dim,
                                const std::string& who);

 private:
  std::unique_ptr<DataOwner> owned_;
  DataOwner* owner_;
  PrivateData* data_;  // owner_ when it is a PrivateData, else nullptr
  ReleaseCounts per_iteration_;
  SpendCallback spend_;
};

}  // namespace dpmcmc
