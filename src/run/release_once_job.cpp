#include "run/release_once_job.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "core/error.hpp"
#include "data/directory_lock.hpp"
#include "io/run_report.hpp"
#include "models/noisy_statistics.hpp"
#include "models/user_model.hpp"
#include "privacy/gaussian_pld.hpp"
#include "privacy/iteration_templates.hpp"
#include "privacy/private_data.hpp"
#include "run/curator_files.hpp"
#include "run/ledger_entry.hpp"
#include "run/private_job.hpp"
#include "run/private_samplers.hpp"
#include "run/runner.hpp"
#include "run/sampler_params.hpp"

namespace dpmcmc {
namespace {

using json = nlohmann::json;

// The plan of the releases (one, or pilots and a final one: staged_noise) with the smallest
// noise multiplier z that the certified planner accepts within the budget: from the exact
// Gaussian PLD's z (enough when it plans) up by factors of 1.25 until a plan exists (zCDP or RDP
// alone need ~10–30 % more), then bisected down to within 2 % of the smallest.
struct ReleasePlan {
  PrivateRunPlan plan;
  StagedNoise noise;
};
ReleasePlan plan_releases(const std::vector<std::string>& accountants, PlanMemo* memo,
                          const Budget& budget, std::size_t coordinates, std::uint64_t pilots,
                          double share) {
  const auto plan_at = [&](double z) -> std::optional<PrivateRunPlan> {
    if (!(z > 0.0) || !std::isfinite(z)) return std::nullopt;
    try {
      return plan_private_run(budget, noisy_statistics_template(z, pilots, share), 1, accountants,
                              {}, coordinates, memo);
    } catch (const ConfigError&) {
      return std::nullopt;
    }
  };
  const double mu_max = gaussian_pld_max_mu(budget.epsilon, budget.delta * (1.0 - 0x1p-10));
  double lo = 1.0 / std::sqrt(2.0 * mu_max);
  if (auto plan = plan_at(lo)) return {*plan, staged_noise(lo, pilots, share)};
  double hi = lo;
  std::optional<PrivateRunPlan> best;
  for (int i = 0; i < 40 && !best; ++i) best = plan_at(hi *= 1.25);
  if (!best)
    throw ConfigError(fmt::format(
        "--sampler {}: no noise level lets the accountants ({}) certify the release{} of the "
        "sufficient statistics within epsilon {:g}, delta {:g}",
        kReleaseOnceSampler,
        accountants.empty() ? std::string("every certified one")
                            : fmt::format("{}", fmt::join(accountants, ", ")),
        pilots > 0 ? "s" : "", budget.epsilon, budget.delta));
  while (hi / lo > 1.02) {
    const double mid = std::sqrt(lo * hi);
    if (auto plan = plan_at(mid)) {
      best = std::move(plan);
      hi = mid;
    } else {
      lo = mid;
    }
  }
  return {*best, staged_noise(hi, pilots, share)};
}

// The pilot releases of a logistic regression (models/noisy_statistics.hpp, the expansion at a
// public centre): given, or the measured default (docs/user-guide.md, "Release once, sample
// forever"). UsageError for pilots on another family or a share outside (0, 1).
struct PilotChoice {
  std::uint64_t releases = 0;
  double share = 0.0;
};
PilotChoice pilot_choice(std::optional<std::uint64_t> pilot_releases,
                         std::optional<double> pilot_share, const GlmSpec& glm, std::size_t n,
                         const Budget& budget) {
  const GlmFamily family = glm.family;
  if (pilot_share && !(*pilot_share > 0.0 && *pilot_share < 1.0))
    throw UsageError(
        fmt::format("--pilot-share: expected a number in (0, 1), got {}", *pilot_share));
  if (family != GlmFamily::logistic && family != GlmFamily::poisson &&
      family != GlmFamily::linear) {
    if (pilot_releases.value_or(0) > 0 || pilot_share)
      throw UsageError(fmt::format(
          "--pilot-releases, --pilot-share: model '{}' releases its exact sufficient statistics; "
          "pilot releases centre the logistic and poisson likelihoods' expansion and linear "
          "regression's residuals only",
          to_string(family)));
    return {};
  }
  if (pilot_releases && *pilot_releases > kMaxPilotReleases)
    throw UsageError(fmt::format("--pilot-releases: expected 0 to {}, got {}", kMaxPilotReleases,
                                 *pilot_releases));
  const std::uint64_t releases = pilot_releases.value_or(default_pilot_releases(glm, n, budget));
  if (releases == 0) {
    if (pilot_share)
      throw UsageError("--pilot-share: there are no pilot releases (--pilot-releases 0)");
    return {};
  }
  return {releases, pilot_share.value_or(kDefaultPilotShare)};
}

// What the chains are given must be valid before the budget is spent on the release.
void check_chain_options(const SampleSpec& spec, int dim) {
  check_sampler_keys("nuts", spec.overrides);
  // Before the release: the runner checks again with the chains' exact columns.
  check_kept_draws_fit(spec.run.chains, {spec.run.warmup, spec.run.samples}, spec.run.thin,
                       spec.run.save_warmup, static_cast<std::size_t>(dim) + 2);
  if (spec.n)
    throw UsageError("--n: the rows come from --data; --n applies to a preset's synthetic data");
  for (const auto& point : spec.run.init.points) {
    if (point.size() != dim)
      throw UsageError(
          fmt::format("--init: expected {} values (one per parameter), got {}", dim, point.size()));
  }
  if (spec.run.init.centre.size() != 0 && spec.run.init.centre.size() != dim)
    throw UsageError(fmt::format("--init-centre: expected {} values (one per parameter), got {}",
                                 dim, spec.run.init.centre.size()));
}

// A pilot's estimate far in the prior's tail (a release swamped by noise, or a mode the Newton
// steps did not find) would make the next release's range, and so its noise, enormous (poisson's
// e^R) or overflow it: the centre is shrunk towards 0 until R = Σ_j |β₀,j| B_j is at most 20 for
// logistic (σ(20) = 1 − 2·10⁻⁹: no row is informative beyond) or log(y_high + 1) + 3 for poisson
// (rates past e³ times the largest declared count). Post-processing of released values.
Vec capped_centre(Vec centre, const GlmSpec& glm) {
  if (glm.family == GlmFamily::linear) return centre;  // its range grows with R, not e^R
  const double cap = glm.family == GlmFamily::poisson ? std::log(glm.y_high + 1.0) + 3.0 : 20.0;
  double reach = 0.0;
  for (Eigen::Index j = 0; j < centre.size(); ++j)
    reach += std::abs(centre(j)) * glm.column_bounds[static_cast<std::size_t>(j)];
  if (!std::isfinite(reach)) return Vec::Zero(centre.size());
  if (reach > cap) centre *= cap / reach;
  return centre;
}

// The prior's sd of a coefficient; none for a Student-t without one (ν ≤ 2).
std::optional<double> prior_sd(const ScalarPrior& prior) {
  if (prior.kind == ScalarPrior::Kind::normal) return prior.scale;
  if (prior.kind == ScalarPrior::Kind::student_t && prior.nu > 2.0)
    return prior.scale * std::sqrt(prior.nu / (prior.nu - 2.0));
  return std::nullopt;
}

// What the release says about the answer (issue 60), from the published summary and public
// inputs only:
//  * a coefficient whose posterior sd is at least 90 % of its prior's was barely informed by the
//    release: the answer is mostly the prior (a noise-aware posterior is wide, not wrong, but a
//    reader should know);
//  * logistic: the expansion's bias. Its remainder is cubic in the linear predictor's distance
//    from the centre; to leading order the expansion at β₀ moves the answer by about
//    |m_j − β₀,j|·v/12, v = Σ_k (m_k − β₀,k)² E x_k² the mean square of xᵀ(m − β₀) for features
//    spread evenly over their bounds (E x_k² = B_k²/3, 1 for the intercept; at β₀ = 0,
//    σ(η) − ½ = η/4 − η³/48 + …: the slope shrinks by η²/12). A bias of more than half a
//    posterior sd is warned of, with the pilot releases that re-centre the expansion;
//  * logistic: the expansion's range. A posterior collapsed onto a wrong centre shows no bias
//    above (its mean is the centre), but its own 90 % region then reaches linear predictors where
//    the quadratic is not the likelihood: with v₉₀ = Σ_k (|m_k − β₀,k| + 1.645 sd_k)² E x_k², the
//    expansion's curvature is off by about v₉₀/12 there, and more than 25 % is warned of (the
//    curvature sets the posterior's width: it is then not reliable either way).
//  * linear with clipped residuals: the clip is modelled for Gaussian errors. Heavier tails are
//    clipped more than it says, and σ then comes out too small (the coefficients, clipped
//    symmetrically, were not moved: experiments/results/linear-tails). The first pilot's release
//    is clipped at y's declared range only, so its log σ̂ is a check: the final log σ more than 3
//    combined sds below it is warned of.
void add_clip_warning(const Summary& summary, const RegressionStatistic& stat,
                      const json& first_pilot, std::vector<ConvergenceWarning>& warnings) {
  if (!stat.is_residual() || !first_pilot.contains("sigma")) return;
  const auto it = std::find_if(summary.parameters.begin(), summary.parameters.end(),
                               [](const ParameterSummary& s) { return s.name == "log_sigma"; });
  if (it == summary.parameters.end()) return;
  const double pilot = first_pilot["sigma"]["log_sigma"].get<double>();
  const double pilot_sd = first_pilot["sigma"]["log_sigma_sd"].get<double>();
  const double z = (pilot - it->mean) / std::hypot(pilot_sd, it->sd);
  if (!(z > 3.0)) return;
  warnings.push_back(
      {"residual_clip", "log_sigma", z, 3.0,
       fmt::format("log_sigma {:.3g} is {:.1f} sds below the first pilot's {:.3g}, whose release "
                   "clips y at its declared range only: the residuals clipped at {:.3g} look "
                   "heavier-tailed than Gaussian, and the clip's model then makes sigma too small "
                   "(the coefficients are clipped symmetrically and were not moved where this "
                   "was measured)",
                   it->mean, z, pilot, stat.residual_bound()),
       "for sigma, --pilot-releases 0 (one release, clipped at y's declared range only; its "
       "coefficients are noisier); or a model whose errors fit the data"});
}

void add_release_warnings(const Summary& summary, const GlmSpec& glm,
                          const RegressionStatistic& stat, std::uint64_t pilots,
                          std::vector<ConvergenceWarning>& warnings) {
  const auto p = static_cast<std::size_t>(stat.coefficients());
  // The coefficients' rows of the summary (which also has lp__ and the sampler's columns).
  std::vector<const ParameterSummary*> rows;
  for (std::size_t j = 0; j < p; ++j) {
    const auto it =
        std::find_if(summary.parameters.begin(), summary.parameters.end(),
                     [&](const ParameterSummary& s) { return s.name == glm.coefficient_names[j]; });
    if (it == summary.parameters.end()) return;
    rows.push_back(&*it);
  }
  for (std::size_t j = 0; j < p; ++j) {
    const ParameterSummary& s = *rows[j];
    const std::optional<double> sd0 = prior_sd(glm.coefficient_priors[j]);
    if (!sd0 || !(s.sd >= 0.9 * *sd0)) continue;
    warnings.push_back(
        {"prior_dominated", s.name, s.sd / *sd0, 0.9,
         fmt::format("posterior sd {:.3g} is {:.0f}% of the prior's {:.3g}: the release barely "
                     "informs it, so its interval is mostly the prior",
                     s.sd, 100.0 * s.sd / *sd0, *sd0),
         "a larger --epsilon (the release's noise sd falls as 1/epsilon) or more rows; a prior "
         "you can defend (--prior), since it is most of the answer"});
  }
  if (glm.family != GlmFamily::logistic) return;
  const Vec& centre = stat.expansion_centre();
  double v = 0.0, v90 = 0.0;
  for (std::size_t k = 0; k < p; ++k) {
    const double step = std::abs(rows[k]->mean - centre(static_cast<Eigen::Index>(k)));
    const double b = glm.column_bounds[k];
    const double second = k == 0 && stat.has_intercept() ? 1.0 : b * b / 3.0;
    v += step * step * second;
    v90 += std::pow(step + 1.645 * rows[k]->sd, 2) * second;
  }
  const std::string where =
      pilots == 0 ? std::string("0") : fmt::format("the last pilot's estimate ({} pilots)", pilots);
  const std::string more =
      pilots >= kMaxPilotReleases
          ? std::string("a larger --epsilon: the pilots' releases are too noisy to centre it")
          : fmt::format(
                "--pilot-releases {}: each pilot release re-centres the expansion by one "
                "Newton step, from part of the budget (--pilot-share), so the final "
                "release is noisier: where the release is noisy (few rows, a small "
                "epsilon) the wider posterior can cost more than the bias does",
                pilots + 1);
  for (std::size_t j = 0; j < p; ++j) {
    const ParameterSummary& s = *rows[j];
    const double bias = std::abs(s.mean - centre(static_cast<Eigen::Index>(j))) * v / 12.0;
    if (!(s.sd > 0.0) || !(bias > 0.5 * s.sd)) continue;
    warnings.push_back(
        {"expansion_bias", s.name, bias / s.sd, 0.5,
         fmt::format("the quadratic expansion of the likelihood at {} may move it by about {:.2g} "
                     "({:.1f} posterior sds): its estimate is {:.3g} away from the centre",
                     where, bias, bias / s.sd,
                     std::abs(s.mean - centre(static_cast<Eigen::Index>(j)))),
         more});
  }
  if (v90 / 12.0 > 0.25) {
    warnings.push_back(
        {"expansion_range", "model", v90 / 12.0, 0.25,
         fmt::format("the posterior's 90% region reaches linear predictors {:.2g} (root mean "
                     "square) from the expansion at {}, where its curvature is off by about "
                     "{:.0f}%: the intervals' width and centre are not reliable",
                     std::sqrt(v90), where, 100.0 * v90 / 12.0),
         fmt::format("more information per coefficient: a larger --epsilon, more rows or fewer "
                     "features; or {}",
                     more)});
  }
}

// A warning that more draws can lift: the chains disagree, or too few effective draws (not an
// undefined R-hat: a chain that never moved does not move for longer).
bool is_length_warning(const ConvergenceWarning& w) {
  return (w.check == "rhat" && !std::isnan(w.value)) || w.check.starts_with("ess_");
}

bool stop_requested(const RunConfig& run) {
  return run.stop != nullptr && run.stop->load();
}

// The passes of the chains a run may make (the release_once_job.cpp's loop): 1 with --iter or
// --warmup; else up to kMaxChainPasses, as many as keep their draws in this machine's memory
// (checked before the release, so that no later pass is refused after the budget is spent).
int chain_passes(const SampleSpec& spec, int dim) {
  if (!spec.extend_until_converged) return 1;
  int passes = 1;
  for (ChainPlan plan{spec.run.warmup, spec.run.samples}; passes < kMaxChainPasses; ++passes) {
    plan = {plan.warmup * 2, plan.samples * 4};
    try {
      check_kept_draws_fit(spec.run.chains, plan, spec.run.thin, spec.run.save_warmup,
                           static_cast<std::size_t>(dim) + 2);
    } catch (const ConfigError&) {
      break;
    }
  }
  return passes;
}

// A longer pass of the chains, run in DIR/.longer and moved over DIR's chain files and
// report.json once complete. Interrupted: nothing, and the last complete pass stands as it was
// written; an exception leaves it so too. The staging directory is removed either way.
std::optional<SampleOutcome> longer_pass(SampleSpec chains, const std::filesystem::path& out_dir) {
  const auto staging = out_dir / ".longer";
  struct Remove {
    std::filesystem::path dir;
    ~Remove() {
      std::error_code ignored;
      std::filesystem::remove_all(dir, ignored);
    }
  } remove{staging};
  std::filesystem::remove_all(staging);  // left by a killed run: this run holds DIR's lock
  chains.out_dir = staging;
  SampleOutcome out = run_sample_job(chains);
  if (!out.run.complete()) return std::nullopt;
  // The report goes first and comes back last: in between, DIR holds no report that reads as
  // complete beside chain files of two passes.
  std::filesystem::remove(out_dir / "report.json");
  for (std::size_t c = 0; c < out.draw_files.size(); ++c) {
    const auto target = out_dir / out.draw_files[c].filename();
    std::filesystem::rename(out.draw_files[c], target);
    out.draw_files[c] = target;
    out.report["chains"][c]["file"] = target.string();
  }
  out.report_file = out_dir / "report.json";
  write_json(out.report, out.report_file);
  return out;
}

// The user model dp-nss runs on. UsageError, before anything is read beyond the schema and rows,
// for a spec without a regression family on rows or without a budget, or a family with no
// released statistic.
UserModel release_once_model(const SampleSpec& spec) {
  if (!spec.user_model)
    throw UsageError(fmt::format(
        "--sampler {}: releases a regression family's sufficient statistics once; give --model "
        "linear, normal, logistic or poisson with --schema and --data",
        kReleaseOnceSampler));
  if (!spec.epsilon)
    throw UsageError(fmt::format("--epsilon: sampler '{}' is private and needs a privacy budget",
                                 kReleaseOnceSampler));
  UserModel user = make_user_model(*spec.user_model);
  const GlmFamily family = user.glm.family;
  if (has_released_statistic(family, user.design->intercept)) return user;
  throw UsageError(
      family == GlmFamily::poisson
          ? fmt::format("--sampler {}: model 'poisson' needs the intercept (its column releases "
                        "the covariates' mean); remove \"intercept\": false from schema {}",
                        kReleaseOnceSampler, spec.user_model->schema_file.string())
          : fmt::format("--sampler {}: model '{}' has no released statistic; the families with "
                        "one are linear, normal, logistic and poisson",
                        kReleaseOnceSampler, spec.user_model->family));
}

// The budget: --epsilon and --delta (default 0.1/n, the papers' rule), checked.
Budget release_budget(const SampleSpec& spec, std::size_t n) {
  const Budget budget{*spec.epsilon, spec.delta.value_or(0.1 / static_cast<double>(n))};
  check_epsilon_option(budget.epsilon, "--epsilon");
  check_delta_option(budget.delta, "--delta");
  return budget;
}

// The curator's report (counted on the private rows without noise), before the release.
json release_curator_report(const SampleSpec& spec, const UserModel& user) {
  return {
      {"run_report", (spec.out_dir / "report.json").string()},
      {"noise_key_file", spec.noise_key_file ? json(spec.noise_key_file->string()) : json(nullptr)},
      {"data_preparation", user.design->report.to_json()}};
}

// The releases of a run: the pilots, then the final one, each pilot's estimate (post-processing
// of its release) the next expansion's centre. Every statistic released stays alive, since
// PrivateData caches a statistic's sum by address.
struct Releases {
  std::vector<std::unique_ptr<RegressionStatistic>> stats;  // the last is the final release's
  std::optional<VectorRelease> final;
  json pilots = json::array();  // each pilot's noise multiplier, sensitivity and estimate
};
Releases make_releases(PrivateData& owner, const ReleaseOncePlan& planned, const GlmSpec& spec,
                       const std::shared_ptr<const GlmModel>& glm, double n) {
  Releases out;
  out.stats.push_back(std::make_unique<RegressionStatistic>(spec));
  for (std::uint64_t k = 0; k < planned.pilots; ++k) {
    const RegressionStatistic& s = *out.stats.back();
    const VectorRelease made = owner.suff_stat(s, planned.noise.pilot);
    const Vec value = s.to_units(made.value);
    const NoisyStatisticsModel model(glm, s, n, made.noise_sd * s.widths(), value);
    // Linear: the residuals' centre and clip (models/noisy_statistics.hpp).
    std::optional<double> bound;
    Vec centre;
    json sigma;  // linear with σ sampled: the pilot's log σ̂ and its sd
    if (spec.family == GlmFamily::linear) {
      const auto residuals = model.residual_centre(value);
      centre = residuals.centre;
      if (std::isfinite(residuals.bound)) bound = residuals.bound;
      if (std::isfinite(residuals.log_sigma_sd))
        sigma = {{"log_sigma", residuals.mode(residuals.mode.size() - 1)},
                 {"log_sigma_sd", residuals.log_sigma_sd}};
    } else {
      centre = capped_centre(model.pilot_centre(value), spec);
    }
    json estimate = json::object();
    for (Eigen::Index j = 0; j < centre.size(); ++j)
      estimate[spec.coefficient_names[static_cast<std::size_t>(j)]] = centre(j);
    out.pilots.push_back({{"noise_multiplier", planned.noise.pilot},
                          {"sensitivity", made.sensitivity},
                          {"estimate", estimate}});
    auto next = std::make_unique<RegressionStatistic>(spec, centre, bound);
    // Linear: a centre without a bound, or a bound no narrower than y's own half-range, would
    // release wider residuals than the uncentred statistic: that one goes next instead.
    if (spec.family == GlmFamily::linear) {
      auto plain = std::make_unique<RegressionStatistic>(spec);
      if (!bound || !(next->residual_bound() < plain->residual_bound())) next = std::move(plain);
      out.pilots.back()["residual_bound"] =
          next->is_residual() ? json(next->residual_bound()) : json(nullptr);
    }
    out.stats.push_back(std::move(next));
    if (!sigma.is_null()) out.pilots.back()["sigma"] = sigma;
  }
  out.final = owner.suff_stat(*out.stats.back(), planned.noise.final);
  return out;
}

// The published privacy section: the plan's and the log's accounting without the iterated
// samplers' fields, and the final release (statistic and noise sd in the statistic's units) and
// pilots.
json release_privacy(const PrivateRunPlan& plan, const EventLog& log, PlanMemo* memo,
                     const ReleaseOncePlan& planned, const Releases& made, const Vec& value,
                     const Vec& noise_sd) {
  json privacy = privacy_report(plan, log, memo);
  for (const char* key_name : {"iterations_allowed", "iterations_per_chain", "iterations_scheduled",
                               "iterations_unused", "epsilon_of_iterations_allowed"})
    privacy.erase(key_name);
  privacy["releases_planned"] = 1 + planned.pilots;
  const std::vector<std::string> columns = made.stats.back()->stat_names();
  json statistic = json::object();
  json sds = json::object();
  for (std::size_t j = 0; j < columns.size(); ++j) {
    statistic[columns[j]] = value(static_cast<Eigen::Index>(j));
    sds[columns[j]] = noise_sd(static_cast<Eigen::Index>(j));
  }
  privacy["release_once"] = {
      {"mechanism",
       "one Gaussian release of the sufficient statistics, each component in units of its "
       "declared range; the chains are post-processing"},
      {"noise_multiplier", planned.noise.final},
      {"sensitivity", made.final->sensitivity},
      {"statistic", statistic},
      {"noise_sd", sds}};
  if (planned.pilots > 0) {
    privacy["release_once"]["mechanism"] =
        made.pilots.front().contains("residual_bound")  // linear's pilots
            ? "Gaussian releases of the sufficient statistics: pilots, each centring the "
              "residuals y - x'beta0 of the next at its estimate and clipping them at "
              "residual_bound (where that is null, the next is the uncentred statistic), then "
              "the final one the chains read; each component in units of its declared range; the "
              "chains are post-processing"
            : "Gaussian releases of the likelihood's second-order expansion (logistic or "
              "poisson): pilots, each centred at the estimate of the one before, then the final "
              "one the chains read; each component in units of its declared range; the chains "
              "are post-processing";
    privacy["release_once"]["pilot_share"] = planned.share;
    privacy["release_once"]["pilots"] = made.pilots;
  }
  return privacy;
}

// The chains' job: NUTS on the posterior given the release (a one-row data set, the released
// statistic in its units), published as dp-nss on the user's rows. header_overrides[1] is the
// data's source.
SampleSpec chains_spec(const SampleSpec& spec, const UserModel& user,
                       const std::shared_ptr<const GlmModel>& glm, const RegressionStatistic& stat,
                       const Vec& value, const Vec& noise_sd) {
  auto preset = std::make_shared<Preset>(user.preset);
  // Clipped residuals: the chains start at the posterior's mode (post-processing of the
  // release), spread by its smallest sd there. The user model's start (σ a quarter of y's range,
  // T/σ < 1) lies where most residuals would be clipped, far in a narrow posterior's tail (with
  // an earlier, wrong covariance in Δ two of four chains settled there at σ ≈ 110 on 20 000
  // rows), and its spread (0.1) is 40 sds of log σ at 10⁵ rows, where every first step diverged.
  if (stat.is_residual()) {
    const NoisyStatisticsModel model(glm, stat, static_cast<double>(user.design->data.rows()),
                                     noise_sd, value);
    const auto found = model.residual_centre(value);
    if (found.mode.allFinite()) preset->start_centre = found.mode;
    if (found.sd.size() > 0 && found.sd.allFinite() && found.sd.minCoeff() > 0.0)
      preset->start_sd =
          std::min(preset->start_sd.value_or(found.sd.minCoeff()), found.sd.minCoeff());
  }
  const Dataset& rows = user.design->data;
  Dataset released;
  released.x = value.transpose();
  released.columns = stat.stat_names();
  released.source = fmt::format("noisy sufficient statistics of {}", rows.source);
  preset->n = 1;
  preset->make_model = [glm, stat, n = static_cast<double>(rows.rows()), sd = noise_sd, released] {
    return std::unique_ptr<Model>(
        std::make_unique<NoisyStatisticsModel>(glm, stat, n, sd, released.x.row(0).transpose()));
  };
  preset->load_data = [released] { return released; };
  SampleSpec chains = spec;
  chains.sampler = "nuts";
  chains.user_model.reset();
  chains.data_file.reset();
  chains.custom_model = preset;
  chains.checkpoint.reset();
  chains.publish_timings = false;  // as every private run: timings are not released
  chains.header_overrides = {
      {"sampler", kReleaseOnceSampler},
      {"data",
       fmt::format("{} (chains on one noisy release of its sufficient statistics)", rows.source)},
      {"n", std::to_string(rows.rows())}};
  return chains;
}

// The chains are post-processing of the release: with spec.extend_until_converged (the CLI
// without --iter/--warmup) they run until they agree. On the calibration grid 1000 draws per
// chain left R-hat at 1.01–1.03 in 6 of the 12 cells at n = 10³, where the release's posterior
// is wide and mostly prior (experiments/results/calibration-grid). A pass whose draws warn
// `rhat` or `ess_*` is run again, from the same seed, with 4× the draws and 2× the warmup, at
// most `passes` passes (chain_passes); the report lists the passes before the last
// (`sampler.earlier_passes`). release_warnings: what the release says of the answer.
SampleOutcome run_chain_passes(
    SampleSpec chains, int passes, const std::filesystem::path& out_dir,
    const std::function<void(const Summary&, std::vector<ConvergenceWarning>&)>& release_warnings) {
  json earlier = json::array();
  int pass = 1;
  chains.amend_warnings = [&](const Summary& summary, std::vector<ConvergenceWarning>& warnings) {
    release_warnings(summary, warnings);
    if (pass == 1 || pass < passes) return;  // a later pass may still lift them
    // Still there after the longest pass: more draws did not bring the chains together. On the
    // grid (poisson, n = 10³, ε = 4) 2 runs of 50 kept one chain of 4 apart (R-hat 1.53).
    for (auto& w : warnings) {
      if (!is_length_warning(w)) continue;
      w.problem += fmt::format(" after {} passes of the chains, the last with {} draws", pass,
                               chains.run.samples);
      if (w.check == "rhat")
        w.advice =
            "compare the chains: one may sit in another mode of the posterior given the "
            "release, or far in the prior's tail, where the release hardly informs it; a prior "
            "you can defend (--prior) narrows those tails, and a larger --epsilon sharpens the "
            "release";
    }
  };
  const auto amend = chains.amend_report;
  chains.amend_report = [&](json& report) {
    amend(report);
    if (!earlier.empty()) report["sampler"]["earlier_passes"] = earlier;
  };
  SampleOutcome out = run_sample_job(chains);
  for (; pass < passes && out.run.complete() && !stop_requested(chains.run);) {
    const auto why = std::find_if(out.warnings.begin(), out.warnings.end(), is_length_warning);
    if (why == out.warnings.end()) break;
    earlier.push_back({{"warmup", chains.run.warmup},
                       {"samples", chains.run.samples},
                       {"why", fmt::format("{}: {}", why->subject, why->problem)}});
    chains.run.warmup *= 2;
    chains.run.samples *= 4;
    ++pass;
    std::optional<SampleOutcome> longer = longer_pass(chains, out_dir);
    if (!longer) {  // interrupted: the last complete pass stands, as written
      earlier.erase(earlier.end() - 1);
      break;
    }
    out = std::move(*longer);
  }
  return out;
}

}  // namespace

std::vector<double> release_noise_ratios(const GlmSpec& glm, std::size_t n, double noise_multiplier,
                                         bool centred) {
  std::vector<double> out;
  if (glm.family == GlmFamily::poisson) return out;
  const RegressionStatistic stat(glm);
  const double sigma = glm.sigma.value_or(0.25 * (glm.y_high - glm.y_low));
  const double v = glm.family == GlmFamily::logistic ? 0.25 : sigma * sigma;
  const int p = stat.coefficients();
  const auto first_cross =
      static_cast<Eigen::Index>(stat.stat_dim()) - p - (stat.has_square() ? 1 : 0);
  for (int j = 0; j < p; ++j) {
    const double b = glm.column_bounds[static_cast<std::size_t>(j)];
    const double second = j == 0 && stat.has_intercept() ? 1.0 : b * b / 3.0;
    const double sampling = std::sqrt(static_cast<double>(n) * second * v);
    const double noise = noise_multiplier * stat.stat_sensitivity() * (centred ? 2.0 : 1.0) *
                         stat.widths()(first_cross + j);
    out.push_back(noise / sampling);
  }
  return out;
}

std::uint64_t default_pilot_releases(const GlmSpec& glm, std::size_t n, const Budget& budget) {
  // The expansion at 0 shrinks large effects by a fixed fraction whatever n; that shows once the
  // release's noise is small next to the rows' own spread, and a pilot helps only once its own
  // release resolves the coefficients. Measured on the calibration grid (d = 5, coefficients to
  // 2.5; experiments/results/calibration-grid): at n = 10⁴, ε = 1 (r ≈ 0.6) the median distance
  // to the rows' posterior fell from 7.9 sds without pilots to 1.4 with two; at 10⁶ (r ≈ 0.06)
  // two left 1.2 and three 0.26; at n = 10³, ε = 1 (r ≈ 2) pilots widened the posterior from 3
  // to 8.5 rows' sds with no gain in coverage, and at ε = 2 and 4 (r ≈ 1, 0.5) the expansion at
  // 0 alone covered 0.38 and 0.33 of the coefficients.
  // Poisson: the Gaussian covariates' model of the first release shrinks strong effects of
  // bounded covariates; from 10⁵ rows it covered 0.28–0.54 of the grid's coefficients at every ε
  // (uniform covariates, slopes to 1). Two pilots: its mode, then one Newton step. Below 50 000
  // rows they pay once the release resolves the slopes: the release's noise over the sums'
  // sampling sd falls as 1/(ε√n), and at n = 10⁴ (10 repeats each, 2 pilots against none) they
  // lifted coverage at ε = 4 (ε√n = 400) from 0.78 to 0.88 (distance 2.3 against 2.8 sds), were
  // even at ε = 2 (0.87 against 0.88; 5.1 against 4.3) and cost much at ε ≤ 1 (18 against 5.8
  // sds at ε = 1): pilots where ε√n ≥ 300.
  if (glm.family == GlmFamily::poisson)
    return n >= 50000 || budget.epsilon * std::sqrt(static_cast<double>(n)) >= 300.0 ? 2 : 0;
  // Linear: a pilot centres the residuals and clips them at about 3σ̂ (models/
  // noisy_statistics.hpp). It pays once the pilot's σ̂ is good, and Σ t²'s noise over nσ² falls
  // as 1/(εn): on the grid (y on ±8, σ = 1, d = 5; 10 repeats, 1 pilot against none) the median
  // distance to the rows' posterior fell at n = 10⁴ at every ε (0.5: 4.81 to 4.35; 1: 2.82 to
  // 2.10; 2: 1.62 to 0.76; 4: 0.57 to 0.39), was even at (10³, ε = 4: 3.03 against 3.10) and
  // rose below (10³, ε = 2: 4.2 to 10.4): a pilot where εn ≥ 5000. A second pilot, centred and
  // clipped itself, narrows the final release's clip further: at n = 10⁴ (10 repeats, 2 pilots
  // against 1) the median sd ratio fell from 2.88 to 2.52 at ε = 1 and 1.52 to 1.38 at ε = 2,
  // was even at ε = 4 and at 10⁵, and rose at (10⁴, 0.5: 7.29 to 8.81): two where εn ≥ 10⁴.
  if (glm.family == GlmFamily::linear) {
    const double en = budget.epsilon * static_cast<double>(n);
    return en >= 1e4 ? 2 : en >= 5000.0 ? 1 : 0;
  }
  if (glm.family != GlmFamily::logistic) return 0;
  const double z =
      1.0 / std::sqrt(2.0 * gaussian_pld_max_mu(budget.epsilon, budget.delta * (1.0 - 0x1p-10)));
  const auto ratios = release_noise_ratios(glm, n, z);
  const double r = ratios.empty() ? INFINITY : *std::max_element(ratios.begin(), ratios.end());
  if (!(r <= 1.2)) return 0;
  return r > 0.15 ? 2 : 3;
}

ReleaseOncePlan plan_release_once(const GlmSpec& glm, std::size_t n, const Budget& budget,
                                  std::optional<std::uint64_t> pilot_releases,
                                  std::optional<double> pilot_share,
                                  const std::vector<std::string>& accountants, PlanMemo* memo) {
  const PilotChoice pilots = pilot_choice(pilot_releases, pilot_share, glm, n, budget);
  // A centred expansion releases the intercept's Σ u too: one coordinate more.
  const bool weighted = pilots.releases > 0 && glm.family != GlmFamily::linear;
  const std::size_t coordinates =
      static_cast<std::size_t>(RegressionStatistic(glm).stat_dim()) + (weighted ? 1 : 0);
  auto [plan, noise] =
      plan_releases(accountants, memo, budget, coordinates, pilots.releases, pilots.share);
  return {std::move(plan), noise, pilots.releases, pilots.share};
}

SampleOutcome run_release_once_job(const SampleSpec& spec) {
  const UserModel user = release_once_model(spec);
  const Dataset& rows = user.design->data;
  const Budget budget = release_budget(spec, rows.rows());
  const std::shared_ptr<const GlmModel> glm = make_glm_model(user.glm);
  check_chain_options(spec, glm->dim());
  const int passes = chain_passes(spec, glm->dim());
  const ReleaseOncePlan planned =
      plan_release_once(user.glm, rows.rows(), budget, spec.pilot_releases, spec.pilot_share,
                        spec.accountants, spec.plan_memo.get());
  const PrivateRunPlan& plan = planned.plan;
  // The run is possible: its directory is claimed before anything is written, the key file
  // included (data/directory_lock.hpp; the chains' job below, in this thread, shares the lock).
  const NewOutputDirs new_dirs(spec.out_dir);
  const DirectoryLock out_lock(spec.out_dir, output_option(spec));
  const NoiseKey key = job_noise_key(spec);
  // Counted on the private rows without noise: the curator's, written before anything else.
  const auto curator = curator_dir(spec.out_dir);
  prepare_curator_dir(curator);
  LedgerEntry ledger = reserve_budget(spec, plan, std::nullopt, key, new_dirs);
  json curator_report = release_curator_report(spec, user);
  write_curator_json(curator_report, curator / "report.json");

  PrivateSamplerSetup setup;
  setup.per_iteration = plan.per_iteration;
  EventLog log;
  PrivateData owner(*glm, rows, make_noise_rng(key, spec.run.seed, 0), log,
                    allowance_for(setup, 1));
  Releases made;
  try {
    made = make_releases(owner, planned, user.glm, glm, static_cast<double>(rows.rows()));
  } catch (...) {
    ledger.settle(false, false, log);  // what was released, if anything
    throw;
  }
  ledger.settle(true, false, log);
  curator_report["budget_across_runs"] = ledger.json();
  write_curator_json(curator_report, curator / "report.json");

  // From here on only the release is used, in the statistic's units.
  const RegressionStatistic& stat = *made.stats.back();
  const Vec value = stat.to_units(made.final->value);
  const Vec noise_sd = made.final->noise_sd * stat.widths();
  SampleSpec chains = chains_spec(spec, user, glm, stat, value, noise_sd);
  // The published report is written by the chains' job, with the release's privacy section.
  chains.amend_report =
      [privacy = release_privacy(plan, log, spec.plan_memo.get(), planned, made, value, noise_sd),
       data = json{{"source", chains.header_overrides[1].second},
                   {"rows", rows.rows()},
                   {"columns", rows.columns},
                   {"released_statistics", stat.stat_names()}},
       key = key.describe(), curator](json& report) {
        report["privacy"] = privacy;
        // The rows the statistics were released from (n is public under the substitute relation, as
        // in every private run's report), not the one-row data set the chains read.
        report["data"] = data;
        report.erase("accuracy");  // none without an exact reference; never published here
        report["sampler"]["name"] = kReleaseOnceSampler;
        report["sampler"]["chains"] = "nuts on the posterior given the released statistics";
        report["run"]["noise_key"] = key;
        report["curator"] = {
            {"directory", curator.string()},
            {"note",
             "clip and impute counts are in the curator directory: computed from the private "
             "data without noise"}};
      };
  SampleOutcome out =
      run_chain_passes(std::move(chains), passes, spec.out_dir,
                       [&](const Summary& summary, std::vector<ConvergenceWarning>& warnings) {
                         add_release_warnings(summary, user.glm, stat, planned.pilots, warnings);
                         if (!made.pilots.empty())
                           add_clip_warning(summary, stat, made.pilots.front(), warnings);
                       });
  out.plan = plan;
  out.noise_key_created = key.source() == NoiseKey::Source::file_created;
  out.recorded = log;
  out.ledger = ledger.json();
  out.curator = curator_report;
  out.curator_file = curator / "report.json";
  return out;
}

}  // namespace dpmcmc
