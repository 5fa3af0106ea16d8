// Presets on real public data: Bayesian logistic regression on two Fashion-MNIST classes after
// PCA to 50 components (003_d4664856a36907c9.txt, Section 6 runs MNIST 7 vs 9 the same way; the
// issue asks for Fashion-MNIST from Debian's dataset-fashion-mnist package, T-shirt/top vs shirt,
// the hard pair). The data are public; they stand in for private records, so the private
// samplers treat the training rows as private and the report's test accuracy (the posterior
// predictive on the official test split) is post-processing of the released draws.
#include <mutex>

#include "data/fashion_mnist.hpp"
#include "models/logistic_regression.hpp"
#include "models/preset_builders.hpp"

namespace dpmcmc {

namespace {

// Loading and PCA take seconds: done once per process, on first use.
const PcaFeatures& fashion_features() {
  static std::once_flag once;
  static PcaFeatures features;
  std::call_once(once, [] { features = load_fashion_mnist(); });
  return features;
}

}  // namespace

void add_real_data_presets(std::vector<Preset>& all) {
  Preset p;
  p.name = "logistic-fashion-mnist";
  p.description =
      "logistic regression, Fashion-MNIST T-shirt/top vs shirt, PCA-50 features scaled to "
      "norm <= 1, prior N(0, 10^2 I), n = 12000 (official training split)";
  p.n = 12000;
  p.dim = 50;
  p.make_model = [] {
    return std::make_unique<LogisticRegressionModel>(LogisticRegressionModel::Params{});
  };
  p.load_data = [] { return fashion_features().train; };
  p.load_test_data = [] { return fashion_features().test; };
  p.true_theta = Vec::Zero(50);
  p.start_centre = Vec::Zero(50);
  p.start_sd = 0.1;
  p.delta = 1e-5;  // 003_d4664856a36907c9.txt, Section 6
  p.source =
      "003_d4664856a36907c9.txt Section 6 (MNIST 7 vs 9, PCA-50); here Fashion-MNIST "
      "(dataset-fashion-mnist), classes 0 vs 6";
  p.experiment = {{"epsilons", {1, 2, 4, 8}},
                  {"chains", 4},
                  {"chains_share_budget", true},
                  {"burn_in_fraction", 0.5},
                  {"metric", "test accuracy of the posterior predictive"},
                  {"source", "issue 7 (budgets 1, 2, 4, 8 at delta 1e-5)"}};
  p.samplers = {
      {"rwmh",
       {{"proposal_sd", 0.12}, {"source", "our choice: acceptance ~ 0.3 (0.70 at sd 0.05)"}}},
      // TunaMH needs a per-row bound: c_i = ‖x_i‖ ≤ 1 (models/logistic_regression.hpp).
      {"tunamh",
       {{"proposal_sd", 0.02},
        {"lambda", 10.0},
        {"source", "003_d4664856a36907c9.txt Section 6 (lambda 10); proposal sd our choice"}}},
      {"hmc",
       {{"step_size", 0.07},
        {"steps", 10},
        {"source", "our choice: acceptance 0.97 at 0.05, divergent at 0.1"}}},
      // |Δ log p| ≤ ‖x‖‖Δθ‖ ≤ ‖Δθ‖ for rows of norm ≤ 1: clip bound 1 never clips.
      {"dp-penalty",
       {{"tau", 0.1},
        {"proposal_sd", 0.01},
        {"clip", 1.0},
        {"source", "our choice: clip 1 is the exact per-row bound (no clipping)"}}},
      // ‖∇ log p(y|x, θ)‖ = |y − σ(xᵀθ)|‖x‖ < 1 as well: clip_g = 1 never clips either.
      {"dp-hmc",
       {{"tau_l", 0.1},
        {"tau_g", 0.4},
        {"steps", 10},
        {"step_size", 0.05},
        {"clip_l", 1.0},
        {"clip_g", 1.0},
        {"mass", 1.0},
        {"source",
         "our choice: the thesis' flat-banana noise multipliers; clip bounds 1 are exact for "
         "rows of norm <= 1; step as the hmc default"}}},
      // 003 Section 6 runs ε = 0.05 per iteration, λ = 10, K = 225 on MNIST; the step is ours
      // (its published 4.3e-4 belongs to its own feature scaling). δ per iteration is chosen
      // small so that composing a few thousand iterations stays within δ = 1e-5.
      {"dp-fast-mh",
       {{"proposal_sd", 0.02},
        {"epsilon", 0.05},
        {"delta", 1e-9},
        {"lambda", 10.0},
        {"max_batch", 225},
        {"source",
         "003_d4664856a36907c9.txt Section 6 (eps 0.05 per iteration, lambda 10, K 225); "
         "proposal sd and per-iteration delta our choice"}}}};
  all.push_back(std::move(p));
}

}  // namespace dpmcmc
