// Checkpoints (run/checkpoint.hpp): every sampler, stopped without warning between two of its
// checkpoints, resumed, stopped again and resumed again, continues bit for bit — the same kept
// draws as the uninterrupted chain and the same recorded releases. The crash is simulated by a draw
// sink that throws: the chain fails at once, so its last checkpoint is the periodic one and the
// rows file holds rows beyond it, as after a SIGKILL (tests/cli/resume_test.cpp kills real
// processes).
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>

#include "core/error.hpp"
#include "data/dataset.hpp"
#include "models/presets.hpp"
#include "privacy/event_json.hpp"
#include "run/checkpoint.hpp"
#include "run/private_job.hpp"
#include "run/private_samplers.hpp"
#include "run/runner.hpp"
#include "run/sample_job.hpp"
#include "run/sampler_descriptors.hpp"
#include "run/sampler_params.hpp"

namespace dpmcmc {
namespace {

using nlohmann::json;

struct Case {
  std::string sampler, model;
  json overrides;
  std::optional<double> epsilon;  // private samplers: a budget for a few dozen iterations
  std::vector<std::string> accountants = {};
  std::optional<std::size_t> n = 2000;  // rows; none: the preset's
  // Warmup adaptation on (with the warmup rows kept, so that the first crash falls in warmup, in
  // the middle of the adapter's only metric window).
  bool adapt = false;
  bool dense = false;  // with adapt: a dense metric
};

// Every sampler (hmc also with the randomised step size, whose Halton sequence is drawn lazily and
// must be saved), on n = 2000 rows (DP-SGLD/SGNHT: the preset's 10⁵, where their per-row step is
// stable), with a budget that `dpmcmc account --sampler S --n N --chains 2` shows to allow 8 to a
// few hundred iterations per chain.
std::vector<Case> all_cases() {
  const json batch = {{"batch_size", 200}};
  return {
      {"rwmh", "banana-tempered-2d", json::object(), std::nullopt},
      {"hmc", "banana-tempered-2d", json::object(), std::nullopt},
      {"hmc", "banana-tempered-2d", {{"randomized_step_size", true}}, std::nullopt},
      {"nuts", "banana-tempered-2d", json::object(), std::nullopt},
      {"nuts", "banana-tempered-2d", json::object(), std::nullopt, {}, 2000, true},
      {"nuts", "banana-tempered-2d", json::object(), std::nullopt, {}, 2000, true, true},
      {"rwmh", "banana-tempered-2d", json::object(), std::nullopt, {}, 2000, true},
      {"hmc", "banana-tempered-2d", json::object(), std::nullopt, {}, 2000, true},
      {"dp-penalty", "banana-tempered-2d", json::object(), 4.0, {}, 2000, true},
      {"dp-fast-mh", "mixture-fastmh-2d", json::object(), 4.0, {}, 2000, true},
      {"dp-hmc", "banana-tempered-2d", json::object(), 8.0, {}, 2000, true},
      {"tunamh", "mixture-fastmh-2d", json::object(), std::nullopt},
      {"dp-penalty", "banana-tempered-2d", json::object(), 4.0},
      {"dp-penalty-ocu", "banana-tempered-2d", json::object(), 4.0},
      {"dp-penalty-gwmh", "banana-tempered-2d", json::object(), 4.0},
      {"dp-penalty-minibatch", "banana-tempered-2d", batch, 8.0, {"rdp"}},
      {"dp-penalty-minibatch-ocu", "banana-tempered-2d", batch, 8.0, {"rdp"}},
      {"dp-penalty-minibatch-gwmh", "banana-tempered-2d", batch, 8.0, {"rdp"}},
      {"dp-penalty-shared", "banana-tempered-2d", {{"owners", 2}}, 4.0},
      {"dp-penalty-expfam", "gauss-box-2d", json::object(), 30.0},
      {"dp-hmc", "banana-tempered-2d", json::object(), 8.0},
      {"dp-barker", "banana-tempered-2d", batch, 4.0},
      {"dp-fast-mh", "mixture-fastmh-2d", json::object(), 4.0},
      {"dp-fast-mh-full", "mixture-fastmh-2d", json::object(), 4.0},
      {"dp-sgld", "banana-dphmc-2d", batch, 0.05, {}, std::nullopt},
      {"dp-sgnht", "banana-dphmc-2d", batch, 0.08, {}, std::nullopt},
  };
}

// A sink that fails after `limit` rows: the chain stops mid-run without a final checkpoint.
class CrashingSink final : public DrawSink {
 public:
  explicit CrashingSink(std::size_t limit) : limit_(limit) {}
  void row(std::span<const double>) override {
    if (++rows_ > limit_) throw SoftwareError("simulated crash");
  }

 private:
  std::size_t limit_, rows_ = 0;
};

// One run of a case: its model, data, plan and (private) job, built afresh each time as a new
// process would.
struct Job {
  const Preset& preset;
  std::unique_ptr<Model> model;
  Dataset data;
  json params;
  RunConfig run;
  std::optional<PrivateJob> priv;
  KernelFactory factory;

  explicit Job(const Case& c) : preset(find_preset(c.model)), model(preset.make_model()) {
    data = simulate_preset(preset, *model, 5, preset.load_data ? std::nullopt : c.n);
    params = sampler_params(preset, c.sampler, c.overrides);
    run.chains = 2;
    run.seed = 11;
    run.warmup = 40;
    run.samples = 60;
    run.progress = ProgressMode::never;
    run.handle_sigint = false;
    run.init.centre = preset.start_centre;  // every chain at the preset's centre
    run.init.spread = 0.0;
    run.adapt = c.adapt;
    run.dense_metric = c.dense;
    run.save_warmup = c.adapt;
    if (const SamplerDescriptor* entry = find_private_sampler(c.sampler)) {
      SampleSpec spec;
      spec.sampler = c.sampler;
      spec.epsilon = c.epsilon;
      spec.accountants = c.accountants;
      NoiseKey::Bytes bytes{};
      bytes[0] = 42;
      spec.noise_key = std::make_shared<const NoiseKey>(NoiseKey::from_bytes(bytes));
      priv.emplace(prepare_private_job(spec, *entry, preset, *model, data, params, run));
      factory = private_kernel_factory(*priv, *model, data, run);
    } else {
      factory = kernel_factory(c.sampler, params, *model, data);
    }
  }

  RunResult go(const RunCallbacks& callbacks = {}) {
    return run_chains(factory, model->param_names(), run, callbacks);
  }
  std::string releases() const {
    return priv ? event_log_state(priv->per_owner().front()).dump() : "";
  }
};

class Checkpoints : public ::testing::TestWithParam<Case> {};

TEST_P(Checkpoints, CrashedAndResumedChainEqualsTheUninterruptedOne) {
  const Case& c = GetParam();
  const auto dir = std::filesystem::temp_directory_path() /
                   ("dpmcmc-checkpoint-test-" + c.sampler + std::to_string(c.overrides.size()) +
                    (c.adapt ? "-adapt" : "") + (c.dense ? "-dense" : ""));
  std::filesystem::remove_all(dir);

  Job reference(c);
  const RunResult want = reference.go();
  const std::size_t rows = static_cast<std::size_t>(want.chains[0].draws.rows());
  ASSERT_GE(rows, 4u) << "too short a run to stop half-way";

  // A crash between two checkpoints (every 3 iterations), after about half the kept rows.
  Job crashed(c);
  crashed.run.checkpoint = CheckpointConfig{dir, 3, 0.0, false};
  RunCallbacks crash;
  crash.make_sink = [rows](int) { return std::make_unique<CrashingSink>(rows / 2 + 1); };
  EXPECT_THROW(crashed.go(crash), SoftwareError);

  // Resumed, and crashed again later (the sink sees the replayed rows too): a second resume must
  // read the rows file as the first left it.
  Job again(c);
  again.run.checkpoint = CheckpointConfig{dir, 3, 0.0, true};
  RunCallbacks later;
  later.make_sink = [rows](int) { return std::make_unique<CrashingSink>(3 * rows / 4 + 1); };
  EXPECT_THROW(again.go(later), SoftwareError);

  Job resumed(c);
  resumed.run.checkpoint = CheckpointConfig{dir, 3, 0.0, true};
  const RunResult got = resumed.go();
  ASSERT_TRUE(got.complete());
  for (std::size_t k = 0; k < want.chains.size(); ++k) {
    const Mat& g = got.chains[k].draws;
    const Mat& w = want.chains[k].draws;
    ASSERT_EQ(g.rows(), w.rows()) << "chain " << k;
    for (Eigen::Index i = 0; i < g.rows(); ++i) {
      // Bit for bit (lp__ is NaN for a private kernel, and NaN != NaN).
      const Eigen::RowVectorXd gi = g.row(i), wi = w.row(i);
      ASSERT_EQ(std::memcmp(gi.data(), wi.data(), sizeof(double) * gi.size()), 0)
          << "chain " << k << ", first differing kept row " << i << " of " << g.rows() << ":\n"
          << g.row(i) << "\n"
          << w.row(i);
    }
    EXPECT_TRUE(got.chains[k].start == want.chains[k].start) << "chain " << k;
    EXPECT_EQ(got.chains[k].samples_accepted, want.chains[k].samples_accepted);
    ASSERT_EQ(got.chains[k].tuning.has_value(), c.adapt);
    if (c.adapt) {
      EXPECT_EQ(got.chains[k].tuning->step, want.chains[k].tuning->step);
      EXPECT_EQ(got.chains[k].tuning->metric, want.chains[k].tuning->metric);
      EXPECT_EQ(got.chains[k].tuning->dense, want.chains[k].tuning->dense);
      EXPECT_EQ(got.chains[k].tuning->dense.size() != 0, c.dense);
    }
  }
  EXPECT_EQ(resumed.releases(), reference.releases());
  std::filesystem::remove_all(dir);
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string name = info.param.sampler + (info.param.overrides.empty() ? "" : "_options") +
                     (info.param.adapt ? "_adapt" : "") + (info.param.dense ? "_dense" : "");
  for (char& ch : name) ch = std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(EverySampler, Checkpoints, ::testing::ValuesIn(all_cases()), case_name);

}  // namespace
}  // namespace dpmcmc
