// Statistical run of the default suite (≈ 4 s): the thesis' own DP penalty
// experiment setting ([Raisa2021] Table 5.1 and Section 6.3; docs/references.md)
// on the full-size flat 2-d banana (n = 10⁵, δ = 0.1/n, ε = 6, published τ, proposal sd and clip
// for the plain and the OCU+GWMH variants, 4 chains sharing the budget). The budget allows only
// ≈ 1400 iterations in total, so the chains cannot converge fully (the thesis' Figure 6.3 shows
// MMDs of 0.1–0.5 at this ε); what must hold is that they move toward the posterior: the MMD of
// the kept second halves to exact draws is below the MMD of the starting points to exact draws.
#include <gtest/gtest.h>

#include "diagnostics/mmd.hpp"
#include "models/presets.hpp"
#include "run/sample_job.hpp"
#include "test_noise.hpp"

namespace dpmcmc {
namespace {

TEST(ThesisPenalty, FlatBananaMovesTowardThePosteriorAtEpsilon6) {
  for (const std::string sampler : {"dp-penalty", "dp-penalty-gwmh"}) {
    SampleSpec spec;
    spec.preset = "banana-flat-2d";
    spec.sampler = sampler;
    spec.epsilon = 6.0;
    spec.run.chains = 4;
    spec.run.seed = 12;
    spec.seed_given = true;
    spec.noise_key = std::make_shared<const NoiseKey>(test_noise_key());
    spec.run.progress = ProgressMode::never;
    spec.run.handle_sigint = false;
    spec.out_dir = std::filesystem::temp_directory_path() / ("dpmcmc-long-" + sampler);
    const SampleOutcome out = run_sample_job(spec);
    ASSERT_TRUE(out.mmd.has_value());
    // The starting points: the chains' θ0 against the same exact reference draws.
    const Preset& p = find_preset(spec.preset);
    const auto model = p.make_model();
    const Dataset data = simulate_preset(p, *model, spec.run.seed);
    Rng exact_rng = make_rng(spec.run.seed, 0, Stream::exact);
    const Mat reference = model->sample_posterior(data, spec.reference_draws, exact_rng);
    Mat starts(static_cast<Eigen::Index>(out.run.chains.size()), model->dim());
    for (std::size_t c = 0; c < out.run.chains.size(); ++c) {
      starts.row(static_cast<Eigen::Index>(c)) = out.run.chains[c].start.transpose();
    }
    Rng mmd_rng = make_rng(1, 0);
    const double start_mmd =
        mmd(starts, reference, mmd_rng, {50, out.mmd->bandwidth}).mmd;  // same bandwidth
    ::testing::Test::RecordProperty(sampler + "_mmd", std::to_string(out.mmd->mmd));
    ::testing::Test::RecordProperty(sampler + "_start_mmd", std::to_string(start_mmd));
    EXPECT_LT(out.mmd->mmd, start_mmd) << sampler;
    // Recorded spend = planned, and within the budget, by the planning accountant.
    int composed = 0;
    for (const auto& row : out.report["privacy"]["accountants"]) {
      if (row.contains("skipped")) continue;  // only the planning accountant is composed
      ++composed;
      EXPECT_EQ(row["accountant"], out.report["privacy"]["planned_by"]);
      EXPECT_NEAR(row["recorded_epsilon"].get<double>(), row["planned_epsilon"].get<double>(),
                  1e-9 * row["planned_epsilon"].get<double>());
    }
    EXPECT_EQ(composed, 1) << sampler;
  }
}

}  // namespace
}  // namespace dpmcmc
