#include "example_penalty.hpp"

#include <cmath>

#include "privacy/iteration_templates.hpp"
#include "run/sampler_params.hpp"
#include "samplers/dp_penalty.hpp"

namespace dpmcmc::example {

ExamplePenaltyKernel::ExamplePenaltyKernel(const Model& model, std::unique_ptr<PrivateData> data,
                                           ExamplePenaltyConfig config)
    // One llr_sum release per iteration; columns: the clipped share (curator only, it counts
    // private rows) and the noise sd (a function of public inputs: published).
    : PrivateMhKernel(model, std::move(data), {{ReleaseKind::llr_sum, 1}},
                      {PenaltyProposal::full, {"clip_frac__", "noise_sd__"}, {"noise_sd__"}, 1}),
      config_(std::move(config)),
      multiplier_(config_.tau * std::pow(static_cast<double>(owner().rows()), config_.alpha)) {
  set_scale(config_.scale, "example-penalty proposal sd");
}

AcceptDecision ExamplePenaltyKernel::noisy_test(const NoisyMove& move, Rng& rng,
                                                std::span<double> columns) {
  const ScalarRelease r =
      owner().llr_sum(move.from, move.to, config_.clip * move.step_norm, multiplier_);
  columns[0] = static_cast<double>(r.clipped) / static_cast<double>(r.rows);
  columns[1] = r.noise_sd;
  return penalty_accept(r.value + move.log_prior_ratio, r.noise_sd, rng);
}

PrivateSamplerSetup setup_example_penalty(const std::string& sampler, const nlohmann::json& params,
                                          const Model& model, std::size_t n) {
  ExamplePenaltyConfig c;
  c.scale = vector_param(params, sampler, "proposal_sd", model.dim());
  c.tau = number_param(params, sampler, "tau");
  c.clip = number_param(params, sampler, "clip");
  c.alpha = number_param(params, sampler, "alpha", 0.5);
  PrivateSamplerSetup setup;
  setup.per_iteration = dp_penalty_template(c.tau, static_cast<double>(n), c.alpha);
  setup.make_kernel = [&model, c](std::unique_ptr<PrivateData> data) {
    return std::make_unique<ExamplePenaltyKernel>(model, std::move(data), c);
  };
  return setup;
}

const SamplerDescriptor& example_penalty_descriptor() {
  static const SamplerDescriptor d = {"example-penalty",
                                      "the DP penalty of docs/extending.md",
                                      {"proposal_sd", "tau", "clip", "alpha"},
                                      "dp-penalty",
                                      setup_example_penalty};
  return d;
}

}  // namespace dpmcmc::example
