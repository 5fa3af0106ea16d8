// The sym_kl metric (diagnostics/histogram_kl.hpp; [ZhangZhang2023] Section 6.1) as the
// sampling job and the experiment record it: for a two-parameter model with exact posterior
// draws, the job's value equals the symmetric KL recomputed here from the job's kept draws and
// an independently regenerated reference sample; other models have none; the experiment writes
// it to the sym_kl column only when the spec asks for it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/rng.hpp"
#include "diagnostics/histogram_kl.hpp"
#include "experiment/experiment_runner.hpp"
#include "models/presets.hpp"
#include "run/sample_job.hpp"

namespace dpmcmc {
namespace {

using nlohmann::json;

std::filesystem::path fresh_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("dpmcmc-symkl-test-" + name);
  std::filesystem::remove_all(dir);
  return dir;
}

SampleSpec small_job(const std::string& preset, const std::filesystem::path& out) {
  SampleSpec s;
  s.preset = preset;
  s.n = 2000;
  s.data_seed = 5;
  s.sampler = "rwmh";
  s.run.chains = 2;
  s.run.seed = 6;
  s.seed_given = true;
  s.run.warmup = 50;
  s.run.samples = 150;
  s.run.threads = 1;
  s.run.progress = ProgressMode::never;
  s.reference_draws = 300;
  s.out_dir = out;
  return s;
}

TEST(SymKlMetric, JobRecordsItForTwoParameterModelsOnly) {
  const SampleSpec spec = small_job("banana-flat-2d", fresh_dir("job2d"));
  const SampleOutcome out = run_sample_job(spec);
  ASSERT_TRUE(out.sym_kl.has_value());
  EXPECT_EQ(out.accuracy["sym_kl"].get<double>(), *out.sym_kl);
  EXPECT_EQ(out.accuracy["sym_kl_bins"], 100);

  // Independent recomputation: the kept draws of both chains (parameter columns), and the
  // reference drawn as the job documents it (exact stream of the data seed: the MMD's 300
  // draws, then 2·10⁵ for the histogram).
  Mat pooled(0, 2);
  for (const auto& ch : out.run.chains) {
    Mat grown(pooled.rows() + ch.draws.rows(), 2);
    grown << pooled, ch.draws.rightCols(2);
    pooled = grown;
  }
  ASSERT_EQ(pooled.rows(), 300);
  const Preset& preset = find_preset("banana-flat-2d");
  const auto model = preset.make_model();
  const Dataset data = simulate_preset(preset, *model, 5, std::size_t{2000});
  Rng exact = make_rng(5, 0, Stream::exact);
  const Mat mmd_reference = model->sample_posterior(data, 300, exact);
  const Mat reference = model->sample_posterior(data, 200000, exact);
  EXPECT_EQ(out.accuracy["sym_kl_reference"], 200000);
  EXPECT_DOUBLE_EQ(*out.sym_kl, symmetric_kl_histogram(pooled, reference));
  EXPECT_NE(*out.sym_kl, symmetric_kl_histogram(pooled, mmd_reference));
  EXPECT_GT(*out.sym_kl, 0.0);

  const SampleOutcome ten = run_sample_job(small_job("banana-flat-10d", fresh_dir("job10d")));
  EXPECT_TRUE(ten.mmd.has_value());
  EXPECT_FALSE(ten.sym_kl.has_value());
  EXPECT_FALSE(ten.accuracy.contains("sym_kl"));
}

TEST(SymKlMetric, ExperimentColumnOnlyWhenAskedFor) {
  json d = {{"name", "symkl"},
            {"models", {"banana-flat-2d"}},
            {"samplers", {"rwmh"}},
            {"n", 2000},
            {"iterations", {{"warmup", 30}, {"samples", 60}}},
            {"reference_draws", 200},
            {"metrics", {"mmd", "sym_kl"}},
            {"seed", 3}};
  const auto dir = fresh_dir("exp");
  ExperimentOptions o;
  o.out_dir = dir;
  o.threads = 1;
  run_experiment(parse_experiment_spec(d, "symkl.json", "full"), o);
  auto rows = read_results(dir / "results.csv").rows;
  ASSERT_EQ(rows.size(), 1u);
  const auto kl = rows[0].number("sym_kl", "x");
  ASSERT_TRUE(kl.has_value());
  const json report =
      json::parse(std::ifstream(dir / "cells/banana-flat-2d/rwmh/non-private/rep-1/report.json"));
  EXPECT_DOUBLE_EQ(*kl, report["accuracy"]["sym_kl"].get<double>());

  d["metrics"] = {"mmd"};
  const auto dir2 = fresh_dir("exp2");
  o.out_dir = dir2;
  run_experiment(parse_experiment_spec(d, "symkl.json", "full"), o);
  rows = read_results(dir2 / "results.csv").rows;
  EXPECT_EQ(rows[0].text("sym_kl"), "NA");
  EXPECT_TRUE(rows[0].number("mmd", "x").has_value());
}

}  // namespace
}  // namespace dpmcmc
