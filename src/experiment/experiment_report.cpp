#include "experiment/experiment_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "core/error.hpp"
#include "data/atomic_file.hpp"
#include "experiment/summary_table.hpp"
#include "io/html_text.hpp"

namespace dpmcmc {
namespace {

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string eps_cell(const std::optional<double>& e) {
  return e ? format_number(*e) : std::string("non-private");
}

std::string spread_cell(const Spread& s) {
  if (s.count == 0) return "NA";
  return fmt::format("{} [{}, {}]", show(s.median), show(s.q25), show(s.q75));
}

// Completed runs whose max_rhat is NA: chains that never moved (an infinite R̂) or a single
// chain. The R̂ spread covers only the other runs, so the count is shown beside it.
std::size_t rhat_na_runs(const SampleGroup& g) {
  return g.completed > g.rhat.count ? g.completed - g.rhat.count : 0;
}

std::string rhat_cell(const SampleGroup& g) {
  const std::size_t na = rhat_na_runs(g);
  if (na == 0 || g.rhat.count == 0) return spread_cell(g.rhat);
  return fmt::format("{} ({} of {} runs NA)", spread_cell(g.rhat), na, g.completed);
}

// The aggregated table as CSV (one row per sampling group; medians and quartiles).
std::string summary_csv(const ResultsSummary& s) {
  std::string out =
      "model,sampler,sweep_param,sweep_value,epsilon,metric,completed,errors,metric_median,"
      "metric_q25,metric_q75,acceptance_median,llr_clip_median,grad_clip_median,iterations_median,"
      "max_rhat_median,sym_kl_median,max_rhat_na_runs\n";
  auto n = [](double x) { return format_number(x); };
  for (const auto& g : s.sample) {
    out += fmt::format(
        "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", g.model, g.sampler,
        g.sweep_value ? g.sweep_param : "NA", g.sweep_value ? format_number(*g.sweep_value) : "NA",
        g.epsilon ? format_number(*g.epsilon) : "NA", g.metric, g.completed, g.errors,
        n(g.accuracy.median), n(g.accuracy.q25), n(g.accuracy.q75), n(g.acceptance.median),
        n(g.llr_clip.median), n(g.grad_clip.median), n(g.iterations.median), n(g.rhat.median),
        n(g.sym_kl.median), rhat_na_runs(g));
  }
  return out;
}

std::string sample_table(const ResultsSummary& s) {
  std::string h =
      "<table><thead><tr><th>model</th><th>sampler</th><th>sweep</th><th>ε</th><th>runs</th>"
      "<th>failed</th>"
      "<th>metric</th><th>median [Q1, Q3]</th><th>acceptance</th><th>log-lik clip</th>"
      "<th>grad clip</th><th>iterations (total)</th><th>max R̂</th><th>certified ε</th>"
      "<th>sym KL</th>"
      "</tr></thead><tbody>\n";
  for (const auto& g : s.sample) {
    h += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "</tr>\n",
        html_escape(g.model), html_escape(g.sampler),
        g.sweep_value ? html_escape(g.sweep_param + " = " + format_number(*g.sweep_value))
                      : std::string("–"),
        eps_cell(g.epsilon), g.completed, g.errors, g.metric, spread_cell(g.accuracy),
        spread_cell(g.acceptance), spread_cell(g.llr_clip), spread_cell(g.grad_clip),
        spread_cell(g.iterations), rhat_cell(g), spread_cell(g.certified_epsilon),
        spread_cell(g.sym_kl));
  }
  return h + "</tbody></table>\n";
}

// Iterations per accountant, one row per (model, template, ε), one column per accountant.
std::string account_table(const ResultsSummary& s) {
  std::vector<std::string> accountants;
  std::vector<std::tuple<std::string, std::string, double>> rows;
  std::map<std::tuple<std::string, std::string, double>, std::map<std::string, std::string>> cells;
  for (const auto& a : s.account) {
    if (std::find(accountants.begin(), accountants.end(), a.accountant) == accountants.end())
      accountants.push_back(a.accountant);
    const auto key = std::make_tuple(a.model, a.sampler, a.epsilon);
    if (!cells.count(key)) rows.push_back(key);
    cells[key][a.accountant] =
        a.iterations ? fmt::format("{}", static_cast<unsigned long long>(*a.iterations))
                     : "<span title=\"" + html_escape(a.message) + "\">–</span>";
  }
  std::string h = "<table><thead><tr><th>model</th><th>template</th><th>ε</th>";
  for (const auto& a : accountants) h += "<th>" + html_escape(a) + "</th>";
  h += "</tr></thead><tbody>\n";
  for (const auto& key : rows) {
    h += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td>", html_escape(std::get<0>(key)),
                     html_escape(std::get<1>(key)), format_number(std::get<2>(key)));
    for (const auto& a : accountants) {
      const auto& row = cells[key];
      h += "<td>" + (row.count(a) ? row.at(a) : std::string("")) + "</td>";
    }
    h += "</tr>\n";
  }
  return h +
         "</tbody></table>\n<p class=\"note\">Iterations allowed by (ε, δ) for one iteration's "
         "release template; – : the accountant cannot plan it (hover for the reason).</p>\n";
}

// One row per audit cell (model, sampler, k, ε): ε_lb beside ε certified.
std::string audit_table(const ResultsSummary& s) {
  std::string h =
      "<table><thead><tr><th>model</th><th>sampler</th><th>k</th><th>ε</th><th>ε_lb</th>"
      "<th>ε certified</th><th>ratio</th><th>hockey-stick estimate</th><th>verdict, test, "
      "canary</th><th>seconds</th></tr></thead><tbody>\n";
  for (const auto& a : s.audit) {
    const auto num = [](const std::optional<double>& v) { return v ? show(*v) : std::string("–"); };
    h += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td><td>{}</td><td>{}</td></tr>\n",
        html_escape(a.model), html_escape(a.sampler), a.iterations, format_number(a.epsilon),
        num(a.epsilon_lb), num(a.certified),
        a.epsilon_lb && a.certified && *a.certified > 0 ? show(*a.epsilon_lb / *a.certified)
                                                        : std::string("–"),
        num(a.hockey_stick), html_escape(a.message), num(a.seconds));
  }
  return h +
         "</tbody></table>\n<p class=\"note\">ε_lb: the empirical lower bound at the spec's "
         "confidence (threshold tests, Clopper–Pearson); a VIOLATION is ε_lb above the "
         "certified ε. The hockey-stick estimate is a plug-in with no confidence "
         "statement.</p>\n";
}

// Where the exact-vs-exact MMD comes from: the dotted lines of the MMD figures.
std::string floor_note(const ResultsSummary& s) {
  std::string h =
      "<p class=\"note\">Dotted lines in the MMD figures: the MMD of as many exact posterior "
      "draws as the cells kept, against the same reference (the MMD's noise floor; column "
      "mmd_exact), median per point";
  if (!s.floor_file.empty()) {
    h += "; black: per model from <code>" + html_escape(s.floor_file) +
         "</code>, whose rows kept their own number of draws (median [IQR]:";
    const char* sep = " ";
    for (const auto& [model, f] : s.model_floor) {
      h += fmt::format("{}{} {} [{}, {}]", sep, html_escape(model), show(f.median), show(f.q25),
                       show(f.q75));
      sep = "; ";
    }
    h += ")";
  }
  return h + ".</p>\n";
}

std::string page(const ReportOptions& options, const ResultsSummary& summary,
                 const std::vector<Figure>& figures, const nlohmann::json& spec) {
  const std::string name =
      spec.contains("name") ? spec["name"].get<std::string>() : options.results.stem().string();
  std::string h = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
      "<title>dpmcmc experiment: {0}</title>\n<style>\n"
      "body{{font-family:sans-serif;max-width:1400px;margin:1em auto;padding:0 1em;color:#222}}\n"
      "table{{border-collapse:collapse;font-size:0.85em;margin:0.5em 0}}\n"
      "th,td{{border:1px solid #ccc;padding:2px 6px;text-align:right}}\n"
      "th{{background:#f0f0f0}} td:nth-child(-n+2){{text-align:left}}\n"
      "img{{max-width:100%;border:1px solid #ddd}} pre{{background:#f7f7f7;padding:0.5em;"
      "overflow:auto;font-size:0.8em}} .note{{color:#555;font-size:0.85em}}\n"
      "</style></head><body>\n<h1>Experiment {0}</h1>\n",
      html_escape(name));
  if (spec.contains("description") && !spec["description"].get<std::string>().empty())
    h += "<p>" + html_escape(spec["description"].get<std::string>()) + "</p>\n";
  h += fmt::format(
      "<p class=\"note\">Generated by <code>dpmcmc report</code> from <code>{}</code> ({} rows). "
      "Every number on this page is computed from that file: medians and interquartile ranges "
      "(type-7 quantiles) over the completed repeats of each cell.</p>\n",
      html_escape(options.results.string()), summary.rows);

  h += "<h2>Reading</h2>\n<ul>\n";
  const auto lines = reading_of(summary);
  for (const auto& l : lines) h += "<li>" + html_escape(l) + "</li>\n";
  if (lines.empty()) h += "<li>No completed cell to compare.</li>\n";
  h += "</ul>\n";

  if (!figures.empty()) h += "<h2>Figures</h2>\n";
  for (const auto& f : figures) {
    h += "<h3>" + html_escape(f.title) + "</h3>\n";
    if (std::filesystem::exists(f.png)) {
      h += fmt::format(
          "<p><img alt=\"{}\" src=\"data:image/png;base64,{}\"></p>\n<p class=\"note\">Vector "
          "version: <code>{}</code>; script: <code>{}</code>.</p>\n",
          html_escape(f.title), base64(slurp(f.png)), html_escape(f.svg.filename().string()),
          html_escape(f.script.filename().string()));
    } else {
      h += fmt::format(
          "<p class=\"note\">Not rendered (--no-plots): run <code>gnuplot {}</code> "
          "in <code>{}</code>.</p>\n",
          html_escape(f.script.filename().string()), html_escape(f.script.parent_path().string()));
    }
  }
  if (!summary.sample.empty()) h += "<h2>Sampling results</h2>\n" + sample_table(summary);
  if (!summary.model_floor.empty() ||
      std::any_of(summary.sample.begin(), summary.sample.end(),
                  [](const SampleGroup& g) { return g.exact.count > 0; }))
    h += floor_note(summary);
  if (!summary.account.empty()) h += "<h2>Accounting comparison</h2>\n" + account_table(summary);
  if (!summary.audit.empty()) h += "<h2>Privacy audits</h2>\n" + audit_table(summary);
  h += "<h2>Configuration</h2>\n";
  if (spec.is_null()) {
    h += "<p class=\"note\">No spec.json beside the results file.</p>\n";
  } else {
    h += "<pre>" + html_escape(spec.dump(2)) + "</pre>\n";
  }
  return h + "</body></html>\n";
}

}  // namespace

ReportOutcome write_experiment_report(const ReportOptions& options) {
  ReportOutcome out;
  const ResultsFile results = read_results(options.results);
  if (results.truncated_last_line) {
    throw DataError(
        fmt::format("{}: the last line is incomplete (an interrupted run?): resume "
                    "the experiment to complete it",
                    options.results.string()));
  }
  out.summary = summarize_results(results, options.results.string());
  if (!options.floor.empty()) {
    if (!std::filesystem::is_regular_file(options.floor))
      throw NoInputError(fmt::format(
          "--floor {}: no such file (expected a results.csv written by `dpmcmc experiment`)",
          options.floor.string()));
    const ResultsFile floor = read_results(options.floor);
    if (floor.truncated_last_line)
      throw DataError(fmt::format("--floor {}: the last line is incomplete (an interrupted run?)",
                                  options.floor.string()));
    add_floor_from(out.summary, floor, options.floor.string());
  }
  out.out_dir =
      options.out_dir.empty() ? options.results.parent_path() / "report" : options.out_dir;
  std::filesystem::create_directories(out.out_dir);

  nlohmann::json spec;  // null when absent
  const auto spec_file = options.results.parent_path() / "spec.json";
  if (std::filesystem::exists(spec_file)) {
    try {
      spec = nlohmann::json::parse(slurp(spec_file));
    } catch (const nlohmann::json::parse_error& e) {
      throw DataError(fmt::format("{}: invalid JSON: {}", spec_file.string(), e.what()));
    }
  }
  out.figures = write_report_plots(out.summary, out.out_dir / "plots", options.plots);
  out.summary_csv = out.out_dir / "summary.csv";
  write_file_atomic(out.summary_csv, summary_csv(out.summary));
  out.summary_md = out.out_dir / "summary.md";
  write_file_atomic(out.summary_md, summary_markdown(out.summary));
  out.html = out.out_dir / "report.html";
  write_file_atomic(out.html, page(options, out.summary, out.figures, spec));
  return out;
}

}  // namespace dpmcmc
