#include "run/runner.hpp"

#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <limits>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "core/state_json.hpp"
#include "run/interrupt.hpp"
#include "run/progress.hpp"
#include "run/start_points.hpp"
#include "samplers/warmup_adapter.hpp"

namespace dpmcmc {

double ChainResult::acceptance_rate() const {
  return samples_done == 0 ? std::numeric_limits<double>::quiet_NaN()
                           : static_cast<double>(samples_accepted) / samples_done;
}

double ChainResult::warmup_acceptance_rate() const {
  return warmup_done == 0 ? std::numeric_limits<double>::quiet_NaN()
                          : static_cast<double>(warmup_accepted) / warmup_done;
}

bool RunResult::complete() const {
  return std::all_of(chains.begin(), chains.end(),
                     [](const ChainResult& c) { return c.status == ChainStatus::completed; });
}

Mat RunResult::param_draws(std::size_t chain_index) const {
  const Mat& d = chains.at(chain_index).draws;
  return d.rightCols(d.cols() - first_param_column);
}

namespace {

using Clock = std::chrono::steady_clock;

std::size_t kept_rows(std::size_t iterations, std::size_t thin) {
  return iterations / thin + (iterations % thin != 0 ? 1 : 0);
}

struct ChainJob {
  int index = 0;
  int id = 0;
  ChainPlan plan;
  std::unique_ptr<Kernel> kernel;
  std::unique_ptr<DrawSink> sink;
  ChainResult result;
  std::exception_ptr error;
  std::atomic<std::size_t> done{0};  // transitions completed, for the progress line
};

// Everything that can end the chains early.
struct StopState {
  bool watch_sigint = false;
  const std::atomic<bool>* external = nullptr;
  std::atomic<bool> failure{false};  // a chain threw: stop the others

  bool failed() const { return failure.load(std::memory_order_relaxed); }
  bool requested() const {
    return (watch_sigint && interrupt_requested()) ||
           (external != nullptr && external->load(std::memory_order_relaxed)) || failed();
  }
};

}  // namespace

void check_kept_draws_fit(int chains, const ChainPlan& plan, std::size_t thin, bool save_warmup,
                          std::size_t columns) {
  if (thin < 1) throw ConfigError("--thin: got 0, expected at least 1");
  const double rows = static_cast<double>(kept_rows(plan.samples, thin)) +
                      (save_warmup ? static_cast<double>(kept_rows(plan.warmup, thin)) : 0.0);
  const double bytes = rows * static_cast<double>(columns) * sizeof(double) * chains;
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  const double memory = pages > 0 && page > 0 ? static_cast<double>(pages) * page : 0.0;
  if (memory > 0.0 && bytes > memory) {
    throw ConfigError(fmt::format(
        "--iter {}, --warmup {}, --thin {}: {} chain(s) would keep {:.3g} draws of {} columns in "
        "memory ({:.3g} GB), more than this machine's {:.3g} GB; expected fewer iterations or a "
        "larger --thin",
        plan.samples, plan.warmup, thin, chains, rows, columns, bytes / 1e9, memory / 1e9));
  }
}

namespace {

void validate(const RunConfig& config) {
  if (config.chains < 1) {
    throw ConfigError(fmt::format("chains: got {}, expected at least 1", config.chains));
  }
  if (config.first_chain < 0) {
    throw ConfigError(fmt::format("first chain id: got {}, expected >= 0", config.first_chain));
  }
  if (config.thin < 1) throw ConfigError("thin: got 0, expected at least 1");
  if (config.target_accept && !(*config.target_accept > 0.0 && *config.target_accept < 1.0)) {
    throw ConfigError(fmt::format("target acceptance: got {}, expected a number in (0, 1)",
                                  *config.target_accept));
  }
  if (config.threads < 0) {
    throw ConfigError(
        fmt::format("threads: got {}, expected >= 1 (or 0 for all cores)", config.threads));
  }
  if (!config.per_chain.empty() &&
      config.per_chain.size() != static_cast<std::size_t>(config.chains)) {
    throw ConfigError(fmt::format("per-chain iteration plan: {} entries for {} chains",
                                  config.per_chain.size(), config.chains));
  }
}

// One chain's transitions, phase by phase: the kernel, its algorithm stream, the row buffer and
// the draws kept in memory and written to the sink.
class ChainLoop {
 public:
  ChainLoop(ChainJob& job, const RunConfig& config, std::size_t columns, int extras, DrawSink& sink,
            StopState& stop, ChainCheckpoint* checkpoint)
      : job_(job),
        config_(config),
        r_(job.result),
        kernel_(*job.kernel),
        sink_(sink),
        stop_(stop),
        checkpoint_(checkpoint),
        rng_(make_rng(config.seed, static_cast<std::uint64_t>(job.id))),
        row_(columns),
        extras_(row_.data() + 2, static_cast<std::size_t>(extras)) {
    const auto ncols = static_cast<Eigen::Index>(columns);
    r_.warmup_draws.resize(
        config.save_warmup ? static_cast<Eigen::Index>(kept_rows(job.plan.warmup, config.thin)) : 0,
        ncols);
    r_.draws.resize(static_cast<Eigen::Index>(kept_rows(job.plan.samples, config.thin)), ncols);
    if (config.adapt && config.target_accept && !kernel_.adaptation()) {
      throw ConfigError(
          fmt::format("--target-accept: sampler '{}' does not adapt (`dpmcmc "
                      "samplers` lists those that do)",
                      kernel_.name()));
    }
    if (auto target = kernel_.adaptation(); config.adapt && target) {
      if (config.target_accept) target->accept = *config.target_accept;
      adapter_.emplace(*target, kernel_.tuning(), job.plan.warmup, config.dense_metric);
    }
  }

  // Warmup, then sampling; sets the chain's status unless it stopped with an exception.
  void run() {
    if (phase(true)) {
      if (!warmup_ended_) {
        sink_.end_warmup();
        warmup_ended_ = true;
      }
      if (phase(false)) r_.status = ChainStatus::completed;
    }
    // The chain's last state: an interrupted or exhausted chain can be resumed from it, and a
    // completed one is not rerun if the process dies before the run's reports are written.
    if (checkpoint_ != nullptr) save_checkpoint();
    trim();
    if (adapter_) r_.tuning = adapter_->tuning();
  }

  // Continues a checkpointed chain: its kernel, stream, counters and kept rows as saved (the rows
  // are passed to the sink again, which rewrites its files from the start).
  void restore(const ChainCheckpoint::Saved& saved) {
    // A damaged state is a data error (65) naming the file, whatever part of it is wrong.
    try {
      load(saved);
    } catch (const DataError& e) {
      throw DataError(fmt::format("{}: {}", checkpoint_->state_path().string(), e.what()));
    } catch (const std::exception& e) {
      throw DataError(fmt::format("{}: not a valid chain state: {}",
                                  checkpoint_->state_path().string(), e.what()));
    }
    job_.done.fetch_add(r_.warmup_done + r_.samples_done, std::memory_order_relaxed);
    // The kept rows again, to the sink's fresh files (the rows file holds them already).
    const Eigen::Index warmup_rows = warmup_rows_;
    warmup_rows_ = 0;
    for (Eigen::Index i = 0; i < saved.rows.rows(); ++i) {
      if (i == warmup_rows && warmup_ended_) sink_.end_warmup();
      const bool warmup = i < warmup_rows;
      Mat& store = warmup ? r_.warmup_draws : r_.draws;
      Eigen::Index& stored = warmup ? warmup_rows_ : sample_rows_;
      store.row(stored++) = saved.rows.row(i);
      row_.assign(saved.rows.row(i).begin(), saved.rows.row(i).end());
      sink_.row(row_);
      ++rows_written_;
    }
    if (warmup_ended_ && saved.rows.rows() == warmup_rows) sink_.end_warmup();
  }
  double wall_before() const { return wall_before_; }
  // Shrinks the kept draws to the rows stored (also after an exception).
  void trim() {
    r_.warmup_draws.conservativeResize(warmup_rows_, r_.warmup_draws.cols());
    r_.draws.conservativeResize(sample_rows_, r_.draws.cols());
  }
  std::size_t rows_written() const { return rows_written_; }

 private:
  // The state's values, each checked against this run's plan before it is used.
  void load(const ChainCheckpoint::Saved& saved) {
    const nlohmann::json& s = saved.state;
    if (state::to_count(s, "chain") != static_cast<std::uint64_t>(job_.id) ||
        state::to_count(s, "columns") != row_.size()) {
      throw DataError("saved for another chain or another sampler");
    }
    const std::size_t thin = config_.thin;
    const std::uint64_t warmup_done = state::to_count(s, "warmup_done");
    const std::uint64_t samples_done = state::to_count(s, "samples_done");
    const std::uint64_t warmup_accepted = state::to_count(s, "warmup_accepted");
    const std::uint64_t samples_accepted = state::to_count(s, "samples_accepted");
    const std::uint64_t warmup_rows = state::to_count(s, "warmup_rows");
    const bool warmup_ended = state::to_flag(s, "warmup_ended");
    const auto rows = static_cast<std::uint64_t>(saved.rows.rows());
    if (warmup_done > job_.plan.warmup || samples_done > job_.plan.samples ||
        warmup_accepted > warmup_done || samples_accepted > samples_done ||
        (warmup_ended && warmup_done != job_.plan.warmup) || (samples_done > 0 && !warmup_ended) ||
        warmup_rows != (config_.save_warmup ? kept_rows(warmup_done, thin) : 0) ||
        rows < warmup_rows || rows - warmup_rows != kept_rows(samples_done, thin)) {
      throw DataError("its counts do not fit this run's plan");
    }
    const int dim = kernel_.dim();
    r_.start = state::to_vec(s, "start", dim);
    kernel_.init(state::to_vec(s, "position", dim));
    kernel_.load_state(state::at(s, "kernel"));
    if (adapter_) {
      adapter_->load_state(state::at(s, "adaptation"));
      // The uninterrupted chain last set this tuning after its latest warmup transition; before
      // the first one it still has its configured tuning, which set_tuning would rebuild through
      // other arithmetic (1/(1/mass)), so it is left alone.
      if (warmup_done > 0) kernel_.set_tuning(adapter_->tuning());
    } else if (s.contains("adaptation")) {
      throw DataError("saved with adaptation, resumed without it");
    }
    state::restore(rng_, state::at(s, "rng"));
    r_.warmup_done = warmup_done;
    r_.samples_done = samples_done;
    r_.warmup_accepted = warmup_accepted;
    r_.samples_accepted = samples_accepted;
    wall_before_ = state::to_double(s, "wall_seconds");
    warmup_rows_ = static_cast<Eigen::Index>(warmup_rows);
    warmup_ended_ = warmup_ended;
  }

  // Runs one phase; returns false when the chain must stop (interrupt or exhausted budget).
  bool phase(bool warmup) {
    const std::size_t n = warmup ? job_.plan.warmup : job_.plan.samples;
    std::size_t& done = warmup ? r_.warmup_done : r_.samples_done;
    std::size_t& accepted = warmup ? r_.warmup_accepted : r_.samples_accepted;
    const bool keep = !warmup || config_.save_warmup;
    while (done < n) {
      const std::size_t i = done;
      if (stop_.requested()) {
        r_.status = ChainStatus::interrupted;
        return false;
      }
      if (kernel_.exhausted()) {
        r_.status = ChainStatus::budget_exhausted;
        return false;
      }
      const TransitionInfo info = kernel_.transition(rng_, extras_);
      ++done;
      if (info.accepted) ++accepted;
      if (warmup && adapter_)
        kernel_.set_tuning(adapter_->observe(i, info.accept_stat, kernel_.position()));
      job_.done.fetch_add(1, std::memory_order_relaxed);
      if (keep && i % config_.thin == 0) keep_row(info, warmup);
      if (checkpoint_ != nullptr && checkpoint_->due(++since_checkpoint_)) save_checkpoint();
    }
    return true;
  }

  // The chain's whole state between two transitions (run/checkpoint.hpp).
  void save_checkpoint() {
    const auto now = std::chrono::steady_clock::now();
    nlohmann::json s = {
        {"format", "dpmcmc chain checkpoint 2"},
        {"chain", job_.id},
        {"columns", row_.size()},
        {"warmup_done", r_.warmup_done},
        {"samples_done", r_.samples_done},
        {"warmup_accepted", r_.warmup_accepted},
        {"samples_accepted", r_.samples_accepted},
        {"warmup_rows", warmup_rows_},
        {"rows", rows_written_},
        {"warmup_ended", warmup_ended_},
        {"wall_seconds",
         state::of(wall_before_ + std::chrono::duration<double>(now - started_).count())},
        {"start", state::of(r_.start)},
        {"position", state::of(kernel_.position())},
        {"rng", state::of(rng_)},
        {"kernel", kernel_.save_state()}};
    if (adapter_) s["adaptation"] = adapter_->save_state();
    checkpoint_->save(s);
    since_checkpoint_ = 0;
  }

  void keep_row(const TransitionInfo& info, bool warmup) {
    row_[0] = info.log_density;
    row_[1] = info.accept_stat;
    const Vec& theta = kernel_.position();
    const std::size_t first = 2 + extras_.size();
    if (static_cast<std::size_t>(theta.size()) != row_.size() - first) {
      throw SoftwareError(fmt::format("{}: position of size {}, expected {}", kernel_.name(),
                                      theta.size(), row_.size() - first));
    }
    std::copy(theta.data(), theta.data() + theta.size(),
              row_.begin() + static_cast<std::ptrdiff_t>(first));
    Mat& store = warmup ? r_.warmup_draws : r_.draws;
    Eigen::Index& stored = warmup ? warmup_rows_ : sample_rows_;
    store.row(stored++) =
        Eigen::Map<const Eigen::RowVectorXd>(row_.data(), static_cast<Eigen::Index>(row_.size()));
    sink_.row(row_);
    if (checkpoint_ != nullptr) checkpoint_->append_row(row_);
    ++rows_written_;
  }

  ChainJob& job_;
  const RunConfig& config_;
  ChainResult& r_;
  Kernel& kernel_;
  DrawSink& sink_;
  StopState& stop_;
  ChainCheckpoint* checkpoint_;  // null: no checkpoints
  Rng rng_;
  std::vector<double> row_;
  std::span<double> extras_;
  Eigen::Index warmup_rows_ = 0, sample_rows_ = 0;
  std::size_t rows_written_ = 0;
  bool warmup_ended_ = false;  // the sink has had end_warmup()
  std::size_t since_checkpoint_ = 0;
  double wall_before_ = 0.0;  // wall time of the chain before it was resumed
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::optional<WarmupAdapter> adapter_;  // with RunConfig::adapt and an adaptable kernel
};

// Records a chain's exception: the chain failed, and the others are asked to stop.
void fail(ChainJob& job, StopState& stop, const std::exception& e) {
  job.result.status = ChainStatus::failed;
  job.result.message = e.what();
  job.error = std::current_exception();
  stop.failure.store(true);
}

ChainEnd chain_end(const ChainJob& job, std::size_t rows_written) {
  const ChainResult& r = job.result;
  ChainEnd end;
  end.chain = job.id;
  end.status = r.status;
  end.warmup_planned = r.warmup_planned;
  end.samples_planned = r.samples_planned;
  end.warmup_done = r.warmup_done;
  end.samples_done = r.samples_done;
  end.rows_written = rows_written;
  end.wall_seconds = r.wall_seconds;
  end.message = r.message;
  return end;
}

void run_one_chain(ChainJob& job, const RunConfig& config, const std::vector<std::string>& columns,
                   int extras, StopState& stop) {
  const auto t0 = Clock::now();
  ChainResult& r = job.result;
  DrawSink null_sink;
  DrawSink& sink = job.sink ? *job.sink : null_sink;
  Kernel& kernel = *job.kernel;
  std::size_t rows_written = 0;
  double wall_before = 0.0;
  bool started = false;
  try {
    sink.header(columns);
    std::unique_ptr<ChainCheckpoint> checkpoint;
    std::optional<ChainCheckpoint::Saved> saved;
    if (config.checkpoint) {
      checkpoint = std::make_unique<ChainCheckpoint>(*config.checkpoint, job.id, columns.size());
      saved = checkpoint->load();
    }
    if (stop.requested()) {
      r.status = ChainStatus::interrupted;
    } else {
      ChainLoop loop(job, config, columns.size(), extras, sink, stop, checkpoint.get());
      if (saved) {
        loop.restore(*saved);  // checks the whole state before any file changes
        checkpoint->begin(static_cast<std::size_t>(saved->rows.rows()));
        saved.reset();
        wall_before = loop.wall_before();
      } else {
        if (checkpoint) checkpoint->begin(0);
        r.start = starting_point(config.init, kernel.dim(), config.init.seed.value_or(config.seed),
                                 job.id, job.index);
        kernel.init(r.start);
      }
      started = true;
      try {
        loop.run();
      } catch (...) {
        rows_written = loop.rows_written();
        try {
          loop.trim();
        } catch (...) {  // keep the chain's own error
        }
        throw;
      }
      rows_written = loop.rows_written();
    }
  } catch (const std::exception& e) {
    fail(job, stop, e);
  }
  if (started) r.final_position = kernel.position();
  r.wall_seconds = wall_before + std::chrono::duration<double>(Clock::now() - t0).count();
  try {
    sink.finish(chain_end(job, rows_written));
  } catch (const std::exception& e) {
    if (!job.error) fail(job, stop, e);
  }
}

// Rethrows a chain's error with the chain's number in front (1-based, as its file chain-K.csv),
// keeping its class (and so its exit code).
[[noreturn]] void rethrow_for_chain(const std::exception_ptr& error, int chain_id) {
  const std::string prefix = fmt::format("chain {}: ", chain_id + 1);
  try {
    std::rethrow_exception(error);
  } catch (const UsageError& e) {
    throw UsageError(prefix + e.what());
  } catch (const DataError& e) {
    throw DataError(prefix + e.what());
  } catch (const NoInputError& e) {
    throw NoInputError(prefix + e.what());
  } catch (const ConfigError& e) {
    throw ConfigError(prefix + e.what());
  } catch (const OutputError& e) {
    throw OutputError(prefix + e.what());
  } catch (const SoftwareError& e) {
    throw SoftwareError(prefix + e.what());
  } catch (const Error& e) {
    throw Error(e.code(), prefix + e.what());
  } catch (const std::exception& e) {
    throw SoftwareError(prefix + "internal error: " + e.what());
  }
}

}  // namespace

namespace {

// Every chain's job, its kernel built on this thread in chain order; the kernels must agree on
// the dimension and the columns, and the parameter names on the dimension.
std::vector<std::unique_ptr<ChainJob>> build_jobs(const KernelFactory& kernels,
                                                  const std::vector<std::string>& param_names,
                                                  const RunConfig& config) {
  std::vector<std::unique_ptr<ChainJob>> jobs;
  for (int i = 0; i < config.chains; ++i) {
    auto job = std::make_unique<ChainJob>();
    job->index = i;
    job->id = config.first_chain + i;
    job->plan = config.per_chain.empty() ? ChainPlan{config.warmup, config.samples}
                                         : config.per_chain[static_cast<std::size_t>(i)];
    job->kernel = kernels(job->id);
    if (!job->kernel)
      throw SoftwareError(fmt::format("kernel factory gave no kernel for chain {}", job->id));
    job->result.chain = job->id;
    job->result.warmup_planned = job->plan.warmup;
    job->result.samples_planned = job->plan.samples;
    jobs.push_back(std::move(job));
  }
  const Kernel& first = *jobs.front()->kernel;
  for (const auto& job : jobs) {
    if (job->kernel->dim() != first.dim() ||
        job->kernel->extra_columns() != first.extra_columns()) {
      throw SoftwareError("kernel factory built chains with different dimensions or columns");
    }
  }
  if (param_names.size() != static_cast<std::size_t>(first.dim())) {
    throw SoftwareError(fmt::format("run_chains: {} parameter names for a kernel of dimension {}",
                                    param_names.size(), first.dim()));
  }
  return jobs;
}

// Runs the jobs on `threads` worker threads (fewer if some cannot start) while this thread draws
// the progress line; returns the number of threads that ran.
int run_jobs(std::vector<std::unique_ptr<ChainJob>>& jobs, const RunConfig& config,
             const std::vector<std::string>& columns, int extras, int threads, StopState& stop) {
  std::size_t planned = 0;
  for (const auto& job : jobs) planned += job->plan.warmup + job->plan.samples;
  std::atomic<int> next{0};
  std::atomic<int> finished{0};
  std::mutex mutex;
  std::condition_variable all_done;
  auto worker = [&] {
    for (;;) {
      const int i = next.fetch_add(1);
      if (i >= config.chains) return;
      run_one_chain(*jobs[static_cast<std::size_t>(i)], config, columns, extras, stop);
      {
        std::lock_guard lock(mutex);
        finished.fetch_add(1);
      }
      all_done.notify_all();
    }
  };
  std::vector<std::thread> pool;
  try {
    for (int t = 0; t < threads; ++t) pool.emplace_back(worker);
  } catch (const std::system_error& e) {
    // Could not start a thread: run with those already started, or fail cleanly if none.
    if (pool.empty()) throw SoftwareError(std::string("cannot start a worker thread: ") + e.what());
  }
  std::optional<ProgressLine> progress;
  if (progress_enabled(config.progress)) progress.emplace(stderr, planned, config.chains);
  auto total_done = [&] {
    std::size_t s = 0;
    for (const auto& job : jobs) s += job->done.load(std::memory_order_relaxed);
    return s;
  };
  {
    std::unique_lock lock(mutex);
    while (!all_done.wait_for(lock, std::chrono::milliseconds(250),
                              [&] { return finished.load() == config.chains; })) {
      if (progress) progress->update(total_done(), finished.load());
    }
  }
  for (auto& t : pool) t.join();
  bool interrupted = false;
  for (const auto& job : jobs) interrupted |= job->result.status == ChainStatus::interrupted;
  if (progress) progress->finish(total_done(), finished.load(), interrupted);
  return static_cast<int>(pool.size());
}

}  // namespace

RunResult run_chains(const KernelFactory& kernels, const std::vector<std::string>& param_names,
                     const RunConfig& config, const RunCallbacks& callbacks) {
  const auto t0 = Clock::now();
  validate(config);
  if (!kernels) throw SoftwareError("run_chains: no kernel factory");
  std::vector<std::unique_ptr<ChainJob>> jobs = build_jobs(kernels, param_names, config);
  const std::vector<std::string> extra = jobs.front()->kernel->extra_columns();
  validate_init(config.init, jobs.front()->kernel->dim(), config.chains);
  for (const auto& job : jobs) {
    check_kept_draws_fit(config.chains, job->plan, config.thin, config.save_warmup,
                         2 + extra.size() + param_names.size());
  }
  if (callbacks.make_sink) {
    for (auto& job : jobs) job->sink = callbacks.make_sink(job->id);
  }

  RunResult result;
  result.columns = {"lp__", "accept_stat__"};
  result.columns.insert(result.columns.end(), extra.begin(), extra.end());
  result.first_param_column = static_cast<int>(result.columns.size());
  result.columns.insert(result.columns.end(), param_names.begin(), param_names.end());
  result.seed = config.seed;
  const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  const int threads = std::min(config.threads == 0 ? cores : config.threads, config.chains);

  StopState stop;
  stop.watch_sigint = config.handle_sigint;
  stop.external = config.stop;
  {
    std::optional<InterruptGuard> guard;
    if (config.handle_sigint) guard.emplace();
    result.threads =
        run_jobs(jobs, config, result.columns, static_cast<int>(extra.size()), threads, stop);
  }
  for (auto& job : jobs) {
    if (job->result.status == ChainStatus::interrupted) result.interrupted = true;
    result.chains.push_back(std::move(job->result));
  }
  for (const auto& job : jobs) {
    if (job->error) rethrow_for_chain(job->error, job->id);
  }
  result.wall_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return result;
}

}  // namespace dpmcmc
