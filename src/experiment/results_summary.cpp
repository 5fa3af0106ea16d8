#include "experiment/results_summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <set>
#include <tuple>

#include "core/error.hpp"
#include "core/types.hpp"
#include "diagnostics/quantile.hpp"

namespace dpmcmc {
namespace {

// Position of `name` in `order`, appending it when new (order of first appearance).
std::size_t rank(std::vector<std::string>& order, const std::string& name) {
  const auto it = std::find(order.begin(), order.end(), name);
  if (it != order.end()) return static_cast<std::size_t>(it - order.begin());
  order.push_back(name);
  return order.size() - 1;
}

std::string eps_text(const std::optional<double>& e) {
  return e ? fmt::format("ε = {}", format_number(*e)) : std::string("no ε (non-private)");
}

bool metric_higher_is_better(const std::string& metric) {
  return metric == "test_accuracy";
}

// Per (model, sampler, ε) of a swept label: the value with the best median metric, the worst,
// and the median clipped fraction at the best (when recorded).
std::vector<std::string> sweep_reading(const ResultsSummary& summary) {
  std::vector<std::string> lines;
  using Key = std::tuple<std::string, std::string, bool, double>;
  std::map<Key, std::vector<const SampleGroup*>> by;
  std::vector<Key> order;
  for (const auto& g : summary.sample) {
    if (!g.sweep_value || g.accuracy.count == 0) continue;
    const Key key{g.model, g.sampler, g.epsilon.has_value(), g.epsilon.value_or(0.0)};
    if (!by.count(key)) order.push_back(key);
    by[key].push_back(&g);
  }
  for (const auto& key : order) {
    auto gs = by[key];
    const bool higher = metric_higher_is_better(gs.front()->metric);
    std::stable_sort(gs.begin(), gs.end(), [&](const SampleGroup* a, const SampleGroup* b) {
      return higher ? a->accuracy.median > b->accuracy.median
                    : a->accuracy.median < b->accuracy.median;
    });
    const SampleGroup& best = *gs.front();
    const SampleGroup& worst = *gs.back();
    std::string line = fmt::format(
        "{}, {}{}: best {} = {} (median {} {}, interquartile range {}–{}, {} runs", best.model,
        best.sampler, best.epsilon ? ", " + eps_text(best.epsilon) : std::string(),
        best.sweep_param, format_number(*best.sweep_value), best.metric, show(best.accuracy.median),
        show(best.accuracy.q25), show(best.accuracy.q75), best.accuracy.count);
    if (best.llr_clip.count > 0)
      line += fmt::format(", clipped fraction {}", show(best.llr_clip.median));
    line += ")";
    if (gs.size() > 1) {
      line += fmt::format("; worst {} = {} (median {}", worst.sweep_param,
                          format_number(*worst.sweep_value), show(worst.accuracy.median));
      if (worst.llr_clip.count > 0)
        line += fmt::format(", clipped fraction {}", show(worst.llr_clip.median));
      line += ")";
    }
    lines.push_back(line + ".");
  }
  return lines;
}

}  // namespace

std::string show(double value) {
  return std::isfinite(value) ? fmt::format("{:.4g}", value) : std::string("NA");
}

Spread spread_of(std::vector<double> values) {
  Spread s;
  values.erase(
      std::remove_if(values.begin(), values.end(), [](double v) { return !std::isfinite(v); }),
      values.end());
  s.count = values.size();
  if (values.empty()) {
    s.median = s.q25 = s.q75 = std::nan("");
    return s;
  }
  const Mat m = Eigen::Map<const Vec>(values.data(), static_cast<Eigen::Index>(values.size()));
  Vec p(3);
  p << 0.25, 0.5, 0.75;
  const Vec q = quantiles(m, p);
  s.q25 = q(0);
  s.median = q(1);
  s.q75 = q(2);
  return s;
}

ResultsSummary summarize_results(const ResultsFile& results, const std::string& file) {
  ResultsSummary out;
  out.rows = results.rows.size();
  std::vector<std::string> models, samplers, accountants;
  // Which metric each model uses: MMD if any row of the model has one.
  // Else the posterior predictive's test accuracy when the model has public held-out rows, else
  // the distance of the mean.
  std::set<std::string> has_mmd, has_accuracy;
  for (const auto& r : results.rows) {
    if (r.text("kind") != "sample") continue;
    if (r.number("mmd", file)) has_mmd.insert(r.text("model"));
    if (r.number("test_accuracy", file)) has_accuracy.insert(r.text("model"));
  }

  struct Collect {
    SampleGroup g;
    std::vector<double> acc, accept, llr, grad, iters, rhat, cert, kl, exact;
  };
  using SampleKey = std::tuple<std::size_t, std::size_t, bool, double, bool, double>;
  std::map<SampleKey, Collect> groups;
  using AccountKey = std::tuple<std::size_t, std::size_t, double, std::size_t>;
  std::map<AccountKey, AccountGroup> account;

  for (const auto& r : results.rows) {
    const std::size_t mi = rank(models, r.text("model"));
    const std::size_t si = rank(samplers, r.text("sampler"));
    const std::optional<double> eps = r.number("epsilon", file);
    if (r.text("kind") == "audit") {
      if (!eps) continue;
      AuditGroup a;
      a.model = r.text("model");
      a.sampler = r.text("sampler");
      a.epsilon = *eps;
      a.iterations = static_cast<std::uint64_t>(r.number("sweep_value", file).value_or(1.0));
      a.epsilon_lb = r.number("epsilon_lb", file);
      a.certified = r.number("certified_epsilon", file);
      a.hockey_stick = r.number("hockey_stick_epsilon", file);
      a.seconds = r.number("wall_seconds", file);
      a.violation = a.epsilon_lb && a.certified && *a.epsilon_lb > *a.certified * (1.0 + 1e-9);
      if (r.text("message") != "NA") a.message = r.text("message");
      out.audit.push_back(a);
      continue;
    }
    if (r.text("kind") == "account") {
      if (!eps) continue;
      AccountGroup a;
      a.model = r.text("model");
      a.sampler = r.text("sampler");
      a.accountant = r.text("accountant");
      a.bound = r.text("bound");
      a.epsilon = *eps;
      if (r.text("status") == "completed") a.iterations = r.number("iterations_total", file);
      if (r.text("message") != "NA") a.message = r.text("message");
      account[{mi, si, *eps, rank(accountants, a.accountant)}] = a;
      continue;
    }
    const std::optional<double> swept = r.number("sweep_value", file);
    Collect& c = groups[{mi, si, swept.has_value(), swept.value_or(0.0), eps.has_value(),
                         eps.value_or(0.0)}];
    c.g.model = r.text("model");
    c.g.sampler = r.text("sampler");
    if (swept) {
      c.g.sweep_param = r.text("sweep_param");
      c.g.sweep_value = swept;
    }
    c.g.epsilon = eps;
    c.g.metric = has_mmd.count(c.g.model)        ? "mmd"
                 : has_accuracy.count(c.g.model) ? "test_accuracy"
                                                 : "mean_error";
    if (r.text("status") != "completed") {
      if (c.g.errors++ == 0) c.g.first_error = r.text("message");
      continue;
    }
    ++c.g.completed;
    auto add = [&](std::vector<double>& v, const char* column) {
      if (const auto x = r.number(column, file)) v.push_back(*x);
    };
    add(c.acc, c.g.metric.c_str());
    add(c.accept, "acceptance_rate");
    add(c.llr, "llr_clip_frac");
    add(c.grad, "grad_clip_frac");
    add(c.iters, "iterations_total");
    add(c.rhat, "max_rhat");
    add(c.cert, "certified_epsilon");
    add(c.kl, "sym_kl");
    add(c.exact, "mmd_exact");
  }
  for (auto& [key, c] : groups) {
    c.g.accuracy = spread_of(c.acc);
    c.g.acceptance = spread_of(c.accept);
    c.g.llr_clip = spread_of(c.llr);
    c.g.grad_clip = spread_of(c.grad);
    c.g.iterations = spread_of(c.iters);
    c.g.rhat = spread_of(c.rhat);
    c.g.certified_epsilon = spread_of(c.cert);
    c.g.sym_kl = spread_of(c.kl);
    c.g.exact = spread_of(c.exact);
    out.sample.push_back(std::move(c.g));
  }
  for (auto& [key, a] : account) out.account.push_back(std::move(a));
  return out;
}

void add_floor_from(ResultsSummary& summary, const ResultsFile& other, const std::string& file) {
  std::set<std::string> wanted, own;
  for (const auto& g : summary.sample) {
    if (g.metric != "mmd") continue;
    if (g.exact.count > 0)
      own.insert(g.model);
    else
      wanted.insert(g.model);
  }
  for (const auto& m : own) wanted.erase(m);
  std::map<std::string, std::vector<double>> values;
  for (const auto& r : other.rows) {
    if (!wanted.count(r.text("model"))) continue;
    if (const auto x = r.number("mmd_exact", file)) values[r.text("model")].push_back(*x);
  }
  if (values.empty()) {
    std::string models;
    for (const auto& m : wanted) models += (models.empty() ? "" : ", ") + m;
    throw UsageError(fmt::format(
        "--floor {}: no row records mmd_exact for a model that needs one ({}); expected the "
        "results of an experiment with the mmd metric on these models, e.g. "
        "experiments/exact-baselines.json",
        file,
        models.empty() ? "none: every MMD model of the results has its own, or there is none"
                       : models));
  }
  for (auto& [model, v] : values) summary.model_floor[model] = spread_of(std::move(v));
  summary.floor_file = file;
}

namespace {

// Best median metric per (model, ε) among the private samplers: the lowest MMD or mean error,
// the highest test accuracy.
void accuracy_reading(const ResultsSummary& summary, std::vector<std::string>& lines) {
  std::map<std::pair<std::string, double>, std::vector<const SampleGroup*>> by_eps;
  std::vector<std::pair<std::string, double>> order;
  for (const auto& g : summary.sample) {
    if (!g.epsilon || g.sweep_value || g.accuracy.count == 0) continue;
    const auto key = std::make_pair(g.model, *g.epsilon);
    if (!by_eps.count(key)) order.push_back(key);
    by_eps[key].push_back(&g);
  }
  for (const auto& key : order) {
    auto gs = by_eps[key];
    const bool higher_is_better = gs.front()->metric == "test_accuracy";
    std::stable_sort(gs.begin(), gs.end(), [&](const SampleGroup* a, const SampleGroup* b) {
      return higher_is_better ? a->accuracy.median > b->accuracy.median
                              : a->accuracy.median < b->accuracy.median;
    });
    const SampleGroup& best = *gs.front();
    std::string line = fmt::format(
        "{}, ε = {}: {} has the {} median {} ({}, interquartile range {}–{}, {} runs)", key.first,
        format_number(key.second), best.sampler, higher_is_better ? "highest" : "lowest",
        best.metric, show(best.accuracy.median), show(best.accuracy.q25), show(best.accuracy.q75),
        best.accuracy.count);
    if (gs.size() > 1) {
      line += fmt::format("; next {} ({})", gs[1]->sampler, show(gs[1]->accuracy.median));
    }
    lines.push_back(line + ".");
  }
}

// The symmetric KL of the histograms (sym_kl), where recorded: lowest is best.
void sym_kl_reading(const ResultsSummary& summary, std::vector<std::string>& lines) {
  std::map<std::pair<std::string, double>, const SampleGroup*> best_kl;
  std::vector<std::pair<std::string, double>> kl_order;
  for (const auto& g : summary.sample) {
    if (!g.epsilon || g.sweep_value || g.sym_kl.count == 0) continue;
    const auto key = std::make_pair(g.model, *g.epsilon);
    if (!best_kl.count(key)) kl_order.push_back(key);
    if (!best_kl.count(key) || g.sym_kl.median < best_kl[key]->sym_kl.median) best_kl[key] = &g;
  }
  for (const auto& key : kl_order) {
    const SampleGroup& g = *best_kl[key];
    lines.push_back(fmt::format("{}, ε = {}: {} has the lowest median sym_kl ({}, {} runs).",
                                key.first, format_number(key.second), g.sampler,
                                show(g.sym_kl.median), g.sym_kl.count));
  }
}

// The non-private baselines' medians, and the cells that failed.
void baseline_and_error_reading(const ResultsSummary& summary, std::vector<std::string>& lines) {
  for (const auto& g : summary.sample) {
    if (!g.epsilon && !g.sweep_value && g.accuracy.count > 0) {
      lines.push_back(fmt::format("{}: non-private baseline {} has median {} {} ({} runs).",
                                  g.model, g.sampler, g.metric, show(g.accuracy.median),
                                  g.accuracy.count));
    }
    if (g.errors > 0) {
      const std::string swept =
          g.sweep_value ? fmt::format(", {} = {}", g.sweep_param, format_number(*g.sweep_value))
                        : std::string();
      lines.push_back(fmt::format("{}, {}{}, {}: {} of {} cells failed (first: {}).", g.model,
                                  g.sampler, swept, eps_text(g.epsilon), g.errors,
                                  g.errors + g.completed, g.first_error));
    }
  }
}

// Accounting: per (model, template), the accountant allowing the most and the fewest
// iterations, and the range of their ratio over the ε grid.
void accounting_reading(const ResultsSummary& summary, std::vector<std::string>& lines) {
  std::map<std::pair<std::string, std::string>, std::map<double, std::vector<const AccountGroup*>>>
      acc;
  std::vector<std::pair<std::string, std::string>> acc_order;
  for (const auto& a : summary.account) {
    if (!a.iterations) continue;
    const auto key = std::make_pair(a.model, a.sampler);
    if (!acc.count(key)) acc_order.push_back(key);
    acc[key][a.epsilon].push_back(&a);
  }
  for (const auto& key : acc_order) {
    // Accountants tied for the most iterations at every ε, and the fewest at the largest ε.
    std::optional<std::set<std::string>> always_best;
    std::string worst_name;
    double lo = INFINITY, hi = -INFINITY;
    const auto& grid = acc[key];
    for (const auto& [eps, rows] : grid) {
      double most = -INFINITY, fewest = INFINITY;
      for (const auto* a : rows) {
        most = std::max(most, *a->iterations);
        if (*a->iterations < fewest) {
          fewest = *a->iterations;
          worst_name = a->accountant;
        }
      }
      std::set<std::string> best;
      for (const auto* a : rows) {
        if (*a->iterations == most) best.insert(a->accountant);
      }
      if (!always_best) {
        always_best = best;
      } else {
        std::set<std::string> both;
        std::set_intersection(always_best->begin(), always_best->end(), best.begin(), best.end(),
                              std::inserter(both, both.begin()));
        always_best = both;
      }
      if (fewest > 0) {
        lo = std::min(lo, most / fewest);
        hi = std::max(hi, most / fewest);
      }
    }
    std::string best;
    for (const auto& b : *always_best) best += (best.empty() ? "" : " and ") + b;
    std::string line =
        fmt::format("Accounting, {} on {} (ε from {} to {}): ", key.second, key.first,
                    format_number(grid.begin()->first), format_number(grid.rbegin()->first));
    line += best.empty() ? std::string("no accountant allows the most iterations at every ε")
                         : fmt::format("{} allow{} the most iterations at every ε", best,
                                       always_best->size() > 1 ? "" : "s");
    if (std::isfinite(lo)) {
      line += fmt::format(", {}–{} times as many as the fewest ({} at the largest ε)", show(lo),
                          show(hi), worst_name);
    }
    lines.push_back(line + ".");
  }
}

// Audits: how many cells are consistent, any violation by name, and the largest ratio
// ε_lb / ε_certified (how tight the strongest audit showed a certificate to be).
void audit_reading(const ResultsSummary& summary, std::vector<std::string>& lines) {
  if (summary.audit.empty()) return;
  std::size_t done = 0, violations = 0;
  const AuditGroup* tightest = nullptr;
  for (const auto& a : summary.audit) {
    if (!a.epsilon_lb || !a.certified) continue;
    ++done;
    if (a.violation) {
      ++violations;
      lines.push_back(fmt::format("VIOLATION: {} on {} at ε = {}, k = {}: ε_lb {} > certified {}",
                                  a.sampler, a.model, format_number(a.epsilon), a.iterations,
                                  show(*a.epsilon_lb), show(*a.certified)));
    }
    if (tightest == nullptr ||
        *a.epsilon_lb / *a.certified > *tightest->epsilon_lb / *tightest->certified)
      tightest = &a;
  }
  lines.push_back(
      fmt::format("{} of {} audits ran; {} consistent (ε_lb ≤ ε certified at the "
                  "spec's confidence).",
                  done, summary.audit.size(), done - violations));
  if (violations > 0) {
    lines.push_back(
        "Each audit holds at its own confidence: over many audits a few false "
        "violations are expected even of a correct sampler; rerun a violating cell "
        "with more trials and a fresh key before believing it.");
  }
  if (tightest != nullptr && !(*tightest->epsilon_lb > 0.0)) {
    lines.push_back(
        "No audit showed a positive lower bound (more trials resolve smaller "
        "rates).");
  } else if (tightest != nullptr) {
    lines.push_back(
        fmt::format("Tightest: {} on {} at ε = {}, k = {}: ε_lb {} of certified {} (ratio {}).",
                    tightest->sampler, tightest->model, format_number(tightest->epsilon),
                    tightest->iterations, show(*tightest->epsilon_lb), show(*tightest->certified),
                    show(*tightest->epsilon_lb / *tightest->certified)));
  }
}

}  // namespace

std::vector<std::string> reading_of(const ResultsSummary& summary) {
  std::vector<std::string> lines;
  accuracy_reading(summary, lines);
  sym_kl_reading(summary, lines);
  for (const auto& line : sweep_reading(summary)) lines.push_back(line);
  baseline_and_error_reading(summary, lines);
  accounting_reading(summary, lines);
  audit_reading(summary, lines);
  return lines;
}

}  // namespace dpmcmc
