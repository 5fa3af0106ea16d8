// An interrupted sampling job (RunConfig::stop set): `dpmcmc sample` still summarises what it
// drew and writes a report marked "interrupted"; with SampleSpec::diagnose_incomplete = false
// (the experiment runner's setting, experiment/experiment_cell.cpp) the job returns right after
// sampling, with no summary, no metric and no report.json.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>

#include "run/sample_job.hpp"

namespace dpmcmc {
namespace {

SampleSpec stopped_job(const std::filesystem::path& out, const std::atomic<bool>* stop) {
  SampleSpec s;
  s.preset = "banana-flat-2d";
  s.n = 500;
  s.sampler = "rwmh";
  s.run.chains = 2;
  s.run.seed = 3;
  s.seed_given = true;
  s.run.warmup = 10;
  s.run.samples = 10'000'000;  // never reached: the flag is set before the first iteration
  s.run.threads = 1;
  s.run.progress = ProgressMode::never;
  s.run.stop = stop;
  s.reference_draws = 50;
  s.write_draws = false;
  s.out_dir = out;
  return s;
}

TEST(SampleJobInterrupt, DiagnosticsOfAnIncompleteRunAreOptional) {
  const std::atomic<bool> stop{true};
  const auto base = std::filesystem::temp_directory_path() / "dpmcmc-sample-interrupt-test";
  std::filesystem::remove_all(base);

  const SampleOutcome kept = run_sample_job(stopped_job(base / "diagnosed", &stop));
  EXPECT_FALSE(kept.run.complete());
  EXPECT_TRUE(std::filesystem::exists(base / "diagnosed" / "report.json"));
  EXPECT_EQ(kept.report["status"], "interrupted");

  SampleSpec spec = stopped_job(base / "skipped", &stop);
  spec.diagnose_incomplete = false;
  const SampleOutcome skipped = run_sample_job(spec);
  EXPECT_FALSE(skipped.run.complete());
  EXPECT_FALSE(std::filesystem::exists(base / "skipped" / "report.json"));
  EXPECT_TRUE(skipped.report.is_null());
  EXPECT_TRUE(skipped.summary.parameters.empty());
  EXPECT_FALSE(skipped.mmd.has_value());
}

}  // namespace
}  // namespace dpmcmc
