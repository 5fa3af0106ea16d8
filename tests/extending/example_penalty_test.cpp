// docs/extending.md's example sampler, built from its own files (example_penalty.*) and run by the
// generic private job through its descriptor: the same plan, releases and draws as the built-in
// dp-penalty it re-implements, bit for bit, for the same seed and key. If adding a sampler needed
// more than a kernel, a setup and a descriptor, this would not build or would not match.
#include <gtest/gtest.h>

#include <cstring>

#include "example_penalty.hpp"
#include "models/presets.hpp"
#include "privacy/event_json.hpp"
#include "run/private_job.hpp"
#include "run/sampler_params.hpp"

namespace dpmcmc {
namespace {

struct Ran {
  RunResult result;
  std::string releases;
};

Ran run(const SamplerDescriptor& d) {
  const Preset& preset = find_preset("banana-tempered-2d");
  const auto model = preset.make_model();
  const Dataset data = simulate_preset(preset, *model, 3, 5000);
  const nlohmann::json params = sampler_params(preset, d.defaults_entry(), {});
  RunConfig run;
  run.chains = 2;
  run.seed = 9;
  run.progress = ProgressMode::never;
  run.handle_sigint = false;
  SampleSpec spec;
  spec.sampler = d.name;
  spec.epsilon = 2.0;
  NoiseKey::Bytes bytes{};
  bytes[3] = 7;
  spec.noise_key = std::make_shared<const NoiseKey>(NoiseKey::from_bytes(bytes));
  PrivateJob job = prepare_private_job(spec, d, preset, *model, data, params, run);
  Ran r;
  r.result = run_chains(private_kernel_factory(job, *model, data, run), model->param_names(), run);
  r.releases = event_log_state(job.per_owner().front()).dump();
  return r;
}

TEST(ExtendingExample, RunsLikeTheBuiltInSamplerItReimplements) {
  const Ran example = run(example::example_penalty_descriptor());
  const Ran builtin = run(*find_sampler("dp-penalty"));
  ASSERT_TRUE(example.result.complete());
  EXPECT_EQ(example.result.columns, builtin.result.columns);
  ASSERT_EQ(example.result.chains.size(), builtin.result.chains.size());
  for (std::size_t c = 0; c < example.result.chains.size(); ++c) {
    const Mat& a = example.result.chains[c].draws;
    const Mat& b = builtin.result.chains[c].draws;
    ASSERT_EQ(a.rows(), b.rows());
    ASSERT_GT(a.rows(), 10);
    // Bit for bit (lp__ is NaN).
    EXPECT_EQ(std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(a.size())),
              0)
        << "chain " << c;
  }
  EXPECT_EQ(example.releases, builtin.releases);
}

}  // namespace
}  // namespace dpmcmc
