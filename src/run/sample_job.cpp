#include "run/sample_job.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "core/error.hpp"
#include "data/csv_loader.hpp"
#include "diagnostics/histogram_kl.hpp"
#include "diagnostics/sample_error.hpp"
#include "io/run_report.hpp"
#include "models/expfam_model.hpp"
#include "models/logistic_regression.hpp"
#include "privacy/owner_group.hpp"
#include "privacy/private_data.hpp"
#include "privacy/spend_meter.hpp"
#include "run/csv_draw_sink.hpp"
#include "run/curator_files.hpp"
#include "run/kept_draws.hpp"
#include "run/private_samplers.hpp"
#include "run/sampler_params.hpp"
#include "samplers/hmc.hpp"
#include "samplers/rwmh.hpp"
#include "samplers/tunamh.hpp"

namespace dpmcmc {
namespace {

using nlohmann::json;

// The most draws the MMD is computed from (its cost is quadratic in their number).
constexpr Eigen::Index kMaxMmdDraws = 5000;
// Exact draws behind the sym_kl histogram (see the metric below).
constexpr std::size_t kSymKlReferenceDraws = 200000;

// The privacy section of the report: planned vs recorded for owner 1 (the whole data set unless
// it is shared), and with several owners one entry per owner — its rows and its recorded spend by
// the accountant that certified the plan (each owner's guarantee is about its own rows).
json owners_privacy_report(const PrivateRunPlan& plan, const std::vector<EventLog>& per_owner,
                           const std::vector<Dataset>& shards, PlanMemo* memo) {
  json report = privacy_report(plan, per_owner.empty() ? EventLog{} : per_owner.front(), memo);
  if (shards.empty()) return report;
  json owners = json::array();
  for (std::size_t i = 0; i < per_owner.size(); ++i) {
    owners.push_back({{"owner", i + 1},
                      {"rows", shards[i].rows()},
                      {"releases", per_owner[i].releases()},
                      {"recorded_epsilon", json_number(composed_epsilon(
                                               plan.tightest.best.accountant, per_owner[i].events(),
                                               plan.accountant_delta, plan.options))}});
  }
  report["owners"] = owners;
  report["note_owners"] =
      "data sharing (004 Algorithm 2): each owner adds its own noise with the single-owner sigma, "
      "so each owner's rows have the planned guarantee against all other parties";
  return report;
}

// The kernel's sampler columns, and where each goes: every column of a non-private kernel is
// published (it keeps no boundary); a private kernel publishes only its publishable_columns(),
// the others are the curator's (DESIGN.md §5).
struct ColumnSplit {
  std::vector<std::string> all, published, curator;
  std::vector<std::size_t> published_at, curator_at;
};

ColumnSplit split_columns(const KernelFactory& factory, bool private_run) {
  const auto kernel = factory(0);
  ColumnSplit c;
  c.all = kernel->extra_columns();
  const auto pub = kernel->publishable_columns();
  for (std::size_t i = 0; i < c.all.size(); ++i) {
    const bool ok = !private_run || std::find(pub.begin(), pub.end(), c.all[i]) != pub.end();
    (ok ? c.published : c.curator).push_back(c.all[i]);
    (ok ? c.published_at : c.curator_at).push_back(i);
  }
  return c;
}

// The summary rows of `names` only.
Summary summary_of(const Summary& all, const std::vector<std::string>& names, bool keep) {
  Summary out = all;
  out.parameters.clear();
  for (const auto& p : all.parameters) {
    if ((std::find(names.begin(), names.end(), p.name) != names.end()) == keep)
      out.parameters.push_back(p);
  }
  return out;
}

}  // namespace

KernelFactory kernel_factory(const std::string& sampler, const json& params, const Model& model,
                             const Dataset& data) {
  const int d = model.dim();
  if (sampler == "rwmh") {
    RwmhConfig config;
    config.scale = vector_param(params, sampler, "proposal_sd", d);
    // The clipping study (002 Section 6.2): absent = the exact kernel.
    if (params.contains("clip")) config.clip = number_param(params, sampler, "clip");
    return [&model, &data, config](int) { return make_rwmh(model, data, config); };
  }
  if (sampler == "hmc") {
    HmcConfig config;
    config.step_size = number_param(params, sampler, "step_size");
    config.steps = static_cast<int>(number_param(params, sampler, "steps"));
    if (params.contains("mass")) config.mass = vector_param(params, sampler, "mass", d);
    if (bool_param(params, sampler, "randomized_step_size", false))
      config.jitter = StepJitter::halton;
    if (params.contains("clip")) config.clip = number_param(params, sampler, "clip");
    return [&model, &data, config](int) { return make_hmc(model, data, config); };
  }
  if (sampler == "tunamh") {
    TunaMhConfig config;
    config.scale = vector_param(params, sampler, "proposal_sd", d);
    config.lambda = number_param(params, sampler, "lambda", config.lambda);
    return [&model, &data, config](int) { return make_tunamh(model, data, config); };
  }
  throw UsageError(fmt::format("--sampler: unknown sampler '{}'; available: {}", sampler,
                               fmt::join(sampler_names(), ", ")));
}

std::vector<std::string> sampler_names() {
  std::vector<std::string> names = {"rwmh", "hmc", "tunamh"};
  for (const auto& e : private_samplers()) names.push_back(e.name);
  return names;
}

bool is_private_sampler(const std::string& sampler) {
  return find_private_sampler(sampler) != nullptr;
}

SampleOutcome run_sample_job(const SampleSpec& spec) {
  // A hyperparameter the sampler does not read would be ignored: refused instead, before the data
  // are loaded.
  check_sampler_keys(spec.sampler, spec.overrides);
  const Preset& preset = find_preset(spec.preset);
  const auto model = preset.make_model();
  const std::uint64_t data_seed = spec.data_seed.value_or(spec.run.seed);

  Dataset data;
  std::string data_source;
  if (spec.data_file) {
    CsvOptions options;
    options.expected_columns = preset.data_columns();
    options.model_name = preset.name;
    data = load_csv(*spec.data_file, options);
    data_source = spec.data_file->string();
  } else {
    data = simulate_preset(preset, *model, data_seed, spec.n);
    data_source =
        preset.load_data
            ? fmt::format("preset '{}' data set ({})", preset.name, data.source)
            : fmt::format("simulated from preset '{}' with data seed {}", preset.name, data_seed);
  }

  const json params = sampler_params(preset, spec.sampler, spec.overrides);
  RunConfig run = spec.run;
  SampleOutcome out;
  KernelFactory factory;
  // Event logs per chain and data owner (one owner unless the sampler shares the data).
  std::vector<std::vector<EventLog>> logs(static_cast<std::size_t>(run.chains));
  std::vector<Dataset> shards;
  std::optional<NoiseKey> noise_key;
  if (const PrivateSamplerEntry* entry = find_private_sampler(spec.sampler)) {
    if (!spec.epsilon)
      throw UsageError(fmt::format("--epsilon: sampler '{}' is private and needs a privacy budget",
                                   spec.sampler));
    const Budget budget{*spec.epsilon, spec.delta.value_or(default_delta(
                                           preset, data.rows(), !spec.data_file.has_value()))};
    check_epsilon(budget.epsilon, "--epsilon");
    check_delta(budget.delta, "--delta");
    if (!(spec.warmup_fraction >= 0.0 && spec.warmup_fraction < 1.0)) {
      throw UsageError(fmt::format("--warmup-fraction: expected a number in [0, 1), got {}",
                                   spec.warmup_fraction));
    }
    PrivateSamplerSetup setup = entry->build(spec.sampler, params, *model, data.rows());
    // The owners' shares are checked before planning (an impossible split is an input error).
    if (setup.owners > 1) shards = owner_shards(data, setup.owners);
    out.plan = plan_private_run(budget, setup.per_iteration, run.chains, spec.accountants, {},
                                release_coordinates(*model), spec.plan_memo.get());
    run.per_chain.clear();
    for (const auto k : out.plan->split.per_chain) {
      const auto warm =
          static_cast<std::size_t>(std::floor(spec.warmup_fraction * static_cast<double>(k)));
      run.per_chain.push_back({warm, static_cast<std::size_t>(k) - warm});
    }
    run.warmup = run.per_chain.front().warmup;
    run.samples = run.per_chain.front().samples;
    noise_key = spec.noise_key        ? *spec.noise_key
                : spec.noise_key_file ? NoiseKey::from_file(*spec.noise_key_file)
                                      : NoiseKey::fresh();
    std::vector<ReleaseAllowance> allowances;
    for (const auto k : out.plan->split.per_chain) {
      allowances.push_back(allowance_for(setup, k));
    }
    const std::size_t owners = setup.owners;
    for (auto& chain_logs : logs) chain_logs.resize(owners);
    factory = [&model, &data, &logs, &shards, setup = std::move(setup), allowances,
               key = *noise_key, seed = run.seed, delta = out.plan->accountant_delta,
               first = run.first_chain](int chain) -> std::unique_ptr<Kernel> {
      const auto index = static_cast<std::size_t>(chain - first);
      std::unique_ptr<PrivateKernel> kernel;
      if (shards.empty()) {
        kernel = setup.make_kernel(std::make_unique<PrivateData>(
            *model, data, make_noise_rng(key, seed, static_cast<std::uint64_t>(chain)),
            logs[index][0], allowances[index]));
      } else {
        // Owner i's noise stream is that of (key, seed, chain, owner i): no two parties of a run
        // share a stream (owner 0's is the single-owner stream).
        std::vector<std::unique_ptr<DataOwner>> parties;
        for (std::size_t i = 0; i < shards.size(); ++i) {
          parties.push_back(std::make_unique<PrivateData>(
              *model, shards[i], make_noise_rng(key, seed, static_cast<std::uint64_t>(chain), i),
              logs[index][i], allowances[index]));
        }
        kernel = setup.make_group_kernel(std::make_unique<OwnerGroup>(std::move(parties)));
      }
      // eps_spent__: ε(δ) of this chain's own releases so far (privacy/spend_meter.hpp), as seen
      // by owner 1 (every owner makes the same releases); the run's total is in the report.
      auto meter = std::make_shared<SpendMeter>(delta);
      const EventLog* log = &logs[index][0];
      kernel->set_spend_callback([meter, log](std::uint64_t) { return meter->epsilon(*log); });
      return kernel;
    };
  } else {
    factory = kernel_factory(spec.sampler, params, *model, data);
  }
  const bool private_run = out.plan.has_value();
  const ColumnSplit columns = split_columns(factory, private_run);
  // split_columns built chain 0's kernel once; its PrivateData made no release.
  const std::filesystem::path curator = curator_dir(spec.out_dir);
  if (private_run) prepare_curator_dir(curator);
  if (!spec.init_given) {
    run.init.centre = preset.start_centre;
    // The Section 5.2 rule uses exact posterior draws given the data. For a private sampler on
    // the user's data that would be an unaccounted release, so the spread is then computed from
    // the preset's public synthetic data instead (the same when the data are synthetic).
    const bool private_user_data = is_private_sampler(spec.sampler) && spec.data_file;
    run.init.spread =
        private_user_data
            ? start_deviation(preset, *model, simulate_preset(preset, *model, data_seed), data_seed)
            : start_deviation(preset, *model, data, data_seed);
  }

  // One Stan CSV per chain: chain-1.csv, … (1-based like CmdStan's output files).
  StanCsvLayout layout;
  layout.num_samples = run.samples;
  layout.num_warmup = run.warmup;
  layout.save_warmup = run.save_warmup;
  layout.thin = run.thin;
  layout.sampler_columns = columns.published;
  layout.param_names = model->param_names();
  layout.write_timing = !private_run;
  layout.config = {{"model", preset.name},
                   {"sampler", spec.sampler},
                   {"sampler_params", params.dump()},
                   {"data", data_source},
                   {"n", std::to_string(data.rows())},
                   {"seed", std::to_string(run.seed)},
                   {"seed_source", spec.seed_given ? "user" : "os-entropy"},
                   {"chains", std::to_string(run.chains)}};
  std::vector<std::filesystem::path> files;
  for (int c = 0; c < run.chains; ++c) {
    files.push_back(spec.out_dir / fmt::format("chain-{}.csv", run.first_chain + c + 1));
  }
  RunCallbacks callbacks;
  if (spec.write_draws) {
    callbacks.make_sink = [&](int chain_id) -> std::unique_ptr<DrawSink> {
      auto l = layout;
      l.config.emplace_back("chain_id", std::to_string(chain_id + 1));
      const auto& file = files[static_cast<std::size_t>(chain_id - run.first_chain)];
      auto draws = std::make_unique<CsvDrawSink>(file, l, columns.published_at, columns.all.size());
      if (!private_run) return draws;
      std::vector<std::unique_ptr<DrawSink>> both;
      both.push_back(std::move(draws));
      both.push_back(std::make_unique<CuratorColumnsSink>(curator / file.filename(),
                                                          columns.curator_at, columns.curator));
      return std::make_unique<TeeSink>(std::move(both));
    };
  }

  Stopwatch clock;
  out.run = run_chains(factory, model->param_names(), run, callbacks);
  // The spend of the run as owner 1 sees it (the only owner unless the data are shared), and of
  // every owner separately: each owner's guarantee concerns its own rows.
  std::vector<EventLog> per_owner(logs.empty() ? 0 : logs.front().size());
  for (const auto& chain_logs : logs) {
    for (std::size_t i = 0; i < chain_logs.size(); ++i) per_owner[i].merge(chain_logs[i]);
  }
  if (!per_owner.empty()) out.recorded = per_owner.front();
  if (spec.write_draws) out.draw_files = files;
  Timings timings;
  timings.add("sampling", clock.seconds());
  if (!out.run.complete() && !spec.diagnose_incomplete) return out;

  // Diagnostics over the kept draws of every chain that kept any.
  clock.restart();
  std::vector<std::string> labels;
  for (std::size_t c = 0; c < files.size(); ++c) {
    labels.push_back(
        spec.write_draws
            ? files[c].string()
            : fmt::format("chain {}", static_cast<std::size_t>(run.first_chain) + c + 1));
  }
  KeptDraws kept = kept_draws(out.run, labels);
  out.summary = std::move(kept.summary);
  const Mat& pooled = kept.pooled;
  json accuracy = json::object();
  // Comparing with the exact posterior of the data is an evaluation tool for synthetic data: on
  // a user's private data its result would be an unaccounted, non-private release.
  if (is_private_sampler(spec.sampler) && spec.data_file) {
    accuracy["skipped"] =
        "private sampler on user data: the exact posterior of private data is not released";
  } else if (pooled.rows() >= 2) {
    if (model->has_exact_posterior()) {
      Rng exact_rng = make_rng(data_seed, 0, Stream::exact);
      const Mat reference = model->sample_posterior(data, spec.reference_draws, exact_rng);
      Rng mmd_rng = make_rng(run.seed, 0, Stream::exact);
      // The unbiased MMD² is quadratic in the number of draws: beyond kMaxMmdDraws the pooled
      // draws are thinned evenly (a long stochastic-gradient run keeps 10⁶ draws).
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
      accuracy["mean_error"] = json_number(*out.mean_error);
      accuracy["cov_error"] = json_number(cov_error(pooled, reference));
      // DP-Fast MH's metric (003 Section 6.1), defined for two parameters: all kept draws
      // against exact ones, 100 × 100 bins and the header's smoothing, so values compare only at
      // similar numbers of draws. The MMD's reference (10³ draws by default) leaves most of the
      // 10⁴ bins empty, so its own histogram noise would dominate (two exact samples of 10³
      // draws are at sym_kl ≈ 8); a larger reference drawn after it from the same stream keeps
      // the MMD unchanged and puts the reference's share of the value well below the sampler's.
      if (model->dim() == 2) {
        const Mat kl_reference = model->sample_posterior(data, kSymKlReferenceDraws, exact_rng);
        out.sym_kl = symmetric_kl_histogram(pooled, kl_reference);
        accuracy["sym_kl"] = json_number(*out.sym_kl);
        accuracy["sym_kl_bins"] = 100;
        accuracy["sym_kl_reference"] = kSymKlReferenceDraws;
      }
    } else if (preset.load_test_data) {
      // Public held-out rows: the posterior predictive's accuracy is post-processing of the draws.
      const auto* logistic = dynamic_cast<const LogisticRegressionModel*>(model.get());
      if (logistic != nullptr) {
        const Dataset test = preset.load_test_data();
        out.test_accuracy = logistic->predictive_accuracy(pooled, test);
        accuracy["reference"] =
            fmt::format("posterior predictive on {} public held-out rows", test.rows());
        accuracy["test_accuracy"] = json_number(*out.test_accuracy);
      }
    } else {
      // The circle's posterior mean is the origin (002_673c6a5269ae2454.txt Section 5.1).
      out.mean_error = mean_error_from_mean(pooled, Vec::Zero(model->dim()));
      accuracy["reference"] = "known posterior mean (origin)";
      accuracy["mean_error"] = json_number(*out.mean_error);
    }
  }
  timings.add("diagnostics", clock.seconds());

  json chains_json = json::array(), chain_times = json::array();
  for (std::size_t c = 0; c < out.run.chains.size(); ++c) {
    const auto& ch = out.run.chains[c];
    chains_json.push_back({{"chain", ch.chain + 1},
                           {"file", spec.write_draws ? json(files[c].string()) : json(nullptr)},
                           {"status", to_string(ch.status)},
                           {"warmup_done", ch.warmup_done},
                           {"samples_done", ch.samples_done},
                           {"acceptance_rate", json_number(ch.acceptance_rate())},
                           {"warmup_acceptance_rate", json_number(ch.warmup_acceptance_rate())},
                           {"start", json_array(ch.start)}});
    chain_times.push_back({{"chain", ch.chain + 1}, {"wall_seconds", ch.wall_seconds}});
  }
  out.accuracy = accuracy;
  // A private run's summary is published for its published columns only; the curator's columns
  // (clip fractions, batch sizes) are summarised in the curator's report.
  const Summary published = summary_of(out.summary, columns.curator, false);
  out.report = {
      {"dpmcmc_version", "0.1.0"},
      {"status", out.run.complete() ? "completed" : "interrupted"},
      {"command_line", spec.command_line},
      {"model", {{"preset", preset.name}, {"dim", model->dim()}, {"source", preset.source}}},
      {"data", {{"source", data_source}, {"rows", data.rows()}, {"columns", data.columns}}},
      {"sampler", {{"name", spec.sampler}, {"params", params}}},
      {"run",
       {{"chains", run.chains},
        {"warmup", run.warmup},
        {"samples", run.samples},
        {"thin", run.thin},
        {"threads", out.run.threads},
        {"seed", run.seed},
        {"seed_source", spec.seed_given ? "user" : "os-entropy"},
        {"noise_key", noise_key ? noise_key->describe() : "none (non-private sampler)"},
        {"data_seed", data_seed},
        {"init", spec.init_given ? "user" : "preset rule: centre + N(0, I) * spread"},
        {"init_spread", json_number(run.init.spread)},
        // null: the starting points come from the run seed.
        {"init_seed", run.init.seed ? json(*run.init.seed) : json(nullptr)}}},
      // Non-private baselines release nothing under a privacy guarantee: the report says so
      // rather than leaving the field out.
      {"privacy", out.plan
                      ? owners_privacy_report(*out.plan, per_owner, shards, spec.plan_memo.get())
                      : json{{"private", false},
                             {"note", "non-private sampler: no (epsilon, delta) guarantee"}}},
      {"chains", chains_json},
      {"summary", published.parameters.empty() ? json(nullptr) : summary_json(published)}};
  out.summary = published;
  if (private_run) {
    // The boundary (DESIGN.md §5): accuracy against the exact posterior, timings and clip
    // statistics are computed from the private rows without noise.
    out.report["curator"] = {{"directory", curator.string()},
                             {"note",
                              "accuracy, timings and clip statistics are in the curator "
                              "directory: computed from the private data without noise"}};
    const Summary kept = summary_of(out.summary, columns.curator, true);
    out.curator_summary = kept;
    out.curator = {{"run_report", (spec.out_dir / "report.json").string()},
                   {"noise_key_file",
                    spec.noise_key_file ? json(spec.noise_key_file->string()) : json(nullptr)},
                   {"chains", chain_times},
                   {"columns", kept.parameters.empty() ? json(nullptr) : summary_json(kept)},
                   {"accuracy", accuracy},
                   {"timings", timings.to_json()}};
    out.curator_file = curator / "report.json";
    write_curator_json(out.curator, out.curator_file);
  } else {
    for (std::size_t c = 0; c < chains_json.size(); ++c)
      chains_json[c]["wall_seconds"] = chain_times[c]["wall_seconds"];
    out.report["chains"] = chains_json;
    out.report["accuracy"] = accuracy;
    out.report["timings"] = timings.to_json();
  }
  out.report_file = spec.out_dir / "report.json";
  write_json(out.report, out.report_file);
  return out;
}

}  // namespace dpmcmc
