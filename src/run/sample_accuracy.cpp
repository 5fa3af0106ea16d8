#include "run/sample_accuracy.hpp"

#include <fmt/format.h>

#include "diagnostics/histogram_kl.hpp"
#include "diagnostics/sample_error.hpp"
#include "io/run_report.hpp"
#include "models/logistic_regression.hpp"
#include "run/private_samplers.hpp"

namespace dpmcmc {

namespace {

using nlohmann::json;

// The most draws the MMD is computed from (its cost is quadratic in their number).
constexpr Eigen::Index kMaxMmdDraws = 5000;
// Exact draws behind the sym_kl histogram (see below).
constexpr std::size_t kSymKlReferenceDraws = 200000;

json against_exact_draws(const SampleSpec& spec, const Model& model, const Dataset& data,
                         const Mat& pooled, std::uint64_t data_seed, std::uint64_t seed,
                         SampleOutcome& out) {
  json accuracy = json::object();
  Rng exact_rng = make_rng(data_seed, 0, Stream::exact);
  const Mat reference = model.sample_posterior(data, spec.reference_draws, exact_rng);
  Rng mmd_rng = make_rng(seed, 0, Stream::exact);
  // The unbiased MMD² is quadratic in the number of draws: beyond kMaxMmdDraws the pooled draws
  // are thinned evenly (a long stochastic-gradient run keeps 10⁶ draws).
  const Eigen::Index pooled_rows = pooled.rows();
  const Eigen::Index stride = (pooled_rows + kMaxMmdDraws - 1) / kMaxMmdDraws;
  const Mat mmd_draws =
      stride <= 1 ? pooled : Mat(pooled(Eigen::seq(0, pooled_rows - 1, stride), Eigen::all));
  out.mmd = mmd(mmd_draws, reference, mmd_rng);
  accuracy["mmd_draws"] = mmd_draws.rows();
  out.mean_error = mean_error(pooled, reference);
  accuracy["reference"] = fmt::format("{} exact posterior draws", spec.reference_draws);
  accuracy["mmd"] = json_number(out.mmd->mmd);
  accuracy["mmd2_unbiased"] = json_number(out.mmd->mmd2);
  accuracy["mmd_bandwidth"] = json_number(out.mmd->bandwidth);
  // The level of a perfect sampler: as many independent exact draws as the sampler's, against
  // the same reference with the same bandwidth (their own stream, so that the reference and
  // sym_kl's draws stay as they were). An MMD within a small multiple of it is at the noise floor.
  Rng baseline_rng = make_rng(data_seed, 1, Stream::exact);
  const Mat exact_sample =
      model.sample_posterior(data, static_cast<std::size_t>(mmd_draws.rows()), baseline_rng);
  out.mmd_baseline = mmd(exact_sample, reference, mmd_rng, MmdOptions{50, out.mmd->bandwidth}).mmd;
  accuracy["mmd_exact_baseline"] = json_number(*out.mmd_baseline);
  accuracy["mean_error"] = json_number(*out.mean_error);
  accuracy["cov_error"] = json_number(cov_error(pooled, reference));
  // DP-Fast MH's metric ([ZhangZhang2023] Section 6.1), defined for two parameters: all kept draws
  // against exact ones, 100 × 100 bins and the header's smoothing, so values compare only at
  // similar numbers of draws. The MMD's reference (10³ draws by default) leaves most of the 10⁴
  // bins empty, so its own histogram noise would dominate (two exact samples of 10³ draws are at
  // sym_kl ≈ 8); a larger reference drawn after it from the same stream keeps the MMD unchanged
  // and puts the reference's share of the value well below the sampler's.
  if (model.dim() == 2) {
    const Mat kl_reference = model.sample_posterior(data, kSymKlReferenceDraws, exact_rng);
    out.sym_kl = symmetric_kl_histogram(pooled, kl_reference);
    accuracy["sym_kl"] = json_number(*out.sym_kl);
    accuracy["sym_kl_bins"] = 100;
    accuracy["sym_kl_reference"] = kSymKlReferenceDraws;
  }
  return accuracy;
}

}  // namespace

json sample_accuracy(const SampleSpec& spec, const Preset& preset, const Model& model,
                     const Dataset& data, const Mat& pooled, std::uint64_t data_seed,
                     std::uint64_t seed, SampleOutcome& out) {
  json accuracy = json::object();
  // On a user's private data the comparison would be an unaccounted, non-private release.
  if (find_private_sampler(spec.sampler) != nullptr && on_callers_rows(spec)) {
    accuracy["skipped"] =
        "private sampler on user data: the exact posterior of private data is not released";
    return accuracy;
  }
  if (pooled.rows() < 2) return accuracy;
  if (spec.accuracy == SampleSpec::Accuracy::off) {
    accuracy["skipped"] = "--accuracy off";
    return accuracy;
  }
  const double cost = model.reference_row_evaluations(data.rows());
  if (spec.accuracy == SampleSpec::Accuracy::automatic &&
      cost > SampleSpec::kAutoReferenceRowEvaluations) {
    accuracy["skipped"] = fmt::format(
        "the exact reference costs {:.3g} likelihood row evaluations (more than the {:.0e} "
        "--accuracy auto allows); --accuracy on computes it",
        cost, SampleSpec::kAutoReferenceRowEvaluations);
    return accuracy;
  }
  if (model.has_exact_posterior()) {
    return against_exact_draws(spec, model, data, pooled, data_seed, seed, out);
  }
  if (preset.load_test_data) {
    // Public held-out rows: the posterior predictive's accuracy is post-processing of the draws.
    const auto* logistic = dynamic_cast<const LogisticRegressionModel*>(&model);
    if (logistic != nullptr) {
      const Dataset test = preset.load_test_data();
      out.test_accuracy = logistic->predictive_accuracy(pooled, test);
      accuracy["reference"] =
          fmt::format("posterior predictive on {} public held-out rows", test.rows());
      accuracy["test_accuracy"] = json_number(*out.test_accuracy);
    }
    return accuracy;
  }
  // A known posterior mean (the circle's origin), or no reference at all (the user's models).
  if (!preset.posterior_mean) return accuracy;
  out.mean_error = mean_error_from_mean(pooled, *preset.posterior_mean);
  accuracy["reference"] = "known posterior mean (origin)";
  accuracy["mean_error"] = json_number(*out.mean_error);
  return accuracy;
}

}  // namespace dpmcmc
