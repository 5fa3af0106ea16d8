// The accuracy of a sampling job's kept draws against what is known of the posterior: exact
// posterior draws where the model has them (MMD, mean and covariance error, and for two
// parameters the histogram symmetric KL of [ZhangZhang2023] Section 6.1), the posterior
// predictive on a preset's public held-out rows, or the known posterior mean (the circle). An
// evaluation tool for synthetic data: computed from the data without noise, so a private run
// keeps it in the curator's report, and on a user's private data it is not computed at all.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>

#include "core/types.hpp"
#include "data/dataset.hpp"
#include "models/model.hpp"
#include "models/presets.hpp"
#include "run/sample_job.hpp"

namespace dpmcmc {

// The accuracy section of the report, and the metrics in `out` (mmd, mean_error, sym_kl,
// test_accuracy). `pooled`: the kept draws of every chain, one row per draw. The exact draws come
// from the data seed's exact stream, the MMD's permutations from the run seed's.
nlohmann::json sample_accuracy(const SampleSpec& spec, const Preset& preset, const Model& model,
                               const Dataset& data, const Mat& pooled, std::uint64_t data_seed,
                               std::uint64_t seed, SampleOutcome& out);

}  // namespace dpmcmc
