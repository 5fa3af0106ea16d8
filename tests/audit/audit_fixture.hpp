// Shared set-up of the auditor's tests: a private sampler on its defaults preset's simulated
// rows, optionally calibrated to a target ε, as an audit subject.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "audit/audit_run.hpp"
#include "audit/neighbours.hpp"
#include "audit/sampler_subject.hpp"
#include "run/sampler_descriptors.hpp"
#include "run/sampler_params.hpp"

namespace dpmcmc::audit_test {

struct SamplerCase {
  const SamplerDescriptor* entry = nullptr;
  const Preset* preset = nullptr;
  std::unique_ptr<Model> model;
  Dataset base;
  nlohmann::json params;
};

// `overrides` replace the preset's values before the calibration; epsilon empty: no calibration.
inline SamplerCase sampler_case(const std::string& sampler, std::size_t rows,
                                std::optional<double> epsilon, std::uint64_t iterations = 1,
                                const nlohmann::json& overrides = nlohmann::json::object(),
                                double delta = 1e-5) {
  SamplerCase c;
  c.entry = find_private_sampler(sampler);
  c.preset = &defaults_preset(*c.entry);
  c.model = c.preset->make_model();
  c.base = simulate_preset(*c.preset, *c.model, 1, rows);
  c.params = with_unset_counts(*c.entry, sampler_params(*c.preset, sampler, overrides));
  if (epsilon) {
    c.params =
        calibrate_privacy_knobs(*c.entry, c.params, *c.model, rows, iterations, *epsilon, delta);
  }
  return c;
}

inline AuditOptions options(std::uint64_t trials, std::uint64_t pilot, double beta = 0.05) {
  AuditOptions o;
  o.trials = trials;
  o.pilot_trials = pilot;
  o.beta = beta;
  o.delta = 1e-5;
  return o;
}

// A fixed key: the tests' audits are reproducible (the key is the audit's, not a run's).
inline NoiseKey test_key(unsigned char fill = 7) {
  NoiseKey::Bytes b{};
  b.fill(fill);
  return NoiseKey::from_bytes(b);
}

}  // namespace dpmcmc::audit_test
