#include "audit/audit_run.hpp"

#include <fmt/format.h>
#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>

#include <chrono>
#include <cmath>
#include <memory>

#include "core/error.hpp"

namespace dpmcmc {

namespace {

// Stream index of run `trial` on side 0 (D) or 1 (D′) of phase p (0 the audit, c + 1 the pilot
// of candidate c): disjoint for every (phase, trial, side) up to 2³¹ trials.
std::uint64_t stream_of(std::uint64_t phase, std::uint64_t trial, std::uint64_t side) {
  return (phase << 32) | (trial << 1) | side;
}

void check_options(const AuditOptions& o) {
  constexpr std::uint64_t kMost = std::uint64_t{1} << 31;
  if (o.trials < 8 || o.pilot_trials < 8 || o.trials > kMost || o.pilot_trials > kMost) {
    throw ConfigError(
        fmt::format("audit: --trials and --pilot-trials must be between 8 and 2^31, got {} and {}",
                    o.trials, o.pilot_trials));
  }
  if (!(o.delta > 0.0 && o.delta < 1.0) || !(o.beta > 0.0 && o.beta < 1.0)) {
    throw ConfigError(
        fmt::format("audit: expected 0 < delta < 1 and a confidence in (0, 1), got "
                    "delta = {} and beta = {}",
                    o.delta, o.beta));
  }
}

AuditSamples both_sides(const AuditSubject& subject, const NeighbourPair& pair, const NoiseKey& key,
                        std::uint64_t phase, std::uint64_t trials, int threads,
                        const std::atomic<bool>* stop) {
  AuditSamples s;
  s.names = subject.statistic_names();
  s.on_d = audit_samples(subject, pair.d, key, phase, 0, trials, threads, stop);
  s.on_d_prime = audit_samples(subject, pair.d_prime, key, phase, 1, trials, threads, stop);
  return s;
}

}  // namespace

Mat audit_samples(const AuditSubject& subject, const Dataset& data, const NoiseKey& key,
                  std::uint64_t phase, std::uint64_t side, std::uint64_t trials, int threads,
                  const std::atomic<bool>* stop) {
  const auto width = static_cast<Eigen::Index>(subject.statistic_names().size());
  // Row-major scratch: each run writes its own contiguous row.
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> out(
      static_cast<Eigen::Index>(trials), width);
  std::unique_ptr<tbb::global_control> limit;
  if (threads > 0) {
    limit = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                                  static_cast<std::size_t>(threads));
  }
  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, trials),
                    [&](const tbb::blocked_range<std::uint64_t>& r) {
                      for (std::uint64_t t = r.begin(); t != r.end(); ++t) {
                        if (stop != nullptr && stop->load()) return;
                        const auto row = static_cast<Eigen::Index>(t);
                        subject.run(data, key, stream_of(phase, t, side),
                                    {out.row(row).data(), static_cast<std::size_t>(width)});
                      }
                    });
  if (stop != nullptr && stop->load()) throw InterruptedRun();
  return out;
}

AuditOutcome run_audit(const AuditSubject& subject, const std::vector<NeighbourPair>& candidates,
                       const AuditOptions& options, const NoiseKey& key) {
  check_options(options);
  const auto start = std::chrono::steady_clock::now();
  AuditOutcome out;
  out.subject = subject.describe();
  out.relation = subject.relation();
  out.delta = options.delta;
  out.beta = options.beta;
  out.trials = options.trials;
  out.certified_epsilon = subject.certified_epsilon(options.delta);

  // 1. Pilot.
  std::optional<std::size_t> best;
  double best_lb = -1.0;
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    PilotResult p{candidates[c].name, 0.0, {}};
    try {
      const auto s = both_sides(subject, candidates[c], key, c + 1, options.pilot_trials,
                                options.threads, options.stop);
      p.epsilon_lb = epsilon_lower_bound(s, options.delta, options.beta).epsilon;
      if (p.epsilon_lb > best_lb) {
        best_lb = p.epsilon_lb;
        best = c;
      }
    } catch (const DataError& e) {
      p.refused = e.what();
    } catch (const ConfigError& e) {
      p.refused = e.what();
    }
    out.pilot.push_back(std::move(p));
  }
  if (!best) {
    std::string why;
    for (const auto& p : out.pilot) why += fmt::format("\n  {}: {}", p.canary, p.refused);
    throw ConfigError(fmt::format("audit: the subject refused every candidate canary:{}", why));
  }

  // 2. Audit on the kept pair.
  out.canary = candidates[*best].name;
  const auto s =
      both_sides(subject, candidates[*best], key, 0, options.trials, options.threads, options.stop);
  out.bound = epsilon_lower_bound(s, options.delta, options.beta);
  out.hockey_stick = hockey_stick_estimate(s, out.bound.test.statistic, options.delta);
  out.tradeoff = tradeoff_curve(s, out.bound.test, 99);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

nlohmann::json AuditOutcome::to_json() const {
  nlohmann::json pilots = nlohmann::json::array();
  for (const auto& p : pilot) {
    nlohmann::json j = {{"canary", p.canary}};
    if (p.refused.empty()) {
      j["epsilon_lb"] = p.epsilon_lb;
    } else {
      j["refused"] = p.refused;
    }
    pilots.push_back(j);
  }
  nlohmann::json curve = nlohmann::json::array();
  for (const auto& [fpr, fnr] : tradeoff) curve.push_back({fpr, fnr});
  const double ratio = certified_epsilon > 0.0 ? bound.epsilon / certified_epsilon : 0.0;
  return {{"subject", subject},
          {"relation", relation == Neighbouring::substitute ? "substitute" : "add_remove"},
          {"canary", canary},
          {"delta", delta},
          {"confidence", 1.0 - beta},
          {"trials", trials},
          {"epsilon_lb", bound.epsilon},
          {"epsilon_certified", certified_epsilon},
          {"ratio", ratio},
          {"verdict", violation() ? "VIOLATION" : "consistent"},
          {"test",
           {{"statistic", bound.statistic},
            {"threshold", bound.test.threshold},
            {"event", bound.test.above ? "statistic > threshold" : "statistic <= threshold"},
            {"evidence_for", bound.test.swapped ? "D" : "D'"},
            {"fpr", bound.fpr},
            {"fnr", bound.fnr},
            {"fpr_upper", bound.fpr_upper},
            {"fnr_upper", bound.fnr_upper},
            {"selection_trials", bound.selection_trials},
            {"judged_trials", bound.judged_trials}}},
          {"hockey_stick_estimate",
           {{"epsilon", std::isfinite(hockey_stick.epsilon) ? nlohmann::json(hockey_stick.epsilon)
                                                            : nlohmann::json("inf")},
            {"bins", hockey_stick.bins},
            {"note", "plug-in estimate on equal-mass bins; no confidence statement"}}},
          {"tradeoff_fpr_fnr", curve},
          {"pilot", pilots},
          {"seconds", seconds}};
}

}  // namespace dpmcmc
