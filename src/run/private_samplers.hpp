// The private samplers the job knows (one general mechanism instead of a branch per sampler):
// each entry turns the sampler's hyperparameters into
//   * the release template of one iteration (what the planner composes k times), and
//   * a factory that builds a chain's kernel around the chain's PrivateData,
// and the job does the rest the same way for all of them: plan k from the budget, give each
// chain a PrivateData whose allowance is its share of k times the template's releases per label,
// record, report planned beside recorded. The entries are the private samplers' descriptors
// (sampler_descriptors.hpp); adding a sampler is one descriptor and one setup function.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "data/dataset.hpp"
#include "models/model.hpp"
#include "models/presets.hpp"
#include "privacy/data_owner.hpp"
#include "privacy/privacy_event.hpp"
#include "privacy/private_data.hpp"
#include "samplers/private_kernel.hpp"

namespace dpmcmc {

struct PrivateSamplerSetup {
  // Releases of one iteration (normalised, Δ = 1). With several data owners: of each owner.
  std::vector<PrivacyEvent> per_iteration;
  // The largest sensitivity of the release kinds whose Δ the hyperparameters fix (a gradient clip
  // bound): a release of such a kind with a larger Δ is refused (release_allowance.hpp).
  std::map<ReleaseKind, double> sensitivity_caps;
  std::function<std::unique_ptr<PrivateKernel>(std::unique_ptr<PrivateData>)> make_kernel;
  // Data sharing ([Yildirim2020] Algorithm 2): the rows are split among `owners`
  // parties, each with its own PrivateData, noise stream and event log, joined in an OwnerGroup
  // that make_group_kernel receives instead of make_kernel's single PrivateData.
  std::size_t owners = 1;
  std::function<std::unique_ptr<PrivateKernel>(std::unique_ptr<DataOwner>)> make_group_kernel;
  // A view of the run's model that the kernels read in its place (dp-penalty-expfam on a
  // regression family: models/glm_expfam.hpp; each kernel also owns it); null when they read the
  // run's model. Its statistic counts in release_coordinates.
  std::shared_ptr<const Model> model_view;
};

// Builds the setup from the sampler's parameters (sampler_params.hpp), the model and the public
// number of rows n. UsageError for a missing or malformed parameter, ConfigError for a value out
// of range or a model the sampler cannot use.
using PrivateSamplerBuilder = PrivateSamplerSetup (*)(const std::string& sampler,
                                                      const nlohmann::json& params,
                                                      const Model& model, std::size_t n);

struct SamplerDescriptor;  // sampler_descriptors.hpp
// The descriptor of a private sampler; nullptr when `name` is not one (sampler_descriptors.cpp).
const SamplerDescriptor* find_private_sampler(const std::string& name);

// The allowance of a chain that may run `iterations` iterations of the setup's template: one
// slot per template event, iterations × its count, calibrated as the event, capped as the setup
// says.
ReleaseAllowance allowance_for(const PrivateSamplerSetup& setup, std::uint64_t iterations);

// The most coordinates one release of `model` (or of the setup's model view) noises (the
// planner's release_coordinates): a gradient's d, or an exponential family's statistic dimension.
std::size_t release_coordinates(const Model& model, const PrivateSamplerSetup& setup);

// The δ a private run uses when the user gives none: the preset's (its paper's choice) for the
// preset's own data of the preset's size, else the papers' rule 0.1/n for the n rows used.
double default_delta(const Preset& preset, std::size_t rows, bool preset_data);

// The rows of owner i of `owners` (contiguous blocks, sizes differing by at most one).
// ConfigError naming --owners unless 1 ≤ owners ≤ n.
std::vector<Dataset> owner_shards(const Dataset& data, std::size_t owners);

// Setup functions, one per family (penalty_setups.cpp, …).
PrivateSamplerSetup setup_dp_penalty(const std::string& sampler, const nlohmann::json& params,
                                     const Model& model, std::size_t n);
PrivateSamplerSetup setup_dp_penalty_shared(const std::string& sampler,
                                            const nlohmann::json& params, const Model& model,
                                            std::size_t n);
PrivateSamplerSetup setup_dp_penalty_expfam(const std::string& sampler,
                                            const nlohmann::json& params, const Model& model,
                                            std::size_t n);

}  // namespace dpmcmc
