// Presets on real public data: Bayesian logistic regression on two Fashion-MNIST classes after
// PCA to 50 components ([ZhangZhang2023] Section 6 runs MNIST 7 vs 9 the same way; the
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
  p.delta = 1e-5;  // [ZhangZhang2023] Section 6
  p.source =
      "[ZhangZhang2023] Section 6 (MNIST 7 vs 9, PCA-50); here Fashion-MNIST "
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
        {"source", "[ZhangZhang2023] Section 6 (lambda 10); proposal sd our choice"}}},
      // Randomized step: with a fixed one the chains oscillate (seed 1, defaults: R-hat 1.100,
      // bulk-ESS 25; randomized: R-hat 1.004, bulk-ESS 3135).
      {"hmc",
       {{"step_size", 0.07},
        {"steps", 10},
        {"randomized_step_size", true},
        {"source", "our choice: acceptance 0.97 at 0.05, divergent at 0.1; randomized step"}}},
      // Hyperparameters of the private samplers: the tuning search of
      // experiments/results/fashion-full/README.md ("Tuning search", ε = 4, δ = 1e-5, 2 chains,
      // seed 7). At n = 12 000 a noise multiplier of 0.1 leaves ~50 iterations per chain at ε = 4;
      // 0.3 leaves ~450 and tests best.
      // |Δ log p| ≤ ‖x‖‖Δθ‖ ≤ ‖Δθ‖ for rows of norm ≤ 1, so clip 1 is exact; 0.3 clipped no row
      // in the search and its noise is 3.3 times smaller.
      {"dp-penalty",
       {{"tau", 0.3},
        {"proposal_sd", 0.003},
        {"clip", 0.3},
        {"source", "our tuning search at eps 4 (docs/experiments.md, Fashion-MNIST)"}}},
      // The gradient noise sd is 2·clip_g·τ_g·√n per coordinate: with clip_g = 1 it swamps a
      // leapfrog step (acceptance 0 in all 24 settings tried). clip_g = 0.01 clips almost every
      // row's gradient (a rescaled direction; the accept step corrects it), and the short
      // trajectory keeps ‖Δθ‖, hence the log-likelihood-ratio noise 2·clip_l·τ_l·√n·‖Δθ‖, small.
      {"dp-hmc",
       {{"tau_l", 0.3},
        {"tau_g", 1.0},
        {"steps", 3},
        {"step_size", 0.002},
        {"clip_l", 0.3},
        {"clip_g", 0.01},
        {"mass", 1.0},
        {"source", "our tuning search at eps 4 (docs/experiments.md, Fashion-MNIST)"}}},
      // [ZhangZhang2023]'s Barker baseline on MNIST (its settings are not published): the minibatch
      // of 100 of the DP Barker paper's experiments, its noise variance 2, DP penalty's step. At
      // n = 12 000 the batch's log-ratio estimate varies far more than the test's normal
      // correction allows, so the test is close to a coin flip (acceptance 0.49-0.53 at steps
      // 0.001 and 0.003, ε = 4, seed 1); batches of 1000 leave 22 iterations per chain at ε = 4.
      {"dp-barker",
       {{"proposal_sd", 0.003},
        {"batch_size", 100},
        {"noise_variance", 2.0},
        {"source",
         "our choice for [ZhangZhang2023] Section 6's Barker baseline (settings unpublished): "
         "batch 100 and noise variance 2 as the DP Barker paper, DP penalty's step"}}},
      // [ZhangZhang2023] Section 6 runs ε = 0.05 per iteration, λ = 10, K = 225 on MNIST. Composed
      // over a whole run, 0.05 leaves 172 iterations per chain at a total ε = 4; 0.01 leaves ~3 800
      // and, with the full-batch variant, moves. The minibatch variant's noise (Lemma 1: sd ≈ 13
      // here) rejects every proposal at any step we tried. δ per iteration 1e-10 keeps the
      // composed δ within 1e-5 up to ε = 8 (~27 000 iterations).
      {"dp-fast-mh",
       {{"proposal_sd", 3e-4},
        {"epsilon", 0.01},
        {"delta", 1e-10},
        {"lambda", 10.0},
        {"max_batch", 225},
        {"source",
         "[ZhangZhang2023] Section 6 (lambda 10, K 225); eps and delta per iteration "
         "and proposal sd from our tuning search (docs/experiments.md, Fashion-MNIST)"}}}};
  all.push_back(std::move(p));
}

}  // namespace dpmcmc
