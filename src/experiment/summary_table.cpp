#include "experiment/summary_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

#include "experiment/results_csv.hpp"

namespace dpmcmc {
namespace {

// Orders ε columns: the non-private column (no ε) first, then ascending.
struct EpsilonLess {
  bool operator()(const std::optional<double>& a, const std::optional<double>& b) const {
    if (!a || !b) return !a && b;
    return *a < *b;
  }
};

std::string percent(double share) {
  return fmt::format("{:.1f}%", 100.0 * share);
}

std::string range_of(double lo, double hi, std::string (*show_one)(double)) {
  const std::string a = show_one(lo), b = show_one(hi);
  return a == b ? a : fmt::format("{}–{}", a, b);
}

std::string count_text(double n) {
  return fmt::format("{:.0f}", n);
}

std::string three_digits(double x) {
  return fmt::format("{:.3g}", x);
}

}  // namespace

namespace {

// Audits: one row per (model, sampler), one column per (ε, k): "ε_lb / ε certified".
std::string audit_markdown(const ResultsSummary& summary) {
  using Column = std::pair<double, std::uint64_t>;
  std::vector<Column> columns;
  std::vector<std::pair<std::string, std::string>> rows;
  std::map<std::pair<std::string, std::string>, std::map<Column, const AuditGroup*>> cells;
  for (const auto& a : summary.audit) {
    const Column c{a.epsilon, a.iterations};
    if (std::find(columns.begin(), columns.end(), c) == columns.end()) columns.push_back(c);
    const auto key = std::make_pair(a.model, a.sampler);
    if (!cells.count(key)) rows.push_back(key);
    cells[key][c] = &a;
  }
  std::sort(columns.begin(), columns.end(), [](const Column& x, const Column& y) {
    return std::tie(x.second, x.first) < std::tie(y.second, y.first);
  });
  std::string out = "| model | sampler |", rule = "|---|---|";
  for (const auto& [eps, k] : columns) {
    out += fmt::format(" ε = {}, k = {} |", format_number(eps), k);
    rule += "---|";
  }
  out += "\n" + rule + "\n";
  for (const auto& key : rows) {
    out += fmt::format("| {} | {} |", key.first, key.second);
    for (const auto& c : columns) {
      const auto it = cells[key].find(c);
      if (it == cells[key].end() || !it->second->epsilon_lb || !it->second->certified) {
        out += " – |";
      } else {
        out += fmt::format(" {:.3g} / {:.3g}{} |", *it->second->epsilon_lb, *it->second->certified,
                           it->second->violation ? " VIOLATION" : "");
      }
    }
    out += "\n";
  }
  return out;
}

}  // namespace

std::string summary_markdown(const ResultsSummary& summary) {
  if (summary.sample.empty() && !summary.audit.empty()) return audit_markdown(summary);
  if (summary.sample.empty()) return "";
  std::vector<std::optional<double>> columns;
  for (const auto& g : summary.sample) columns.push_back(g.epsilon);
  std::sort(columns.begin(), columns.end(), EpsilonLess{});
  columns.erase(std::unique(columns.begin(), columns.end()), columns.end());

  // Rows in the summary's order of first appearance.
  using RowKey = std::tuple<std::string, std::string, std::string>;
  std::vector<RowKey> order;
  std::map<RowKey, std::vector<const SampleGroup*>> groups;
  for (const auto& g : summary.sample) {
    const std::string sweep =
        g.sweep_value ? fmt::format("{} = {}", g.sweep_param, format_number(*g.sweep_value)) : "";
    const RowKey key{g.model, g.sampler, sweep};
    if (!groups.count(key)) order.push_back(key);
    groups[key].push_back(&g);
  }
  const bool any_sweep = std::any_of(order.begin(), order.end(),
                                     [](const RowKey& k) { return !std::get<2>(k).empty(); });

  std::string out =
      any_sweep ? "| model | sampler | sweep | metric |" : "| model | sampler | metric |";
  std::string rule = any_sweep ? "|---|---|---|---|" : "|---|---|---|";
  for (const auto& column : columns) {
    out += fmt::format(" {} |", column ? fmt::format("ε = {}", format_number(*column))
                                       : std::string("non-private"));
    rule += "---|";
  }
  // The MMD's noise floor, when the results record it (mmd_exact, since issue #29): the range over
  // the row's ε of its medians (a private sampler keeps more draws at a larger ε), else the
  // model's from another file (add_floor_from).
  const bool any_floor = !summary.model_floor.empty() ||
                         std::any_of(summary.sample.begin(), summary.sample.end(),
                                     [](const SampleGroup& g) { return g.exact.count > 0; });
  out += fmt::format(" rows clipped | repeats |{}\n{}---|---|{}\n",
                     any_floor ? " exact vs exact |" : "", rule, any_floor ? "---|" : "");

  for (const auto& key : order) {
    const auto& gs = groups[key];
    out += fmt::format("| {} | {} |", std::get<0>(key), std::get<1>(key));
    if (any_sweep) out += fmt::format(" {} |", std::get<2>(key).empty() ? "–" : std::get<2>(key));
    out += fmt::format(" {} |", gs.front()->metric);
    double clip_lo = INFINITY, clip_hi = -INFINITY;
    double runs_lo = INFINITY, runs_hi = -INFINITY;
    double exact_lo = INFINITY, exact_hi = -INFINITY;
    for (const auto& column : columns) {
      const auto it = std::find_if(gs.begin(), gs.end(), [&](const SampleGroup* g) {
        return !EpsilonLess{}(g->epsilon, column) && !EpsilonLess{}(column, g->epsilon);
      });
      if (it == gs.end() || (*it)->accuracy.count == 0) {
        out += " – |";
      } else {
        out += fmt::format(" {:.3g} |", (*it)->accuracy.median);
      }
      if (it == gs.end()) continue;
      const auto runs = static_cast<double>((*it)->completed);
      runs_lo = std::min(runs_lo, runs);
      runs_hi = std::max(runs_hi, runs);
      if ((*it)->exact.count > 0) {
        exact_lo = std::min(exact_lo, (*it)->exact.median);
        exact_hi = std::max(exact_hi, (*it)->exact.median);
      }
      if ((*it)->llr_clip.count > 0) {
        clip_lo = std::min(clip_lo, (*it)->llr_clip.median);
        clip_hi = std::max(clip_hi, (*it)->llr_clip.median);
      }
    }
    out += fmt::format(" {} | {} |",
                       std::isfinite(clip_lo) ? range_of(clip_lo, clip_hi, percent) : "NA",
                       range_of(runs_lo, runs_hi, count_text));
    if (any_floor) {
      const auto model = summary.model_floor.find(std::get<0>(key));
      std::string floor = "–";
      if (gs.front()->metric == "mmd" && std::isfinite(exact_lo))
        floor = range_of(exact_lo, exact_hi, three_digits);
      else if (gs.front()->metric == "mmd" && model != summary.model_floor.end())
        floor = three_digits(model->second.median);
      out += fmt::format(" {} |", floor);
    }
    out += "\n";
  }
  if (!summary.floor_file.empty())
    out += fmt::format(
        "\nexact vs exact: where the rows record no mmd_exact, the median over the model's rows "
        "of {}.\n",
        summary.floor_file);
  return out;
}

}  // namespace dpmcmc
