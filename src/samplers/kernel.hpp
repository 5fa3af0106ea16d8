// The transition-kernel interface (docs/architecture.md, BlackJAX's shape): a kernel is initialised
// at a position and then advanced one transition at a time with the chain's algorithm stream. A
// kernel does no I/O; the runner owns the loop, the streams and the writers. Private kernels hold
// a PrivateData (privacy/) for their releases, whose noise comes from the chain's noise stream.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/rng.hpp"
#include "core/types.hpp"
#include "samplers/tuning.hpp"

namespace dpmcmc {

struct TransitionInfo {
  // Stan's lp__: the log density of the current state up to a constant, as far as the kernel
  // knows it (NaN for a private kernel, which never sees the exact log density).
  double log_density = 0.0;
  // Stan's accept_stat__: the acceptance probability of the proposal (or its estimate).
  double accept_stat = 0.0;
  bool accepted = false;
};

class Kernel {
 public:
  virtual ~Kernel() = default;

  // Sampler name as written in outputs, e.g. "rwmh", "hmc".
  virtual std::string name() const = 0;
  virtual int dim() const = 0;
  // Names of the sampler-specific draw columns after lp__ and accept_stat__, each ending in
  // "__" (Stan CSV convention), e.g. {"stepsize__", "n_leapfrog__"}.
  virtual std::vector<std::string> extra_columns() const { return {}; }
  // The extra columns that may be published (docs/architecture.md): functions of released (noisy)
  // values and public inputs only. The others — clip counts, secret batch sizes, anything computed
  // from private rows without noise — go to the curator's files. A non-private kernel has no
  // boundary to keep (its draws are themselves unprotected), so by default every column is listed;
  // private kernels must list theirs (PrivateKernel makes this pure).
  virtual std::vector<std::string> publishable_columns() const { return extra_columns(); }

  // Sets the current position; resets any per-chain state.
  virtual void init(const Vec& theta0) = 0;
  // One transition from the current position. Writes one value per extra_columns() into extras.
  virtual TransitionInfo transition(Rng& rng, std::span<double> extras) = 0;
  virtual const Vec& position() const = 0;

  // True when the kernel can make no further transition — a private kernel whose privacy budget
  // would be exceeded by one more release. The runner asks before every transition and stops the
  // chain cleanly (keeping its draws, status budget_exhausted) rather than release beyond it
  // (docs/architecture.md). Non-private kernels never run out.
  virtual bool exhausted() const { return false; }

  // Warmup adaptation (samplers/warmup_adapter.hpp; the runner drives it with --adapt true). A
  // kernel that can be tuned says how (its target acceptance, whether the metric adapts) and
  // exposes its step size and diagonal metric; set_tuning() changes them between two transitions
  // without touching the chain's state. nullopt: nothing to adapt (the defaults).
  virtual std::optional<AdaptationTarget> adaptation() const { return std::nullopt; }
  virtual Tuning tuning() const { return {}; }
  virtual void set_tuning(const Tuning& /*tuning*/) {}

  // Checkpoints (run/checkpoint.hpp). A resumed chain calls init(its saved position()) and then
  // load_state(what save_state() returned between two transitions). A kernel whose whole state
  // init() rebuilds exactly from the position keeps these defaults; anything else — counters,
  // momenta, thermostats, lazily drawn sequences, a private kernel's data owner — must be saved,
  // or the resumed chain would not continue bit for bit (tests/run/checkpoint_roundtrip_test.cpp
  // runs every sampler through a save and a restore). Doubles go through core/state_json.hpp.
  virtual nlohmann::json save_state() const { return nlohmann::json::object(); }
  // DataError for a malformed state.
  virtual void load_state(const nlohmann::json& /*state*/) {}
};

}  // namespace dpmcmc
