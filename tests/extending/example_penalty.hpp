// The example sampler of docs/extending.md, written as a user adding a sampler would: its kernel
// (a PrivateMhKernel with one noisy test) and its setup, in this file and example_penalty.cpp, and
// its descriptor. It re-implements the plain DP penalty ([Raisa2021] Section 3.1),
// so that its test can demand the built-in sampler's draws, bit for bit.
#pragma once

#include <nlohmann/json.hpp>

#include "run/sampler_descriptors.hpp"
#include "samplers/private_mh_kernel.hpp"

namespace dpmcmc::example {

struct ExamplePenaltyConfig {
  Vec scale;          // proposal sd
  double tau = 0.0;   // noise multiplier τ (the release's σ/Δ is τ n^α)
  double clip = 0.0;  // b: each row's log-likelihood ratio clipped to ±b‖θ′ − θ‖
  double alpha = 0.5;
};

class ExamplePenaltyKernel final : public PrivateMhKernel {
 public:
  ExamplePenaltyKernel(const Model& model, std::unique_ptr<PrivateData> data,
                       ExamplePenaltyConfig config);
  std::string name() const override { return "example-penalty"; }

 private:
  // One llr_sum release, then the penalty test on it (the paper's steps 2 and 3).
  AcceptDecision noisy_test(const NoisyMove& move, Rng& rng, std::span<double> columns) override;

  ExamplePenaltyConfig config_;
  double multiplier_;
};

// The setup: the release template of one iteration and the kernel factory.
PrivateSamplerSetup setup_example_penalty(const std::string& sampler, const nlohmann::json& params,
                                          const Model& model, std::size_t n);

// Its descriptor, as it would stand in sampler_descriptors().
const SamplerDescriptor& example_penalty_descriptor();

}  // namespace dpmcmc::example
