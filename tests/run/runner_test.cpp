#include "run/runner.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <string>
#include <vector>

#include "../samplers/gaussian_test_model.hpp"
#include "core/error.hpp"
#include "samplers/hmc.hpp"
#include "samplers/rwmh.hpp"

namespace dpmcmc {
namespace {

// A deterministic kernel whose draws reveal the runner's bookkeeping: after its k-th transition
// (k = 1, 2, …) the position is (k, u_k) with u_k the k-th uniform of the chain stream, lp__ = −k,
// accept_stat__ = 0.5, it "accepts" every even k, and its extra column step__ is k as well.
// Optionally it runs out of budget after `budget` transitions or throws at transition `fail_at`.
class CountingKernel final : public Kernel {
 public:
  explicit CountingKernel(std::size_t budget = 0, std::size_t fail_at = 0)
      : budget_(budget), fail_at_(fail_at) {}
  std::string name() const override { return "counting"; }
  int dim() const override { return 2; }
  std::vector<std::string> extra_columns() const override { return {"step__"}; }
  void init(const Vec& theta0) override {
    start = theta0;
    pos_ = Vec::Zero(2);
    k_ = 0;
  }
  TransitionInfo transition(Rng& rng, std::span<double> extras) override {
    ++k_;
    if (fail_at_ != 0 && k_ == fail_at_) throw DataError("counting kernel: planned failure");
    pos_ << static_cast<double>(k_), rng.uniform();
    extras[0] = static_cast<double>(k_);
    return TransitionInfo{-static_cast<double>(k_), 0.5, k_ % 2 == 0};
  }
  const Vec& position() const override { return pos_; }
  bool exhausted() const override { return budget_ != 0 && k_ >= budget_; }
  Vec start;

 private:
  std::size_t budget_, fail_at_;
  std::size_t k_ = 0;
  Vec pos_ = Vec::Zero(2);
};

// Records every callback of a chain.
struct Recording {
  std::vector<std::string> columns;
  std::vector<std::vector<double>> rows;
  std::vector<std::string> events;  // "header", "row", "end_warmup", "finish"
  ChainEnd end;
};

class RecordingSink final : public DrawSink {
 public:
  RecordingSink(Recording& rec, std::function<void(std::size_t)> on_row = {})
      : rec_(rec), on_row_(std::move(on_row)) {}
  void header(const std::vector<std::string>& columns) override {
    rec_.columns = columns;
    rec_.events.push_back("header");
  }
  void row(std::span<const double> values) override {
    rec_.rows.emplace_back(values.begin(), values.end());
    rec_.events.push_back("row");
    if (on_row_) on_row_(rec_.rows.size());
  }
  void end_warmup() override { rec_.events.push_back("end_warmup"); }
  void finish(const ChainEnd& end) override {
    rec_.end = end;
    rec_.events.push_back("finish");
  }

 private:
  Recording& rec_;
  std::function<void(std::size_t)> on_row_;
};

RunConfig quiet_config(int chains, std::size_t warmup, std::size_t samples) {
  RunConfig c;
  c.chains = chains;
  c.seed = 17;
  c.warmup = warmup;
  c.samples = samples;
  c.progress = ProgressMode::never;
  c.init.spread = 0.0;
  return c;
}

const std::vector<std::string> kNames = {"a", "b"};

KernelFactory counting(std::size_t budget = 0) {
  return [budget](int) { return std::make_unique<CountingKernel>(budget); };
}

TEST(Runner, ColumnsWarmupAndThinning) {
  RunConfig c = quiet_config(2, 10, 25);
  c.thin = 4;
  std::vector<Recording> rec(2);
  RunCallbacks cb;
  cb.make_sink = [&rec](int id) { return std::make_unique<RecordingSink>(rec[id]); };
  const RunResult r = run_chains(counting(), kNames, c, cb);
  const std::vector<std::string> columns = {"lp__", "accept_stat__", "step__", "a", "b"};
  EXPECT_EQ(r.columns, columns);
  EXPECT_EQ(r.first_param_column, 3);
  EXPECT_FALSE(r.interrupted);
  EXPECT_TRUE(r.complete());
  for (int id = 0; id < 2; ++id) {
    const ChainResult& ch = r.chains[static_cast<std::size_t>(id)];
    EXPECT_EQ(ch.chain, id);
    EXPECT_EQ(ch.status, ChainStatus::completed);
    EXPECT_EQ(ch.warmup_done, 10u);
    EXPECT_EQ(ch.samples_done, 25u);
    EXPECT_EQ(ch.iterations(), 35u);
    // Sampling iterations 0, 4, …, 24 are kept: ⌈25/4⌉ = 7 rows, transitions 11, 15, …, 35.
    ASSERT_EQ(ch.draws.rows(), 7);
    EXPECT_EQ(ch.warmup_draws.rows(), 0);
    for (int k = 0; k < 7; ++k) {
      const double t = 11 + 4 * k;
      EXPECT_EQ(ch.draws(k, 0), -t);
      EXPECT_EQ(ch.draws(k, 1), 0.5);
      EXPECT_EQ(ch.draws(k, 2), t);
      EXPECT_EQ(ch.draws(k, 3), t);
    }
    // Transitions 11 … 35 accept the 12 even ones.
    EXPECT_EQ(ch.samples_accepted, 12u);
    EXPECT_DOUBLE_EQ(ch.acceptance_rate(), 12.0 / 25.0);
    EXPECT_DOUBLE_EQ(ch.warmup_acceptance_rate(), 0.5);
    EXPECT_GE(ch.wall_seconds, 0.0);
    EXPECT_EQ(r.param_draws(static_cast<std::size_t>(id)).cols(), 2);

    const Recording& s = rec[static_cast<std::size_t>(id)];
    EXPECT_EQ(s.columns, columns);
    ASSERT_EQ(s.rows.size(), 7u);
    for (int k = 0; k < 7; ++k) {
      for (int col = 0; col < 5; ++col) {
        EXPECT_EQ(s.rows[static_cast<std::size_t>(k)][static_cast<std::size_t>(col)],
                  ch.draws(k, col));
      }
    }
    EXPECT_EQ(s.events.front(), "header");
    EXPECT_EQ(s.events[1], "end_warmup");
    EXPECT_EQ(s.events.back(), "finish");
    EXPECT_EQ(s.end.status, ChainStatus::completed);
    EXPECT_EQ(s.end.rows_written, 7u);
    EXPECT_EQ(s.end.samples_done, 25u);
  }
}

TEST(Runner, SavedWarmupIsThinnedAndComesFirst) {
  RunConfig c = quiet_config(1, 10, 5);
  c.thin = 4;
  c.save_warmup = true;
  Recording rec;
  RunCallbacks cb;
  cb.make_sink = [&rec](int) { return std::make_unique<RecordingSink>(rec); };
  const RunResult r = run_chains(counting(), kNames, c, cb);
  // Warmup iterations 0, 4, 8 (transitions 1, 5, 9), then sampling 0, 4 (transitions 11, 15).
  ASSERT_EQ(r.chains[0].warmup_draws.rows(), 3);
  ASSERT_EQ(r.chains[0].draws.rows(), 2);
  EXPECT_EQ(r.chains[0].warmup_draws(2, 3), 9.0);
  EXPECT_EQ(r.chains[0].draws(0, 3), 11.0);
  const std::vector<std::string> events = {"header",     "row", "row", "row",
                                           "end_warmup", "row", "row", "finish"};
  EXPECT_EQ(rec.events, events);
  EXPECT_EQ(rec.end.rows_written, 5u);
}

RunResult run_rwmh(const RunConfig& c, const Model& model, const Dataset& data) {
  RwmhConfig rc;
  rc.scale = Vec::Constant(1, 0.3);
  return run_chains([&](int) { return make_rwmh(model, data, rc); }, model.param_names(), c);
}

RunResult run_hmc(const RunConfig& c, const Model& model, const Dataset& data) {
  HmcConfig hc;
  hc.step_size = 0.05;
  hc.steps = 5;
  hc.jitter = StepJitter::halton;
  return run_chains([&](int) { return make_hmc(model, data, hc); }, model.param_names(), c);
}

// Thinning keeps exactly every thin-th draw of the unthinned chain (same seed, same streams).
TEST(Runner, ThinnedChainIsASubsequence) {
  const auto model = testing::standard_model();
  const Dataset data = testing::standard_data(model);
  RunConfig c = quiet_config(1, 7, 30);
  c.init.spread = 1.0;
  const RunResult full = run_rwmh(c, model, data);
  c.thin = 3;
  const RunResult thin = run_rwmh(c, model, data);
  ASSERT_EQ(thin.chains[0].draws.rows(), 10);
  for (int k = 0; k < 10; ++k) {
    EXPECT_EQ(thin.chains[0].draws.row(k), full.chains[0].draws.row(3 * k));
  }
}

// Same seed ⇒ bit-identical draws with 1 or 2 threads (docs/architecture.md), for RWMH and for HMC
// with its stream-drawn Halton randomisation; and chain 2 run alone equals chain 2 of the full run.
TEST(Runner, ThreadsDoNotChangeDraws) {
  const auto model = testing::standard_model();
  const Dataset data = testing::standard_data(model);
  RunConfig c = quiet_config(4, 50, 200);
  c.init.spread = 2.0;
  for (auto run : {&run_rwmh, &run_hmc}) {
    c.threads = 1;
    const RunResult one = run(c, model, data);
    c.threads = 2;
    const RunResult two = run(c, model, data);
    EXPECT_EQ(two.threads, 2);
    for (std::size_t k = 0; k < 4; ++k) {
      ASSERT_EQ(one.chains[k].draws.rows(), 200);
      EXPECT_EQ(one.chains[k].draws, two.chains[k].draws) << "chain " << k;
      EXPECT_EQ(one.chains[k].start, two.chains[k].start);
    }
    EXPECT_NE(one.chains[0].draws, one.chains[1].draws);  // the chains are not copies
    RunConfig alone = c;
    alone.chains = 1;
    alone.first_chain = 2;
    const RunResult single = run(alone, model, data);
    EXPECT_EQ(single.chains[0].chain, 2);
    EXPECT_EQ(single.chains[0].draws, one.chains[2].draws);
  }
}

// Drawn starting points: centre + spread·z with z the first normals of the chain's start stream.
TEST(Runner, StartingPoints) {
  RunConfig c = quiet_config(3, 0, 1);
  c.init.centre = Vec(2);
  c.init.centre << 1.0, -2.0;
  c.init.spread = 0.5;
  const RunResult drawn = run_chains(counting(), kNames, c);
  for (int id = 0; id < 3; ++id) {
    Rng start = make_rng(17, static_cast<std::uint64_t>(id), Stream::start);
    Vec expected(2);
    expected[0] = 1.0 + 0.5 * start.normal();
    expected[1] = -2.0 + 0.5 * start.normal();
    EXPECT_EQ(drawn.chains[static_cast<std::size_t>(id)].start, expected);
  }
  c.init.points = {Vec::Constant(2, 4.0)};
  const RunResult shared = run_chains(counting(), kNames, c);
  for (const auto& ch : shared.chains) EXPECT_EQ(ch.start, Vec::Constant(2, 4.0));
  c.init.points = {Vec::Constant(2, 1.0), Vec::Constant(2, 2.0), Vec::Constant(2, 3.0)};
  const RunResult each = run_chains(counting(), kNames, c);
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(each.chains[static_cast<std::size_t>(k)].start, Vec::Constant(2, k + 1.0));
  }

  RunConfig bad = quiet_config(3, 0, 1);
  bad.init.points = {Vec::Zero(2), Vec::Zero(2)};
  EXPECT_THROW(run_chains(counting(), kNames, bad), ConfigError);
  bad.init.points = {Vec::Zero(3)};
  EXPECT_THROW(run_chains(counting(), kNames, bad), ConfigError);
  bad.init.points = {};
  bad.init.centre = Vec::Zero(3);
  EXPECT_THROW(run_chains(counting(), kNames, bad), ConfigError);
  bad.init.centre = Vec();
  bad.init.spread = -1.0;
  EXPECT_THROW(run_chains(counting(), kNames, bad), ConfigError);
}

// Ctrl-C: a real SIGINT raised from chain 0's sink after its 4th row. The chain stops at its next
// iteration (exactly 4 transitions); with one thread chain 1 never starts, yet both sinks get
// header and finish(interrupted), and the result is flagged interrupted. Afterwards the previous
// SIGINT disposition is back.
TEST(Runner, SigintStopsAllChainsCleanly) {
  struct sigaction before {};
  sigaction(SIGINT, nullptr, &before);
  RunConfig c = quiet_config(2, 0, 100);
  c.threads = 1;
  std::vector<Recording> rec(2);
  RunCallbacks cb;
  cb.make_sink = [&rec](int id) {
    return std::make_unique<RecordingSink>(rec[static_cast<std::size_t>(id)], [id](std::size_t n) {
      if (id == 0 && n == 4) std::raise(SIGINT);
    });
  };
  const RunResult r = run_chains(counting(), kNames, c, cb);
  EXPECT_TRUE(r.interrupted);
  EXPECT_FALSE(r.complete());
  EXPECT_EQ(r.chains[0].status, ChainStatus::interrupted);
  EXPECT_EQ(r.chains[0].samples_done, 4u);
  EXPECT_EQ(r.chains[0].draws.rows(), 4);
  EXPECT_EQ(r.chains[1].status, ChainStatus::interrupted);
  EXPECT_EQ(r.chains[1].iterations(), 0u);
  EXPECT_EQ(r.chains[1].draws.rows(), 0);
  for (const Recording& s : rec) {
    EXPECT_EQ(s.events.front(), "header");
    EXPECT_EQ(s.events.back(), "finish");
    EXPECT_EQ(s.end.status, ChainStatus::interrupted);
  }
  EXPECT_EQ(rec[0].end.rows_written, 4u);
  EXPECT_EQ(rec[0].end.samples_planned, 100u);
  struct sigaction after {};
  sigaction(SIGINT, nullptr, &after);
  EXPECT_EQ(after.sa_handler, before.sa_handler);
}

// The external stop flag, with two threads: every chain stops, none completes its plan of 10^7.
TEST(Runner, StopFlagStopsEveryChain) {
  std::atomic<bool> stop{false};
  RunConfig c = quiet_config(2, 0, 10000000);
  c.threads = 2;
  c.stop = &stop;
  c.handle_sigint = false;
  RunCallbacks cb;
  std::vector<Recording> rec(2);
  cb.make_sink = [&](int id) {
    return std::make_unique<RecordingSink>(rec[static_cast<std::size_t>(id)],
                                           [&stop](std::size_t n) {
                                             if (n == 1000) stop = true;
                                           });
  };
  const RunResult r = run_chains(counting(), kNames, c, cb);
  EXPECT_TRUE(r.interrupted);
  for (const auto& ch : r.chains) {
    EXPECT_EQ(ch.status, ChainStatus::interrupted);
    EXPECT_LT(ch.samples_done, 10000000u);
    EXPECT_EQ(static_cast<std::size_t>(ch.draws.rows()), ch.samples_done);
  }
}

// A kernel out of budget stops its chain before the next transition, keeping its draws.
TEST(Runner, ExhaustedKernelStopsItsChain) {
  RunConfig c = quiet_config(1, 3, 10);
  Recording rec;
  RunCallbacks cb;
  cb.make_sink = [&rec](int) { return std::make_unique<RecordingSink>(rec); };
  const RunResult r = run_chains(counting(5), kNames, c, cb);
  EXPECT_FALSE(r.interrupted);
  EXPECT_FALSE(r.complete());
  EXPECT_EQ(r.chains[0].status, ChainStatus::budget_exhausted);
  EXPECT_EQ(r.chains[0].warmup_done, 3u);
  EXPECT_EQ(r.chains[0].samples_done, 2u);
  EXPECT_EQ(r.chains[0].draws.rows(), 2);
  EXPECT_EQ(rec.end.status, ChainStatus::budget_exhausted);
}

// A budget planner's per-chain iteration counts.
TEST(Runner, PerChainPlans) {
  RunConfig c = quiet_config(2, 100, 100);
  c.per_chain = {{2, 5}, {0, 3}};
  const RunResult r = run_chains(counting(), kNames, c);
  EXPECT_EQ(r.chains[0].warmup_done, 2u);
  EXPECT_EQ(r.chains[0].draws.rows(), 5);
  EXPECT_EQ(r.chains[1].warmup_done, 0u);
  EXPECT_EQ(r.chains[1].draws.rows(), 3);
  EXPECT_TRUE(std::isnan(r.chains[1].warmup_acceptance_rate()));  // 0/0 is no rate
  c.per_chain = {{1, 1}};
  EXPECT_THROW(run_chains(counting(), kNames, c), ConfigError);
}

// A chain that throws stops the others; every sink is finished; the error comes back with its
// class (exit code) and the chain's number as its file has it (id 1 is chain-2.csv: "chain 2").
TEST(Runner, FailingChainIsReportedWithItsId) {
  RunConfig c = quiet_config(2, 0, 1000);
  c.threads = 2;
  std::vector<Recording> rec(2);
  RunCallbacks cb;
  cb.make_sink = [&rec](int id) {
    return std::make_unique<RecordingSink>(rec[static_cast<std::size_t>(id)]);
  };
  KernelFactory failing = [](int id) {
    return std::make_unique<CountingKernel>(0, id == 1 ? 10 : 0);
  };
  try {
    run_chains(failing, kNames, c, cb);
    FAIL() << "expected a DataError";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("chain 2: counting kernel: planned failure"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(rec[1].end.status, ChainStatus::failed);
  EXPECT_EQ(rec[1].end.samples_done, 9u);
  EXPECT_EQ(rec[1].events.back(), "finish");
  EXPECT_EQ(rec[0].events.back(), "finish");
  EXPECT_NE(rec[0].end.status, ChainStatus::failed);
}

TEST(Runner, RejectsBadConfiguration) {
  RunConfig c = quiet_config(0, 1, 1);
  EXPECT_THROW(run_chains(counting(), kNames, c), ConfigError);
  c = quiet_config(1, 1, 1);
  c.thin = 0;
  EXPECT_THROW(run_chains(counting(), kNames, c), ConfigError);
  c = quiet_config(1, 1, 1);
  c.threads = -1;
  EXPECT_THROW(run_chains(counting(), kNames, c), ConfigError);
  c = quiet_config(1, 1, 1);
  c.first_chain = -2;
  EXPECT_THROW(run_chains(counting(), kNames, c), ConfigError);
  c = quiet_config(1, 1, 1);
  EXPECT_THROW(run_chains(counting(), {"only-one"}, c), SoftwareError);
  EXPECT_THROW(run_chains(KernelFactory{}, kNames, c), SoftwareError);
}

}  // namespace
}  // namespace dpmcmc
