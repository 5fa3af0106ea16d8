// A private sampler as an audit subject (audit_subject.hpp): k iterations of its kernel from the
// preset's public starting point, with the public algorithm stream of the audit's seed (the same
// in every run) and the secret noise stream of the run. Its statistics are what an attacker can
// read from a published run, and the releases behind them:
//   release.j   the first release's values (what the kernel receives from PrivateData; every
//               published output is a function of the releases, so this is the strongest view
//               of one iteration — the single-release fast path);
//   release_sum.j  the sum over the run of the releases of the first one's kind and width
//               (DP HMC's L + 1 gradients of one iteration see the canary's clipped gradient
//               L + 1 times: their sum shows more of the iteration's spend than one of them);
//   theta.j     θ after k iterations (the published draw);
//   accepts     how many of the k transitions accepted (a function of the draws);
// plus the kernel's publishable extra columns after the last iteration (eps_spent__ aside, which
// the audit does not meter). The certified ε is the tightest certified upper-bound accountant's
// for k iterations of the sampler's template, at the δ share the accountants get in a run
// (run/private_plan.hpp: δ(1 − 2⁻¹⁰); the rest pays for the discrete noise).
#pragma once

#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>

#include "audit/audit_subject.hpp"
#include "models/presets.hpp"
#include "run/private_samplers.hpp"
#include "run/sampler_descriptors.hpp"

namespace dpmcmc {

class SamplerSubject : public AuditSubject {
 public:
  // `params`: the sampler's hyperparameters (sampler_params()); the declared rows n are those of
  // `base`, on which one probe run (fresh key) sizes the statistics. ConfigError as the sampler's
  // setup, and unless k ≥ 1.
  SamplerSubject(const SamplerDescriptor& entry, const Preset& preset, nlohmann::json params,
                 const Dataset& base, std::uint64_t iterations, std::uint64_t seed);
  ~SamplerSubject() override;

  std::string describe() const override;
  Neighbouring relation() const override;
  std::size_t declared_rows() const override { return n_; }
  std::vector<std::string> statistic_names() const override;
  void run(const Dataset& data, const NoiseKey& key, std::uint64_t stream,
           std::span<double> statistics) const override;
  double certified_epsilon(double delta) const override;

  const nlohmann::json& params() const { return params_; }

 protected:
  // The extra columns that become statistics: the kernel's publishable ones. The auditor's own
  // tests override this to publish a curator-only column (a broken variant).
  virtual std::vector<std::string> published_extras(const Kernel& kernel) const;

 private:
  // One run; `statistics` empty: only sizes the names (the constructor's probe).
  void run_into(const Dataset& data, const NoiseKey& key, std::uint64_t stream,
                std::vector<double>& statistics, std::vector<std::string>* names) const;

  std::string sampler_;
  std::string preset_;
  nlohmann::json params_;
  std::unique_ptr<Model> model_;
  PrivateSamplerSetup setup_;
  std::size_t n_;
  std::uint64_t iterations_;
  std::uint64_t seed_;
  Vec start_;
  // The layout of the statistics, fixed by one probe run on the base rows the first time it is
  // needed (after construction, so that published_extras() is the final overrider's).
  void probe() const;
  Dataset base_;
  mutable std::once_flag probed_;
  mutable std::vector<std::string> names_;
  mutable std::size_t release_width_ = 0;
};

// ε(δ) of `iterations` iterations of `per_iteration` by the tightest certified upper-bound
// accountant that interprets it, at the accountants' share δ(1 − 2⁻¹⁰) of δ. ConfigError when
// none does.
double certified_iterations_epsilon(std::span<const PrivacyEvent> per_iteration,
                                    std::uint64_t iterations, double delta);

// `params` with the sampler's privacy knobs (SamplerDescriptor::privacy_knobs) scaled by one
// common factor so that `iterations` iterations certify ε within a relative 10⁻⁴, on the safe
// side (certified ≤ ε); a count knob as close as whole numbers allow. ConfigError naming the
// sampler and the knobs when the sampler has none or no factor in [2⁻⁴⁰, 2⁴⁰] reaches ε.
nlohmann::json calibrate_privacy_knobs(const SamplerDescriptor& entry, nlohmann::json params,
                                       const Model& model, std::size_t n, std::uint64_t iterations,
                                       double epsilon, double delta);

}  // namespace dpmcmc
