// Built-in model presets: the synthetic problems of the reference papers with their published
// settings ([Raisa2021] Table 5.1 and Section 5.2; [RaisaKoskelaHonkela2021] Section 4;
// the hyperparameters the papers' authors ran).
//
// Rules a preset makes explicit:
// - Data: the dataset of a preset under user seed s is
//     preset.make_model()->simulate(preset.true_theta, n, preset_data_rng(s)),
//   preset_data_rng(s) = make_rng(s, 0, Stream::data) (simulate_preset does exactly this). The
//   data stream is tagged apart from every chain's algorithm, noise and start streams.
// - Starting points ([Raisa2021] Section 5.2): centre + N(0, I)·sd, with
//   centre = true θ and sd = the mean over components of the standard deviations of
//   kStartReferenceDraws exact posterior draws (start_deviation, drawn from
//   make_rng(s, 0, Stream::exact)); the circle has no exact sampler and uses centre (0, 1), sd 1.
// - Sampler defaults: `samplers` maps a sampler name to a JSON object of hyperparameters plus a
//   "source" string saying where they come from. Keys by sampler:
//     rwmh                        proposal_sd
//     hmc                         step_size, steps [, randomized_step_size]
//     dp-penalty, dp-penalty-ocu  tau, proposal_sd, clip   (ocu: with OCU and GWMH)
//     dp-penalty-minibatch[-ocu]  tau, proposal_sd, clip, batch_size (noise variance τ·clip²)
//     dp-barker                   proposal_sd, batch_size, noise_variance
//     dp-hmc                      tau_l, tau_g, steps, step_size, clip_l, clip_g, mass
//                                 [, randomized_step_size]
//     dp-sgld                     step_size, clip [, batch_size]
//     dp-sgnht                    step_size, clip, A
//   proposal_sd is per component; step sizes are η; tau are the noise multipliers τ of the
//   papers (noise sd τ√n times the clip bound for the penalty; see each sampler for its own).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/rng.hpp"
#include "core/types.hpp"
#include "data/dataset.hpp"
#include "models/model.hpp"

namespace dpmcmc {

// Exact posterior draws behind a preset's starting deviation (the thesis' reference sample size).
inline constexpr std::size_t kStartReferenceDraws = 1000;

struct Preset {
  std::string name;         // e.g. "banana-flat-2d"
  std::string description;  // one line
  std::size_t n = 0;        // rows of the synthetic dataset
  int dim = 0;              // parameters
  std::function<std::unique_ptr<Model>()> make_model;
  Vec true_theta;  // θ the data are simulated from (circle: (0, 0), the posterior mean; ignored)
  // The posterior mean when it is known exactly without an exact sampler (the circle's origin,
  // [Raisa2021] Section 5.1): the report's mean_error is then measured against it.
  std::optional<Vec> posterior_mean;
  Vec start_centre;
  std::optional<double> start_sd;  // fixed starting deviation; empty: from exact draws
  double delta = 0.0;              // δ = 0.1 / n of the papers' experiments
  std::string source;              // where the model's settings come from
  nlohmann::json samplers;         // sampler name → hyperparameters (see above)
  // sampler name → options of `dpmcmc sample` that this posterior needs for that sampler, used
  // when the command line does not give them: "iter", "warmup" (counts), "target_accept" (in
  // (0, 1), with --adapt true), "metric" ("diag" or "dense", with --adapt true), and "source"
  // (why). A preset whose geometry defeats the generic defaults (a banana whose curvature changes
  // along its arms) says so here instead of leaving every user to find it by trial runs.
  nlohmann::json run_defaults = nlohmann::json::object();
  nlohmann::json experiment;  // the papers' ε grid, repeats and chains, with "source"
  // A fixed public data set instead of simulated data (true_theta is then unknown and unused):
  // the training rows, and held-out rows on which the report evaluates the posterior predictive.
  // Empty for the synthetic presets.
  std::function<Dataset()> load_data;
  std::function<Dataset()> load_test_data;
  // A user model's public declarations (family, coefficients, priors, bounds) for the report;
  // null for the built-in presets.
  nlohmann::json details = nullptr;

  // The model's data column names ("x.1", …, "x.d" or "r").
  std::vector<std::string> data_columns() const;
  // Sampler names with defaults, sorted.
  std::vector<std::string> sampler_names() const;
  // samplers[sampler]; throws UsageError naming the preset and listing the available samplers.
  const nlohmann::json& sampler_defaults(std::string_view sampler) const;
};

// Every preset, in a fixed order (the thesis' Table 5.1 rows, then the DP HMC paper's models).
const std::vector<Preset>& presets();
// The preset called `name`; throws UsageError listing the valid names.
const Preset& find_preset(std::string_view name);
std::vector<std::string> preset_names();

// The generator of a preset's synthetic data under user seed `user_seed`.
Rng preset_data_rng(std::uint64_t user_seed);
// The preset's synthetic dataset: preset.n rows (or `n` when given) simulated from true θ.
// `model` must be the preset's model (or one of the same dimension and data columns). A preset
// with a fixed data set (load_data) returns it; `n` is then refused (UsageError).
Dataset simulate_preset(const Preset& preset, const Model& model, std::uint64_t user_seed,
                        std::optional<std::size_t> n = std::nullopt);
// The starting-point deviation of Section 5.2 given the data: the fixed start_sd when set, else
// the mean component-wise sd of kStartReferenceDraws exact posterior draws from
// make_rng(user_seed, 0, Stream::exact). Throws SoftwareError if the model has no exact sampler
// and the preset no fixed deviation.
double start_deviation(const Preset& preset, const Model& model, const Dataset& data,
                       std::uint64_t user_seed);

// The fixed seed of the 10-d Gaussian's covariance (gauss-10d): make_rng(kGauss10dCovarianceSeed,
// 0, Stream::data) fed to random_eigen_covariance(10, 0.5, ·).
inline constexpr std::uint64_t kGauss10dCovarianceSeed = 1;
Mat gauss_10d_covariance();

}  // namespace dpmcmc
