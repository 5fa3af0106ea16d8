#include "run/minibatch_setup.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/error.hpp"
#include "privacy/minibatch_templates.hpp"
#include "run/sampler_params.hpp"
#include "samplers/dp_penalty_minibatch.hpp"

namespace dpmcmc {

namespace {

PenaltyProposal minibatch_proposal(const std::string& sampler) {
  if (sampler == "dp-penalty-minibatch-ocu") return PenaltyProposal::one_component;
  if (sampler == "dp-penalty-minibatch-gwmh") return PenaltyProposal::guided_walk;
  return PenaltyProposal::full;
}

}  // namespace

PrivateSamplerSetup setup_dp_penalty_minibatch(const std::string& sampler,
                                               const nlohmann::json& params, const Model& model,
                                               std::size_t n) {
  DpPenaltyMinibatchConfig c;
  c.scale = vector_param(params, sampler, "proposal_sd", model.dim());
  c.tau = number_param(params, sampler, "tau");
  c.clip = number_param(params, sampler, "clip");
  c.batch = static_cast<std::size_t>(count_param(params, sampler, "batch_size"));
  c.proposal = minibatch_proposal(sampler);
  if (c.batch > n) {
    throw ConfigError(
        fmt::format("sampler '{}': --batch (batch size b) is {}, expected 1 ≤ b ≤ n "
                    "= {} rows of the data",
                    sampler, c.batch, n));
  }
  // The release's sensitivity grows with the square of clip × step (privacy/private_data.cpp):
  // a clip bound for which it overflows at a unit step would fail in every chain's first
  // releases instead of here.
  if (!std::isfinite(minibatch_penalty_sensitivity(static_cast<double>(n), model.temperature(),
                                                   c.batch, c.clip))) {
    throw ConfigError(fmt::format(
        "sampler '{}': --clip {} makes the minibatch sensitivity 2aβ + 2a²(b−1)β²/b overflow "
        "(n = {}, batch size {}, tempering {}); expected a smaller clip bound",
        sampler, c.clip, n, c.batch, model.temperature()));
  }
  PrivateSamplerSetup setup;
  setup.per_iteration = dp_penalty_minibatch_template(c.tau, c.batch, n);
  setup.make_kernel = [&model, c](std::unique_ptr<PrivateData> data) {
    return std::make_unique<DpPenaltyMinibatchKernel>(model, std::move(data), c);
  };
  return setup;
}

}  // namespace dpmcmc
