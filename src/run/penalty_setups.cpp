// Job setup of the DP penalty family (private_samplers.hpp). The release template of one
// iteration is one Gaussian release with multiplier τn^α — the log-likelihood ratio
// ([Raisa2021] Theorems 3.1–3.2) or the sufficient statistic
// ([Yildirim2020] Algorithm 3); the kernels record events with the same multiplier, so
// planned and recorded spends agree.
#include <fmt/format.h>

#include "core/error.hpp"
#include "models/expfam_model.hpp"
#include "models/glm_expfam.hpp"
#include "privacy/iteration_templates.hpp"
#include "run/private_samplers.hpp"
#include "run/sampler_params.hpp"
#include "samplers/dp_penalty.hpp"
#include "samplers/dp_penalty_expfam.hpp"

namespace dpmcmc {

namespace {

PenaltyProposal penalty_proposal(const std::string& sampler) {
  if (sampler == "dp-penalty-ocu") return PenaltyProposal::one_component;
  if (sampler == "dp-penalty-gwmh") return PenaltyProposal::guided_walk;
  return PenaltyProposal::full;
}

DpPenaltyConfig penalty_config(const std::string& sampler, const nlohmann::json& params,
                               const Model& model) {
  DpPenaltyConfig c;
  c.scale = vector_param(params, sampler, "proposal_sd", model.dim());
  c.tau = number_param(params, sampler, "tau");
  c.clip = number_param(params, sampler, "clip");
  c.alpha = number_param(params, sampler, "alpha", 0.5);
  c.proposal = penalty_proposal(sampler);
  return c;
}

}  // namespace

PrivateSamplerSetup setup_dp_penalty(const std::string& sampler, const nlohmann::json& params,
                                     const Model& model, std::size_t n) {
  const DpPenaltyConfig c = penalty_config(sampler, params, model);
  PrivateSamplerSetup setup;
  setup.per_iteration = dp_penalty_template(c.tau, static_cast<double>(n), c.alpha);
  setup.make_kernel = [&model, c](std::unique_ptr<PrivateData> data) {
    return std::make_unique<DpPenaltyKernel>(model, std::move(data), c);
  };
  return setup;
}

PrivateSamplerSetup setup_dp_penalty_shared(const std::string& sampler,
                                            const nlohmann::json& params, const Model& model,
                                            std::size_t n) {
  PrivateSamplerSetup setup = setup_dp_penalty(sampler, params, model, n);
  setup.owners = count_param(params, sampler, "owners");
  // Every owner releases with the multiplier τn^α of the whole data (the same σ as one holder of
  // all n rows), so each owner's per-iteration template is the single-owner one.
  const DpPenaltyConfig c = penalty_config(sampler, params, model);
  setup.make_group_kernel = [&model, c](std::unique_ptr<DataOwner> group) {
    return std::make_unique<DpPenaltyKernel>(model, std::move(group), c);
  };
  return setup;
}

PrivateSamplerSetup setup_dp_penalty_expfam(const std::string& sampler,
                                            const nlohmann::json& params, const Model& model,
                                            std::size_t n) {
  DpPenaltyExpFamConfig c;
  // A linear or normal regression is read through its exponential-family view, which each kernel
  // owns (c.view) and the setup shows to the planner (model_view: its statistic's coordinates).
  if (const auto* glm = dynamic_cast<const GlmModel*>(&model))
    c.view = std::make_shared<const GlmExpFamModel>(*glm);
  const auto* expfam = c.view ? c.view.get() : dynamic_cast<const ExpFamModel*>(&model);
  if (expfam == nullptr) {
    throw UsageError(fmt::format(
        "--sampler {} needs an exponential-family model (presets gauss-box-2d, bernoulli-beta; "
        "--model linear or normal with --schema); '{}' is not one",
        sampler, model.name()));
  }
  c.scale = vector_param(params, sampler, "proposal_sd", model.dim());
  c.tau = number_param(params, sampler, "tau");
  c.alpha = number_param(params, sampler, "alpha", 0.5);
  PrivateSamplerSetup setup;
  setup.model_view = c.view;
  setup.per_iteration = dp_penalty_expfam_template(c.tau, static_cast<double>(n), c.alpha);
  setup.make_kernel = [expfam, c](std::unique_ptr<PrivateData> data) {
    return std::make_unique<DpPenaltyExpFamKernel>(*expfam, std::move(data), c);
  };
  return setup;
}

}  // namespace dpmcmc
