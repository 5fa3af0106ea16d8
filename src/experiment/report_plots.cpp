#include "experiment/report_plots.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "core/error.hpp"
#include "data/atomic_file.hpp"
#include "io/gnuplot.hpp"

namespace dpmcmc {
namespace {

// Colour-blind-safe palette (Okabe and Ito), by the order a sampler or accountant first appears.
const std::vector<std::string> kColours = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                           "#E69F00", "#56B4E9", "#F0E442", "#000000"};

std::string safe(const std::string& name) {
  std::string out = name;
  for (char& c : out) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.') c = '_';
  }
  return out;
}

std::string num(double x) {
  return fmt::format("{}", x);
}

// Beyond eight curves the colours repeat: the ninth to sixteenth take a square instead of a
// circle, and so on, so that no two curves of a figure look the same (a DP HMC panel has ten).
const std::vector<int> kPointTypes = {7, 5, 9, 13, 11};  // circle, square, triangles, diamond

class Palette {
 public:
  const std::string& colour(const std::string& name) {
    return kColours[index(name) % kColours.size()];
  }
  // The gnuplot point type of a curve: "pt N".
  std::string marker(const std::string& name) {
    return fmt::format("pt {}", kPointTypes[(index(name) / kColours.size()) % kPointTypes.size()]);
  }

 private:
  std::size_t index(const std::string& name) {
    auto it = std::find(names_.begin(), names_.end(), name);
    if (it == names_.end()) {
      names_.push_back(name);
      it = names_.end() - 1;
    }
    return static_cast<std::size_t>(it - names_.begin());
  }
  std::vector<std::string> names_;
};

struct Panel {
  std::string title, xlabel, ylabel;
  bool logy = false;
  bool logx = false;
  std::vector<std::string> plots;  // gnuplot plot elements
};

// The script: the same panels once to PNG (cairo) and once to SVG.
std::string script_for(const std::string& name, const std::string& title,
                       const std::vector<Panel>& panels) {
  const std::size_t cols = std::min<std::size_t>(panels.size(), 3);
  const std::size_t rows = (panels.size() + cols - 1) / cols;
  const std::size_t w = 460 * cols, h = 340 * rows + 40;
  std::string body =
      fmt::format("set multiplot layout {},{} title {}\n", rows, cols, gnuplot_quote(title));
  for (const auto& p : panels) {
    body += fmt::format("set title {}\nset xlabel {}\nset ylabel {}\n", gnuplot_quote(p.title),
                        gnuplot_quote(p.xlabel), gnuplot_quote(p.ylabel));
    body += p.logy ? "set logscale y\n" : "unset logscale y\n";
    body += p.logx ? "set logscale x\n" : "unset logscale x\n";
    body +=
        "set key below horizontal font ',8'\nset grid\nset autoscale\nset offsets graph 0.03, "
        "graph 0.03, "
        "0, 0\n";
    std::string plot = "plot ";
    for (std::size_t i = 0; i < p.plots.size(); ++i) plot += (i ? ", \\\n     " : "") + p.plots[i];
    body += plot + "\n";
  }
  body += "unset multiplot\n";
  return two_format_script("dpmcmc report", name, title, w, h, body);
}

Figure emit(const std::filesystem::path& dir, const std::string& name, const std::string& title,
            const std::vector<Panel>& panels) {
  Figure f{name, title, dir / (name + ".gp"), dir / (name + ".png"), dir / (name + ".svg")};
  write_file_atomic(f.script, script_for(name, title, panels));
  return f;
}

std::vector<std::string> ordered(std::vector<std::string> seen, const std::string& name) {
  if (std::find(seen.begin(), seen.end(), name) == seen.end()) seen.push_back(name);
  return seen;
}

std::string metric_label(const std::string& metric) {
  return metric == "mmd"             ? std::string("MMD")
         : metric == "test_accuracy" ? std::string("test accuracy")
                                     : std::string("mean error");
}

// The exact-vs-exact MMD, the thesis' black lines ([Raisa2021] Figures 6.2–6.4), as dotted lines:
// per curve from its cells' own mmd_exact (`exact`: curve → "x median" lines; it depends on the
// number of draws kept, which a private sampler's budget sets per ε), in the curve's colour; else,
// for a model whose rows record none, one black line from x = lo to hi with the --floor file's
// median.
void add_floor_lines(const ResultsSummary& s, const std::string& model,
                     const std::vector<std::string>& order,
                     const std::map<std::string, std::string>& exact, const std::string& stem,
                     double lo, double hi, const std::filesystem::path& dir, Palette& palette,
                     Panel& p) {
  const auto line = [&](const std::string& name, const std::string& data, const std::string& colour,
                        const std::string& title) {
    const std::string file = fmt::format("{}-{}-exact.dat", stem, safe(name));
    write_file_atomic(dir / file, "# x, median MMD of as many exact draws\n" + data);
    p.plots.push_back(fmt::format("{} using 1:2 with lines dt 3 lw 2 lc rgb '{}' {}",
                                  gnuplot_quote(file), colour, title));
  };
  bool titled = false;
  for (const auto& curve : order) {
    const auto it = exact.find(curve);
    if (it == exact.end()) continue;
    line(model + "-" + curve, it->second, palette.colour(curve),
         titled ? "notitle" : "title " + gnuplot_quote("exact vs exact (dotted, same draws)"));
    titled = true;
  }
  const auto it = s.model_floor.find(model);
  if (titled || it == s.model_floor.end() || !(lo <= hi)) return;
  const std::string y = num(it->second.median);
  line(model, fmt::format("{} {}\n{} {}\n", num(lo), y, num(hi), y), "black",
       "title " + gnuplot_quote("exact vs exact (median)"));
}

// `kl`: the same figure for the sym_kl column instead of the headline metric.
std::optional<Figure> accuracy_figure(const ResultsSummary& s, const std::filesystem::path& dir,
                                      Palette& palette, bool kl = false) {
  const auto value = [kl](const SampleGroup& g) -> const Spread& {
    return kl ? g.sym_kl : g.accuracy;
  };
  const std::string stem = kl ? "sym-kl" : "accuracy";
  std::vector<std::string> models;
  for (const auto& g : s.sample) {
    if (value(g).count > 0 && !g.sweep_value) models = ordered(models, g.model);
  }
  if (models.empty()) return std::nullopt;
  std::vector<Panel> panels;
  for (const auto& model : models) {
    Panel p;
    p.title = model;
    p.xlabel = "ε";
    double lo = INFINITY, hi = -INFINITY, ymin = INFINITY;
    bool proportion = false;  // test accuracy lies in [0, 1]: a linear axis reads better
    std::map<std::string, std::string> curves;  // sampler → data
    std::map<std::string, std::string> exact;   // sampler → its exact-vs-exact MMD per ε
    std::vector<std::string> order;
    for (const auto& g : s.sample) {
      if (g.model != model || value(g).count == 0 || g.sweep_value) continue;
      p.ylabel = (kl ? std::string("symmetric KL of histograms") : metric_label(g.metric)) +
                 " (median, IQR)";
      ymin = std::min(ymin, value(g).q25);
      proportion = proportion || g.metric == "test_accuracy";
      if (g.epsilon) {
        lo = std::min(lo, *g.epsilon);
        hi = std::max(hi, *g.epsilon);
        if (!curves.count(g.sampler)) order.push_back(g.sampler);
        curves[g.sampler] += fmt::format("{} {} {} {}\n", num(*g.epsilon), num(value(g).median),
                                         num(value(g).q25), num(value(g).q75));
        if (g.exact.count > 0)
          exact[g.sampler] += fmt::format("{} {}\n", num(*g.epsilon), num(g.exact.median));
      }
    }
    if (!std::isfinite(lo)) lo = 0, hi = 1;
    p.logy = ymin > 0 && !proportion;
    for (const auto& sampler : order) {
      const std::string file = fmt::format("{}-{}-{}.dat", stem, safe(model), safe(sampler));
      write_file_atomic(dir / file, "# epsilon median q25 q75\n" + curves[sampler]);
      const std::string& c = palette.colour(sampler);
      p.plots.push_back(fmt::format(
          "{} using 1:3:4 with filledcurves fc rgb '{}' fs transparent solid 0.2 noborder notitle",
          gnuplot_quote(file), c));
      p.plots.push_back(fmt::format("{} using 1:2 with linespoints lc rgb '{}' {} title {}",
                                    gnuplot_quote(file), c, palette.marker(sampler),
                                    gnuplot_quote(sampler)));
    }
    for (const auto& g : s.sample) {
      if (g.model != model || g.epsilon || value(g).count == 0 || g.sweep_value) continue;
      const std::string file =
          fmt::format("{}-{}-{}-baseline.dat", stem, safe(model), safe(g.sampler));
      write_file_atomic(dir / file,
                        fmt::format("# epsilon median (non-private: constant)\n{} {}\n{} {}\n",
                                    num(lo), num(value(g).median), num(hi), num(value(g).median)));
      p.plots.push_back(fmt::format("{} using 1:2 with lines dt 2 lw 2 lc rgb '{}' title {}",
                                    gnuplot_quote(file), palette.colour(g.sampler),
                                    gnuplot_quote(g.sampler + " (non-private)")));
    }
    if (!kl) {
      // A non-private baseline keeps the same draws at every ε: a constant across the panel.
      for (const auto& g : s.sample) {
        if (g.model != model || g.epsilon || g.sweep_value || g.exact.count == 0) continue;
        order = ordered(order, g.sampler);
        exact[g.sampler] = fmt::format("{} {}\n{} {}\n", num(lo), num(g.exact.median), num(hi),
                                       num(g.exact.median));
      }
      add_floor_lines(s, model, order, exact, stem, lo, hi, dir, palette, p);
    }
    panels.push_back(std::move(p));
  }
  return emit(
      dir, stem,
      kl ? "Symmetric KL of 2-d histograms vs privacy budget" : "Accuracy vs privacy budget",
      panels);
}

std::optional<Figure> clipping_figure(const ResultsSummary& s, const std::filesystem::path& dir,
                                      Palette& palette) {
  std::vector<std::string> models;
  for (const auto& g : s.sample) {
    if (g.epsilon && !g.sweep_value && (g.llr_clip.count > 0 || g.grad_clip.count > 0))
      models = ordered(models, g.model);
  }
  if (models.empty()) return std::nullopt;
  std::vector<Panel> panels;
  for (const auto& model : models) {
    Panel p;
    p.title = model;
    p.xlabel = "ε";
    p.ylabel = "clipped fraction (median)";
    std::map<std::string, std::string> llr, grad;
    std::vector<std::string> order;
    for (const auto& g : s.sample) {
      if (g.model != model || !g.epsilon || g.sweep_value) continue;
      if (std::find(order.begin(), order.end(), g.sampler) == order.end())
        order.push_back(g.sampler);
      if (g.llr_clip.count > 0)
        llr[g.sampler] += fmt::format("{} {}\n", num(*g.epsilon), num(g.llr_clip.median));
      if (g.grad_clip.count > 0)
        grad[g.sampler] += fmt::format("{} {}\n", num(*g.epsilon), num(g.grad_clip.median));
    }
    for (const auto& sampler : order) {
      const std::string& c = palette.colour(sampler);
      for (const auto* which : {&llr, &grad}) {
        if (!which->count(sampler)) continue;
        const bool is_llr = which == &llr;
        const std::string file = fmt::format("clipping-{}-{}-{}.dat", safe(model), safe(sampler),
                                             is_llr ? "llr" : "grad");
        write_file_atomic(dir / file, "# epsilon median\n" + which->at(sampler));
        p.plots.push_back(
            fmt::format("{} using 1:2 with linespoints lc rgb '{}' {} dt {} title {}",
                        gnuplot_quote(file), c, palette.marker(sampler), is_llr ? 1 : 2,
                        gnuplot_quote(sampler + (is_llr ? " log-lik" : " gradient"))));
      }
    }
    panels.push_back(std::move(p));
  }
  return emit(dir, "clipping", "Fraction of clipped rows vs privacy budget", panels);
}

// The curve of a swept group: its sampler label, with ε for a private one.
std::string sweep_curve(const SampleGroup& g) {
  return g.epsilon ? fmt::format("{} ε={}", g.sampler, format_number(*g.epsilon)) : g.sampler;
}

// Swept groups (summary order: sweep value ascending within a curve): median metric with its
// interquartile band vs the swept value (`vs_clip` false) or vs the median clipped fraction of
// log-likelihood ratios (`vs_clip` true), one curve per sampler (and ε), one panel per model —
// the two rows of [Raisa2021] Figure 6.2.
std::optional<Figure> sweep_figure(const ResultsSummary& s, const std::filesystem::path& dir,
                                   Palette& palette, bool vs_clip, bool kl = false) {
  const auto value = [kl](const SampleGroup& g) -> const Spread& {
    return kl ? g.sym_kl : g.accuracy;
  };
  const std::string stem = std::string(vs_clip ? "sweep-clipped" : "sweep") + (kl ? "-sym-kl" : "");
  std::vector<std::string> models;
  for (const auto& g : s.sample) {
    if (g.sweep_value && value(g).count > 0 && (!vs_clip || g.llr_clip.count > 0))
      models = ordered(models, g.model);
  }
  if (models.empty()) return std::nullopt;
  std::string param;
  std::vector<Panel> panels;
  for (const auto& model : models) {
    Panel p;
    p.title = model;
    std::map<std::string, std::string> curves;
    std::vector<std::string> order;
    bool positive_x = true, positive_y = true;
    double lo = INFINITY, hi = -INFINITY;
    std::map<std::string, std::string> exact;  // curve → its exact-vs-exact MMD per x
    for (const auto& g : s.sample) {
      if (g.model != model || !g.sweep_value || value(g).count == 0) continue;
      if (vs_clip && g.llr_clip.count == 0) continue;
      param = g.sweep_param;
      p.ylabel = (kl ? std::string("symmetric KL of histograms") : metric_label(g.metric)) +
                 " (median, IQR)";
      const std::string curve = sweep_curve(g);
      if (!curves.count(curve)) order.push_back(curve);
      const double x = vs_clip ? g.llr_clip.median : *g.sweep_value;
      positive_x = positive_x && x > 0;
      lo = std::min(lo, x);
      hi = std::max(hi, x);
      positive_y = positive_y && value(g).q25 > 0;
      curves[curve] += fmt::format("{} {} {} {} {}\n", num(x), num(value(g).median),
                                   num(value(g).q25), num(value(g).q75), num(*g.sweep_value));
      if (g.exact.count > 0) exact[curve] += fmt::format("{} {}\n", num(x), num(g.exact.median));
    }
    p.xlabel = vs_clip ? "clipped fraction of log-likelihood ratios (median)" : param;
    p.logx = !vs_clip && positive_x;
    p.logy = positive_y;
    for (const auto& curve : order) {
      const std::string file = fmt::format("{}-{}-{}.dat", stem, safe(model), safe(curve));
      write_file_atomic(dir / file, fmt::format("# {} median q25 q75 {}\n",
                                                vs_clip ? "clip_fraction" : param, param) +
                                        curves[curve]);
      const std::string& c = palette.colour(curve);
      if (!vs_clip) {
        p.plots.push_back(fmt::format(
            "{} using 1:3:4 with filledcurves fc rgb '{}' fs transparent solid 0.2 noborder "
            "notitle",
            gnuplot_quote(file), c));
      } else {
        p.plots.push_back(fmt::format("{} using 1:2:3:4 with yerrorbars lc rgb '{}' {} notitle",
                                      gnuplot_quote(file), c, palette.marker(curve)));
      }
      p.plots.push_back(fmt::format("{} using 1:2 with linespoints lc rgb '{}' {} title {}",
                                    gnuplot_quote(file), c, palette.marker(curve),
                                    gnuplot_quote(curve)));
    }
    if (!kl) add_floor_lines(s, model, order, exact, stem, lo, hi, dir, palette, p);
    panels.push_back(std::move(p));
  }
  const std::string what = kl ? "Symmetric KL of 2-d histograms" : "Accuracy";
  return vs_clip ? emit(dir, stem,
                        fmt::format("{} vs clipped fraction (sweep over {})", what, param), panels)
                 : emit(dir, stem, fmt::format("{} vs {} (sweep)", what, param), panels);
}

std::optional<Figure> accounting_figure(const ResultsSummary& s, const std::filesystem::path& dir,
                                        Palette& palette) {
  std::vector<std::pair<std::string, std::string>> keys;
  for (const auto& a : s.account) {
    const auto k = std::make_pair(a.model, a.sampler);
    if (a.iterations && std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  }
  if (keys.empty()) return std::nullopt;
  std::vector<Panel> panels;
  for (const auto& [model, sampler] : keys) {
    Panel p;
    p.title = sampler + " on " + model;
    p.xlabel = "ε";
    p.ylabel = "iterations allowed";
    std::map<std::string, std::string> curves;
    std::vector<std::string> order;
    bool positive = true;
    for (const auto& a : s.account) {
      if (a.model != model || a.sampler != sampler || !a.iterations) continue;
      if (!curves.count(a.accountant)) order.push_back(a.accountant);
      curves[a.accountant] += fmt::format("{} {}\n", num(a.epsilon), num(*a.iterations));
      positive = positive && *a.iterations > 0;
    }
    p.logy = positive;
    for (const auto& acc : order) {
      const std::string file =
          fmt::format("accounting-{}-{}-{}.dat", safe(model), safe(sampler), safe(acc));
      write_file_atomic(dir / file, "# epsilon iterations\n" + curves[acc]);
      p.plots.push_back(fmt::format("{} using 1:2 with linespoints lc rgb '{}' {} title {}",
                                    gnuplot_quote(file), palette.colour("acc:" + acc),
                                    palette.marker("acc:" + acc), gnuplot_quote(acc)));
    }
    panels.push_back(std::move(p));
  }
  return emit(dir, "accounting", "Iterations allowed by the budget, per accountant", panels);
}

// Audits: one panel per iteration count k, ε_lb against the certified ε per sampler, with the
// diagonal ε_lb = ε certified above which a point is a violation.
std::optional<Figure> audit_figure(const ResultsSummary& s, const std::filesystem::path& dir,
                                   Palette& palette) {
  std::vector<std::uint64_t> ks;
  double top = 0.0;
  for (const auto& a : s.audit) {
    if (!a.epsilon_lb || !a.certified) continue;
    if (std::find(ks.begin(), ks.end(), a.iterations) == ks.end()) ks.push_back(a.iterations);
    top = std::max({top, *a.certified, *a.epsilon_lb});
  }
  if (ks.empty()) return std::nullopt;
  std::sort(ks.begin(), ks.end());
  write_file_atomic(dir / "audit-diagonal.dat", fmt::format("0 0\n{} {}\n", num(top), num(top)));
  std::vector<Panel> panels;
  for (const auto k : ks) {
    Panel p;
    p.title = fmt::format("k = {} iteration{}", k, k == 1 ? "" : "s");
    p.xlabel = "ε certified";
    p.ylabel = "ε lower bound (audit)";
    p.plots.push_back(
        "'audit-diagonal.dat' using 1:2 with lines dt 2 lc rgb 'black' title 'certified'");
    std::map<std::string, std::string> curves;
    std::vector<std::string> order;
    for (const auto& a : s.audit) {
      if (a.iterations != k || !a.epsilon_lb || !a.certified) continue;
      const std::string key = a.sampler + " on " + a.model;
      if (!curves.count(key)) order.push_back(key);
      curves[key] += fmt::format("{} {}\n", num(*a.certified), num(*a.epsilon_lb));
    }
    for (const auto& key : order) {
      const std::string file = fmt::format("audit-k{}-{}.dat", k, safe(key));
      write_file_atomic(dir / file, "# certified_epsilon epsilon_lb\n" + curves[key]);
      p.plots.push_back(fmt::format("{} using 1:2 with linespoints lc rgb '{}' {} title {}",
                                    gnuplot_quote(file), palette.colour(key), palette.marker(key),
                                    gnuplot_quote(key)));
    }
    panels.push_back(std::move(p));
  }
  return emit(dir, "audit", "Empirical lower bound on ε against the certified ε", panels);
}

}  // namespace

std::string two_format_script(const std::string& by, const std::string& name,
                              const std::string& title, std::size_t width, std::size_t height,
                              const std::string& body) {
  std::string comment = title;  // a line break would end the comment and run the rest
  std::replace(comment.begin(), comment.end(), '\n', ' ');
  return fmt::format(
      "# Written by `{}`: {} (rerun with `gnuplot {}.gp`).\n"
      "set encoding utf8\n"
      "set terminal pngcairo size {},{} font 'sans,10' noenhanced\n"
      "set output {}\n{}"
      "set terminal svg size {},{} dynamic font 'sans,10' noenhanced\n"
      "set output {}\n{}"
      "set output\n",
      by, comment, name, width, height, gnuplot_quote(name + ".png"), body, width, height,
      gnuplot_quote(name + ".svg"), body);
}

std::vector<Figure> write_report_plots(const ResultsSummary& summary,
                                       const std::filesystem::path& dir, bool render) {
  std::filesystem::create_directories(dir);
  if (render) require_gnuplot();
  Palette samplers, accountants;
  std::vector<Figure> figures;
  for (auto f :
       {accuracy_figure(summary, dir, samplers), clipping_figure(summary, dir, samplers),
        sweep_figure(summary, dir, samplers, false), sweep_figure(summary, dir, samplers, true),
        accuracy_figure(summary, dir, samplers, true),
        sweep_figure(summary, dir, samplers, false, true),
        accounting_figure(summary, dir, accountants), audit_figure(summary, dir, samplers)}) {
    if (f) figures.push_back(*f);
  }
  if (render) {
    for (const auto& f : figures) run_gnuplot(f.script);
  }
  return figures;
}

}  // namespace dpmcmc
